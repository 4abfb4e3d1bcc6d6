/**
 * Deletions: `step.go: DeleteStep.Apply` for one resource, and `step_generator.go: GenerateDeletes` /
 * `deployment_executor.go` ordering for many (dependents first; with `--parallel`, independent ones at once).
 */
import { prerequisitesOf, type ResourceState, sortByDependencies } from "../checkpoint";
import { marshalProperties } from "../properties";
import type { Step } from "../types";
import type { EngineContext } from "./context";
import { isProviderType } from "./urn";

/**
 * `step.go: DeleteStep.Apply` + `provider_plugin.go: Delete` — protected resources are refused; components,
 * provider resources, external and retained resources leave the state without an RPC.
 */
export async function deleteState(
  ctx: EngineContext,
  state: ResourceState,
  extra: Partial<Step> = {},
): Promise<void> {
  const { state: run, opts } = ctx;
  if (state.protect) {
    ctx.state.fail(
      state.urn,
      `unable to delete resource "${state.urn}"\nas it is currently marked for protection. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\``,
      run.step("delete", state, { oldId: state.id, ...extra }),
    );
  }
  const callsProvider =
    state.custom && !isProviderType(state.type) && !state.external && !state.retainOnDelete && !opts.preview;
  if (callsProvider) {
    try {
      const { host, protocol } = await ctx.providerOf(state.provider);
      const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: false };
      await ctx.inSlot(() =>
        host.delete({
          urn: state.urn,
          id: state.id,
          properties: marshalProperties(state.outputs, wire),
          oldInputs: marshalProperties(state.inputs, wire),
          timeout: state.customTimeouts?.delete ?? 0,
        }),
      );
    } catch (err) {
      const step = run.step("delete", state, { oldId: state.id, ...extra });
      ctx.state.fail(state.urn, `deleting ${state.urn} failed: ${(err as Error).message}`, step);
    }
  }
  run.deleted.add(state);
  run.step("delete", { ...state, id: "" }, { oldId: state.id, ...extra });
}

/**
 * Deletes `doomed` (dependents before what they depend on). Without `parallel`, one at a time in the given
 * order; with it, each deletion waits only for the deletions of its dependents, and after the first failure no
 * new deletion starts (those in flight finish).
 */
async function deleteAll(
  ctx: EngineContext,
  doomed: readonly ResourceState[],
  extraOf: (state: ResourceState) => Partial<Step>,
): Promise<void> {
  if (ctx.opts.parallel === undefined) {
    for (const state of doomed) await deleteState(ctx, state, extraOf(state));
    return;
  }
  const byUrn = new Map<string, ResourceState[]>();
  for (const s of doomed) byUrn.set(s.urn, [...(byUrn.get(s.urn) ?? []), s]);
  const dependents = new Map<ResourceState, ResourceState[]>();
  for (const s of doomed) {
    for (const urn of prerequisitesOf(s)) {
      for (const dep of byUrn.get(urn) ?? []) {
        if (dep !== s) dependents.set(dep, [...(dependents.get(dep) ?? []), s]);
      }
    }
  }
  const finished = new Map<ResourceState, Promise<void>>();
  let failure: unknown;
  for (const state of doomed) {
    // Dependents come earlier in `doomed`, so their deletions are already scheduled.
    const before = (dependents.get(state) ?? []).map((d) => finished.get(d));
    finished.set(
      state,
      (async () => {
        await Promise.all(before);
        if (failure !== undefined) return;
        try {
          await deleteState(ctx, state, extraOf(state));
        } catch (err) {
          failure ??= err;
        }
      })(),
    );
  }
  await Promise.all(finished.values());
  if (failure !== undefined) throw failure;
}

const replacedMark = (state: ResourceState): Partial<Step> => (state.delete ? { replaced: true } : {});

/**
 * `step_generator.go: GenerateDeletes` — after the program finished without error, walk the old snapshot
 * backwards: delete what is marked for deletion (replaced this run or left over) and every resource the
 * program no longer registered. `deployment_executor.go: Execute` only gets here when the source completed
 * successfully.
 */
export async function generateDeletes(ctx: EngineContext): Promise<void> {
  const { state } = ctx;
  if (state.sawError) return;
  const doomed = [...state.olds]
    .reverse()
    .filter((old) => !state.deleted.has(old) && (old.delete || !state.registered(old.urn)));
  await deleteAll(ctx, doomed, replacedMark);
}

/**
 * `pkg/engine/destroy.go` → `step_generator.go: GenerateDeletes` in destroy mode: every resource in the
 * checkpoint, dependents first (reverse dependency order), each with the provider recorded in its state.
 */
export async function destroyAll(ctx: EngineContext): Promise<void> {
  const { state } = ctx;
  const doomed = sortByDependencies(state.olds)
    .reverse()
    .filter((s) => !state.deleted.has(s));
  await deleteAll(ctx, doomed, replacedMark);
}
