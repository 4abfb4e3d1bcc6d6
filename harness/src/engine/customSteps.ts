/**
 * Steps of a custom resource's registration, rule by rule from `pkg/resource/deploy/step_generator.go`
 * (check, diff, create / same / update / replace, import) and `step.go` (applying each step through its
 * provider, `sdk/go/common/resource/plugin/provider_plugin.go`).
 */
import { randomBytes } from "node:crypto";
import type { ResourceState } from "../checkpoint";
import {
  changedKeys,
  keepSecrecy,
  type MarshalOptions,
  markAdditionalSecretOutputs,
  marshalProperties,
} from "../properties";
import type { PropertyMap } from "../proto";
import { type ConfigureResult, ProviderError, type ProviderHost } from "../providerHost";
import type { Step, StepOp } from "../types";
import { checkFailureText } from "./checkFailures";
import type { EngineContext, Goal } from "./context";
import { deleteState } from "./deletes";
import { hasCustomTimeouts, processIgnoreChanges } from "./options";
import { StepError } from "./state";
import { packageOf } from "./urn";

/** What a provider diff decided, for the step generator. */
interface DiffDecision {
  changes: "none" | "some";
  replaceKeys: string[];
  changedKeys: string[];
  deleteBeforeReplace: boolean;
}

/**
 * `step_generator.go: continueStepsFromImport` and `continueStepsFromDiff` for a custom resource with a known
 * provider reference: check, then import, create, or diff into same / update / replace.
 */
export async function stepCustom(
  ctx: EngineContext,
  urn: string,
  goal: Goal,
  providerRef: string,
  oldState: ResourceState | undefined,
): Promise<ResourceState> {
  const { opts } = ctx;
  const { host, protocol } = await ctx.providerOf(providerRef);
  // "We only allow unknown property values to be exposed to the provider if we are performing an update preview."
  const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: opts.preview };
  let old = oldState;

  const news: ResourceState = {
    urn,
    type: goal.type,
    custom: true,
    id: "",
    inputs: goal.properties,
    outputs: {},
    ...(goal.parent ? { parent: goal.parent } : {}),
    provider: providerRef,
    dependencies: goal.dependencies,
    propertyDependencies: goal.propertyDependencies,
    ...(goal.additionalSecretOutputs.length ? { additionalSecretOutputs: goal.additionalSecretOutputs } : {}),
    ...(goal.protect ? { protect: true } : {}),
    ...(goal.retainOnDelete ? { retainOnDelete: true } : {}),
    ...(hasCustomTimeouts(goal.customTimeouts) ? { customTimeouts: goal.customTimeouts } : {}),
  };

  // step_generator.go: generateSteps — `isImport := goal.ID != "" && (old == nil || old.External ||
  // oldImportID != goal.ID)`: read the existing resource into the state, then carry on as with an old state.
  const oldImportId = old ? (old.importId ?? old.id) : undefined;
  const imported = Boolean(goal.importId && (!old || old.external || oldImportId !== goal.importId));
  if (goal.importId && imported) {
    old = await importStep(ctx, host, protocol, news, goal.importId);
  }

  news.inputs = old ? processIgnoreChanges(news.inputs, old.inputs, goal.ignoreChanges) : news.inputs;
  // "If the resource has been targeted for replacement, ignore its old state": Check as for a new resource.
  const targetedReplace = Boolean(old && ctx.opts.replaceTargets?.includes(urn));
  // One seed per resource and deployment (no update plans here), for every Check of this registration.
  const randomSeed = randomBytes(32);
  // Check with the old inputs (if any) and the new ones; any failure makes the resource invalid.
  const checkOlds = targetedReplace ? {} : (old?.inputs ?? {});
  news.inputs = await check(ctx, host, protocol, urn, checkOlds, news.inputs, wire, randomSeed);

  // "Case 4" — no old state: create.
  if (!old) return create(ctx, host, protocol, news, undefined, {});

  // step_generator.go: diff — "If this resource is marked for replacement, just return a 'replace' diff
  // that blames the id", without asking the provider.
  const diff: DiffDecision = targetedReplace
    ? { changes: "some", replaceKeys: ["id"], changedKeys: [], deleteBeforeReplace: false }
    : await diffStep(ctx, host, urn, old, news, goal, wire);
  if (diff.changes === "some") {
    if (diff.replaceKeys.length > 0) {
      if (old.protect && news.protect) {
        ctx.state.fail(urn, `unable to replace resource "${urn}"\nas it is currently marked for protection.`);
      }
      // "If the goal state specified an ID, issue an error: the replacement will change the ID" (a warning
      // in a preview, which goes on to show the replacement).
      if (goal.importId) {
        const changes = diff.replaceKeys.map(
          (k) => `${k}: ${JSON.stringify(old.inputs[k])} => ${JSON.stringify(news.inputs[k])}`,
        );
        const message =
          "previously-imported resources that still specify an ID may not be replaced; " +
          `please remove the \`import\` declaration from your program;\n${changes.join("\n")}`;
        if (!ctx.opts.preview) ctx.state.fail(urn, message);
        ctx.state.warn(urn, message);
      }
      // "If we are going to perform a replacement, we need to recompute the default values": Check again
      // without the old inputs ("if we're performing a targeted replace, we already have the correct inputs").
      if (!targetedReplace) {
        news.inputs = await check(ctx, host, protocol, urn, {}, goal.properties, wire, randomSeed);
      }
      // "The user can override the provider's decision by setting the deleteBeforeReplace field".
      const deleteBeforeReplace = goal.deleteBeforeReplace ?? diff.deleteBeforeReplace;
      const extra = { diffs: diff.changedKeys, replaceKeys: diff.replaceKeys, deleteBeforeReplace };
      if (deleteBeforeReplace) {
        await deleteState(ctx, old, { replaced: true });
        return create(ctx, host, protocol, news, old, extra);
      }
      // Create-before-delete: the old resource is marked for deletion and deleted "later on, after all
      // creates/updates finish" (GenerateDeletes).
      const created = await create(ctx, host, protocol, news, old, extra);
      old.delete = true;
      return created;
    }
    return update(ctx, host, protocol, news, old, diff.changedKeys);
  }
  // "If resource was unchanged, but there were initialization errors, generate an empty update step".
  if (old.initErrors?.length) return update(ctx, host, protocol, news, old, []);
  // "If this was imported don't generate a new same step, just resolve it with the old state".
  if (imported) return old;
  return same(ctx, news, old);
}

/**
 * `step.go: ImportStep.Apply` — Read with the import id and no properties; the answer's id (if any) becomes
 * the resource's id, its inputs and outputs the state (a provider that answers no inputs cannot import).
 */
async function importStep(
  ctx: EngineContext,
  host: ProviderHost,
  protocol: ConfigureResult,
  news: ResourceState,
  importId: string,
): Promise<ResourceState> {
  const { state } = ctx;
  let read: Awaited<ReturnType<ProviderHost["read"]>>;
  try {
    read = await host.read({ urn: news.urn, id: importId, properties: {}, inputs: {} });
  } catch (err) {
    ctx.state.fail(
      news.urn,
      `importing ${news.urn} failed: ${(err as Error).message}`,
      state.step("import", news),
    );
  }
  if (!read.id && Object.keys(read.properties).length === 0) {
    ctx.state.fail(news.urn, `resource '${importId}' does not exist`, state.step("import", news));
  }
  if (!read.inputs) {
    ctx.state.fail(
      news.urn,
      `provider does not support importing resources; please try updating the '${packageOf(news.type)}' plugin`,
      state.step("import", news),
    );
  }
  const imported: ResourceState = {
    ...news,
    id: read.id || importId,
    inputs: protocol.acceptSecrets ? read.inputs : keepSecrecy(read.inputs, {}),
    outputs: read.properties,
    importId,
  };
  state.record(imported);
  state.step("import", imported);
  return imported;
}

/** `provider_plugin.go: Check` (+ `issueCheckErrors` in the step generator). */
async function check(
  ctx: EngineContext,
  host: ProviderHost,
  protocol: ConfigureResult,
  urn: string,
  olds: PropertyMap,
  news: PropertyMap,
  wire: MarshalOptions,
  randomSeed: Uint8Array,
): Promise<PropertyMap> {
  let res: Awaited<ReturnType<ProviderHost["check"]>>;
  try {
    res = await host.check({
      urn,
      olds: marshalProperties(olds, wire),
      news: marshalProperties(news, wire),
      randomSeed,
    });
  } catch (err) {
    ctx.state.fail(urn, `check failed for ${urn}: ${(err as Error).message}`);
  }
  if (res.failures.length > 0) {
    ctx.state.fail(urn, checkFailureText(urn, news, res.failures));
  }
  // "If we could not pass secrets to the provider, retain the secret bit on any property with the same name."
  return protocol.acceptSecrets ? res.inputs : keepSecrecy(res.inputs, news);
}

/**
 * `step_generator.go: diff` / `diffResource` / `providerChanged` / `applyReplaceOnChanges` — provider diff,
 * falling back to an input comparison when the provider answers DIFF_UNKNOWN (the dynamic host does when the
 * resource's provider has no `diff`). A detailed diff names the changed properties.
 */
async function diffStep(
  ctx: EngineContext,
  host: ProviderHost,
  urn: string,
  old: ResourceState,
  news: ResourceState,
  goal: Goal,
  wire: MarshalOptions,
): Promise<DiffDecision> {
  // providerChanged: a different provider reference means replacement.
  if (old.provider && old.provider !== news.provider) {
    return { changes: "some", replaceKeys: ["provider"], changedKeys: [], deleteBeforeReplace: false };
  }
  let res: Awaited<ReturnType<ProviderHost["diff"]>>;
  try {
    res = await host.diff({
      urn,
      id: old.id,
      olds: marshalProperties(old.outputs, wire),
      news: marshalProperties(news.inputs, wire),
      oldInputs: marshalProperties(old.inputs, wire),
      ignoreChanges: goal.ignoreChanges,
    });
  } catch (err) {
    ctx.state.fail(urn, `diff failed for ${urn}: ${(err as Error).message}`);
  }
  let changes: "none" | "some" = res.changes === "some" ? "some" : "none";
  let changed = res.diffs.length > 0 ? res.diffs : Object.keys(res.detailedDiff ?? {});
  if (res.changes === "unknown") {
    changed = changedKeys(old.inputs, news.inputs);
    changes = changed.length > 0 ? "some" : "none";
  }
  const replaceKeys = new Set(res.replaces);
  if (changes === "some") {
    for (const key of changed) {
      if (goal.replaceOnChanges.some((p) => p === "*" || p === key || p.startsWith(`${key}.`))) {
        replaceKeys.add(key);
      }
    }
  }
  return {
    changes,
    replaceKeys: [...replaceKeys],
    changedKeys: changed,
    deleteBeforeReplace: res.deleteBeforeReplace,
  };
}

/**
 * `step.go: CreateStep.Apply` + `provider_plugin.go: Create` — in a preview a provider without preview support
 * is not called and "the inputs [are returned] as the state"; one with it answers the planned outputs. A
 * partial failure (`ErrorResourceInitFailed`) still records the resource, with its init errors, before the step
 * fails.
 */
export async function create(
  ctx: EngineContext,
  host: ProviderHost,
  protocol: ConfigureResult,
  news: ResourceState,
  replacing: ResourceState | undefined,
  extra: Partial<Step>,
): Promise<ResourceState> {
  const { state, opts } = ctx;
  const op: StepOp = replacing ? "replace" : "create";
  const oldId = replacing ? { oldId: replacing.id } : {};
  if (opts.preview && !protocol.supportsPreview) {
    news.outputs = markAdditionalSecretOutputs(news.inputs, news.additionalSecretOutputs ?? []);
    state.record(news);
    state.step(op, news, { ...oldId, ...extra });
    return news;
  }
  try {
    const res = await ctx.inSlot(() =>
      host.create({
        urn: news.urn,
        properties: marshalProperties(news.inputs, {
          keepSecrets: protocol.acceptSecrets,
          keepUnknowns: opts.preview,
        }),
        preview: opts.preview,
        timeout: news.customTimeouts?.create ?? 0,
      }),
    );
    if (!res.id && !opts.preview) {
      ctx.state.fail(
        news.urn,
        `plugin for package '${packageOf(news.type)}' returned empty resource.ID from create '${news.urn}'`,
      );
    }
    news.id = res.id;
    news.outputs = finishOutputs(res.properties, news, protocol);
    state.record(news);
    state.step(op, news, { ...oldId, ...extra });
    return news;
  } catch (err) {
    if (err instanceof StepError) throw err;
    const partial = err instanceof ProviderError ? err.partial : undefined;
    if (partial) {
      news.id = partial.id;
      news.outputs = finishOutputs(partial.properties, news, protocol);
      news.initErrors = partial.reasons;
      state.record(news);
      // The new resource now holds the URN; an old one it was replacing must stay in the state, pending
      // deletion, rather than be forgotten.
      if (replacing && !state.deleted.has(replacing)) replacing.delete = true;
    }
    const step = state.step(op, news, {
      ...oldId,
      ...extra,
      ...(partial ? { initErrors: partial.reasons } : {}),
    });
    ctx.state.fail(news.urn, `creating ${news.urn} failed: ${(err as Error).message}`, step);
  }
}

/** `step.go: UpdateStep.Apply` + `provider_plugin.go: Update`. */
async function update(
  ctx: EngineContext,
  host: ProviderHost,
  protocol: ConfigureResult,
  news: ResourceState,
  old: ResourceState,
  diffs: string[],
): Promise<ResourceState> {
  const { state, opts } = ctx;
  news.id = old.id;
  if (old.importId) news.importId = old.importId;
  if (opts.preview && !protocol.supportsPreview) {
    news.outputs = markAdditionalSecretOutputs(news.inputs, news.additionalSecretOutputs ?? []);
    state.record(news);
    state.step("update", news, { oldId: old.id, diffs });
    return news;
  }
  const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: false };
  try {
    const res = await ctx.inSlot(() =>
      host.update({
        urn: news.urn,
        id: old.id,
        olds: marshalProperties(old.outputs, wire),
        news: marshalProperties(news.inputs, { ...wire, keepUnknowns: opts.preview }),
        oldInputs: marshalProperties(old.inputs, wire),
        preview: opts.preview,
        timeout: news.customTimeouts?.update ?? 0,
      }),
    );
    news.outputs = finishOutputs(res.properties, news, protocol);
    state.record(news);
    state.step("update", news, { oldId: old.id, diffs });
    return news;
  } catch (err) {
    const partial = err instanceof ProviderError ? err.partial : undefined;
    if (partial) {
      news.outputs = finishOutputs(partial.properties, news, protocol);
      news.initErrors = partial.reasons;
      state.record(news);
    }
    const step = state.step("update", news, {
      oldId: old.id,
      diffs,
      ...(partial ? { initErrors: partial.reasons } : {}),
    });
    ctx.state.fail(news.urn, `updating ${news.urn} failed: ${(err as Error).message}`, step);
  }
}

/** `step.go: SameStep.Apply` — keeps the old ID and outputs, takes the new inputs. */
function same(ctx: EngineContext, news: ResourceState, old: ResourceState): ResourceState {
  news.id = old.id;
  if (old.importId) news.importId = old.importId;
  news.outputs = markAdditionalSecretOutputs(old.outputs, news.additionalSecretOutputs ?? []);
  ctx.state.record(news);
  ctx.state.step("same", news);
  return news;
}

/**
 * `provider_plugin.go: Create/Update` → `keepSecrecy(outs, inputs)` when the provider does not accept
 * secrets, then `step_executor.go: executeStep` marks `additionalSecretOutputs`.
 */
function finishOutputs(outs: PropertyMap, news: ResourceState, protocol: ConfigureResult): PropertyMap {
  const annotated = protocol.acceptSecrets ? outs : keepSecrecy(outs, news.inputs);
  return markAdditionalSecretOutputs(annotated, news.additionalSecretOutputs ?? []);
}
