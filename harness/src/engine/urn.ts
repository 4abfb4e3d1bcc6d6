/** URNs, type tokens and provider references, as the engine forms and reads them. */
import { ROOT_STACK_TYPE } from "../checkpoint";

/** `pkg/resource/deploy/providers/reference.go: MakeProviderType`. */
export const PROVIDER_TYPE_PREFIX = "pulumi:providers:";

/** The package whose default provider is the SDK's dynamic provider host. */
export const DYNAMIC_PACKAGE = "pulumi-nodejs";

export function isProviderType(type: string): boolean {
  return type.startsWith(PROVIDER_TYPE_PREFIX);
}

/** `tokens.Type.Package`: `gamehost:index:Server` → `gamehost`; a provider type names its package after the prefix. */
export function packageOf(type: string): string {
  return isProviderType(type) ? type.slice(PROVIDER_TYPE_PREFIX.length) : (type.split(":")[0] ?? "");
}

function typeOfQualified(urn: string): string {
  return urn.split("::")[2] ?? "";
}

/** `sdk/go/common/resource/urn.go: NewURN` (a root-stack parent contributes no type prefix). */
export function makeUrn(
  stack: string,
  project: string,
  parent: string | undefined,
  type: string,
  name: string,
): string {
  const parentType = parent ? typeOfQualified(parent) : "";
  const qualified = parentType && parentType !== ROOT_STACK_TYPE ? `${parentType}$${type}` : type;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

/** The type of a URN (the last of its qualified types). */
export function typeOfUrn(urn: string): string {
  return typeOfQualified(urn).split("$").pop() ?? "";
}

/** `providers/reference.go: NewReference`: `<provider urn>::<provider id>`. */
export function providerReference(urn: string, id: string): string {
  return `${urn}::${id}`;
}

/** `providers/reference.go: ParseReference`. */
export function parseProviderReference(ref: string): { urn: string; id: string } {
  const at = ref.lastIndexOf("::");
  return at < 0 ? { urn: ref, id: "" } : { urn: ref.slice(0, at), id: ref.slice(at + 2) };
}

/**
 * `providers/provider.go: ProviderRequest.DefaultName`: `default`, or `default_<major>_<minor>_<patch>[_<pre>…]`
 * for a requested version (QNames cannot hold dots or dashes).
 */
export function defaultProviderName(version: string | undefined): string {
  if (!version) return "default";
  const [core = "", pre] = version.split("+")[0]?.split(/-(.*)/s) ?? [];
  const parts = core.split(".").map((n) => String(Number(n) || 0));
  return ["default", ...parts, ...(pre ? pre.split(".") : [])].join("_");
}
