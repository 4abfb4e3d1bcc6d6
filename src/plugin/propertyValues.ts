/**
 * Property values in the SDK's wire form: secrets travel as `{<sig key>: <secret sig>, value}` and preview
 * unknowns as a sentinel string (the SDK's `rpc.ts` signatures), and the engine's rules for keeping secrets
 * secret. Free of gRPC, so that the engine harness (harness/) applies the same rules as the plugin.
 */
import { UNKNOWN } from "../kinds/checks";

/** `sdk/nodejs/runtime/rpc.ts: specialSigKey`. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** `sdk/nodejs/runtime/rpc.ts: specialSecretSig`. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export { UNKNOWN };

/** A JSON value as a Struct holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A property map as a Struct holds it. */
export type PropertyMap = { [key: string]: Json };

const isObject = (value: unknown): value is { [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether `value` is a wire secret. */
export function isSecret(value: unknown): value is { value: Json } {
  return isObject(value) && value[SIG_KEY] === SECRET_SIG;
}

/** `value` as a wire secret (a secret stays as it is). */
export function secret(value: Json): Json {
  return isSecret(value) ? value : { [SIG_KEY]: SECRET_SIG, value };
}

/** `sdk/go/common/resource/properties.go: ContainsSecrets`. */
export function containsSecrets(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecrets);
  if (isObject(value)) return Object.values(value).some(containsSecrets);
  return false;
}

/** The value with every secret replaced by what it holds: what a kind works with. */
export function reveal(value: Json): Json {
  if (isSecret(value)) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (isObject(value)) {
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[k] = reveal(v);
    return out;
  }
  return value;
}

/**
 * Marks `outs` secret wherever the same-named member of `ins` was secret (recursing into objects), as
 * `provider_plugin.go: annotateSecrets` does for providers that do not keep secrets: an input echoed
 * as an output must not lose its secrecy on the way out.
 */
export function keepSecrecy(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const [key, inValue] of Object.entries(ins)) {
    if (!(key in result)) continue;
    const outValue = result[key] as Json;
    if (isObject(outValue) && !isSecret(outValue) && isObject(inValue) && !isSecret(inValue)) {
      result[key] = keepSecrecy(outValue, inValue);
    } else if (!isSecret(outValue) && containsSecrets(inValue)) {
      result[key] = secret(outValue);
    }
  }
  return result;
}

/** Marks the named top-level properties secret. */
export function markSecret(props: PropertyMap, names: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...props };
  for (const name of names) {
    const value = result[name];
    if (value !== undefined && value !== UNKNOWN) result[name] = secret(value);
  }
  return result;
}

/**
 * `props` with the value at `path` (property names, outermost first) marked secret; unchanged when the
 * path is absent, unknown, or already under a secret.
 */
export function markSecretAt(props: PropertyMap, path: readonly string[]): PropertyMap {
  const [name, ...rest] = path;
  if (name === undefined || !(name in props)) return props;
  const value = props[name] as Json;
  if (value === UNKNOWN || isSecret(value)) return props;
  if (rest.length === 0) return { ...props, [name]: secret(value) };
  return isObject(value) ? { ...props, [name]: markSecretAt(value, rest) } : props;
}

/** Whether `props` hold a value at `path` (through secrets): what a recorded state says of it. */
export function holdsPath(props: Json, path: readonly string[]): boolean {
  const [name, ...rest] = path;
  if (name === undefined) return true;
  const open = isSecret(props) ? props.value : props;
  return isObject(open) && name in open && holdsPath(open[name] as Json, rest);
}
