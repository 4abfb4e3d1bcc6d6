/**
 * `pkg/resource/deploy/deployment_executor.go: refresh` + `step.go: RefreshStep.Apply` — Read every custom
 * resource with the provider recorded in its state; an empty ID from the provider (`provider_plugin.go: Read`:
 * "the resource was missing") drops it.
 */
import type { ResourceState } from "../checkpoint";
import { deepEquals, keepSecrecy, marshalProperties } from "../properties";
import { ProviderError, type ProviderHost } from "../providerHost";
import type { EngineContext } from "./context";
import { isProviderType } from "./urn";

export async function refreshAll(ctx: EngineContext): Promise<void> {
  const { state: run, opts } = ctx;
  for (const old of run.olds) {
    // Pending deletions stay as they are; components and providers "never change with a refresh".
    if (old.delete) continue;
    if (!old.custom || isProviderType(old.type)) {
      run.record({ ...old });
      continue;
    }
    let res: Awaited<ReturnType<ProviderHost["read"]>>;
    let initErrors: string[] | undefined;
    let acceptSecrets = false;
    try {
      const { host, protocol } = await ctx.providerOf(old.provider);
      acceptSecrets = protocol.acceptSecrets;
      const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: false };
      res = await host.read({
        urn: old.urn,
        id: old.id,
        properties: marshalProperties(old.outputs, wire),
        inputs: marshalProperties(old.inputs, wire),
      });
    } catch (err) {
      const partial = err instanceof ProviderError ? err.partial : undefined;
      if (!partial) {
        run.record({ ...old });
        ctx.state.fail(
          old.urn,
          `refreshing ${old.urn} failed: ${(err as Error).message}`,
          run.step("refresh", old),
        );
      }
      // "Partial failure SHOULD NOT cause refresh to fail": keep the state, with its init errors.
      opts.diagnostics.push({
        severity: "warning",
        message: `Refreshed resource is in an unhealthy state:\n* ${partial.reasons.join("\n* ")}`,
        urn: old.urn,
        source: "engine",
      });
      res = { id: partial.id || old.id, properties: partial.properties };
      initErrors = partial.reasons;
    }
    if (!res.id) {
      run.deleted.add(old);
      run.step("refresh", { ...old, id: "" }, { oldId: old.id, gone: true });
      continue;
    }
    const outputs = acceptSecrets ? res.properties : keepSecrecy(res.properties, old.outputs);
    const inputs = res.inputs
      ? acceptSecrets
        ? res.inputs
        : keepSecrecy(res.inputs, old.inputs)
      : old.inputs;
    // A healthy read clears earlier init errors (RefreshStep.Apply builds the state with this read's errors).
    const { initErrors: _previous, ...rest } = old;
    const state: ResourceState = {
      ...rest,
      id: res.id,
      inputs,
      outputs,
      ...(initErrors ? { initErrors } : {}),
    };
    run.record(state);
    run.step("refresh", state, {
      oldId: old.id,
      changed: !deepEquals(inputs, old.inputs) || !deepEquals(outputs, old.outputs),
    });
  }
}
