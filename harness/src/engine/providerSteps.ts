/**
 * Provider resources: the default provider of each package (`pkg/resource/deploy/default_providers.go`) and
 * explicit ones a program registers, stepped like other resources through `providers/registry.go`'s
 * Check (CheckConfig), Diff (DiffConfig) and Create/Same/Update (Configure with the provider's id).
 */
import { randomUUID } from "node:crypto";
import type { ResourceState } from "../checkpoint";
import { deepEquals, UNKNOWN } from "../properties";
import type { PropertyMap } from "../proto";
import type { StepOp } from "../types";
import { checkFailureText } from "./checkFailures";
import type { EngineContext, Goal } from "./context";
import { defaultProviderName, makeUrn, PROVIDER_TYPE_PREFIX, packageOf, providerReference } from "./urn";

/** `providers/provider.go: SetProviderVersion` — the version input of a provider resource. */
const VERSION_KEY = "version";

/**
 * Steps a provider resource to its new state: check its inputs, diff them with the old ones, and configure
 * the provider with its id (a new one on create: `registry.go: Create` generates a UUID; unknown in a preview).
 */
export async function stepProvider(
  ctx: EngineContext,
  urn: string,
  type: string,
  properties: PropertyMap,
  extra: Pick<ResourceState, "dependencies" | "propertyDependencies"> & { parent?: string },
): Promise<ResourceState> {
  const { state, opts } = ctx;
  const old = state.oldByUrn.get(urn);
  const checked = await opts.providers
    .check(urn, old?.inputs ?? {}, properties)
    .catch((err: unknown) => ctx.state.fail(urn, `check failed for ${urn}: ${(err as Error).message}`));
  if (checked.failures.length > 0) {
    ctx.state.fail(urn, checkFailureText(urn, properties, checked.failures));
  }
  let op: StepOp = "create";
  if (old) {
    const diff = await opts.providers.diff(urn, old.inputs, checked.inputs);
    const changed =
      diff.changes === "unknown" ? !deepEquals(old.inputs, checked.inputs) : diff.changes === "some";
    op = changed ? "update" : "same";
  }
  const id = old?.id ?? (opts.preview ? UNKNOWN : randomUUID());
  const next: ResourceState = {
    urn,
    type,
    custom: true,
    id,
    inputs: checked.inputs,
    outputs: checked.inputs,
    ...(extra.parent ? { parent: extra.parent } : {}),
    dependencies: extra.dependencies,
    propertyDependencies: extra.propertyDependencies,
  };
  try {
    await opts.providers.configure(urn, id, checked.inputs);
  } catch (err) {
    ctx.state.fail(urn, `configuring ${urn} failed: ${(err as Error).message}`, state.step(op, next));
  }
  state.record(next);
  state.step(op, next);
  return next;
}

/**
 * `default_providers.go: getDefaultProviderRef` — a resource (or invoke) without an explicit provider uses its
 * package's default provider, registered once per run (and version) on first use.
 */
export class DefaultProviders {
  private readonly refs = new Map<string, Promise<string>>();

  constructor(private readonly ctx: EngineContext) {}

  /** The reference `<urn>::<id>` of the default provider for a resource or invoke token. */
  referenceFor(type: string, version?: string): Promise<string> {
    const pkg = packageOf(type);
    const name = defaultProviderName(version);
    const key = `${pkg}@${name}`;
    let ref = this.refs.get(key);
    if (!ref) {
      ref = (async () => {
        const { opts } = this.ctx;
        const providerType = `${PROVIDER_TYPE_PREFIX}${pkg}`;
        const urn = makeUrn(opts.stack, opts.project, undefined, providerType, name);
        const inputs = {
          ...opts.providers.defaultInputs(pkg),
          ...(version ? { [VERSION_KEY]: version } : {}),
        };
        const state = await stepProvider(this.ctx, urn, providerType, inputs, {
          dependencies: [],
          propertyDependencies: {},
        });
        return providerReference(urn, state.id);
      })();
      this.refs.set(key, ref);
    }
    return ref;
  }
}

/** An explicit provider resource (`new gamehost.Provider(…)`): stepped as the default ones are. */
export function stepExplicitProvider(ctx: EngineContext, urn: string, goal: Goal): Promise<ResourceState> {
  return stepProvider(ctx, urn, goal.type, goal.properties, {
    dependencies: goal.dependencies,
    propertyDependencies: goal.propertyDependencies,
    ...(goal.parent ? { parent: goal.parent } : {}),
  });
}
