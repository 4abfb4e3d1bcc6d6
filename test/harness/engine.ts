/**
 * The engine's step logic for one deployment, copied rule by rule from pulumi/pulumi (each rule names the
 * Go file and function it follows). One `Engine` lives for one run: it starts from the old resource states
 * (the checkpoint), turns registrations into steps, and yields the new resource states.
 *
 * Deliberately left out (a test fixture, not a product): aliases, imports, targets, plans, policy packs,
 * transforms/hooks, explicit provider resources, parallel-diff, dependents of delete-before-replace.
 */
import { randomUUID } from "node:crypto";
import { prerequisitesOf, type ResourceState, ROOT_STACK_TYPE, sortByDependencies } from "./checkpoint";
import {
  annotateSecrets,
  changedKeys,
  deepEquals,
  markAdditionalSecretOutputs,
  marshalProperties,
  UNKNOWN,
} from "./properties";
import type { PropertyMap } from "./proto";
import { type ConfigureResult, ProviderError, type ProviderHost } from "./providerHost";
import type { Diagnostic, Step, StepOp } from "./types";

/** The package whose default provider is the dynamic provider host. */
export const DYNAMIC_PACKAGE = "pulumi-nodejs";
/** `pkg/resource/deploy/providers/reference.go: MakeProviderType`. */
const PROVIDER_TYPE_PREFIX = "pulumi:providers:";

/** A resource registration (`pulumirpc.RegisterResourceRequest`, decoded). */
export interface Goal {
  type: string;
  name: string;
  parent?: string;
  custom: boolean;
  /** Inputs in wire form (secrets wrapped; unknown sentinel during preview). */
  properties: PropertyMap;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  /** `undefined` unless the program set the option. */
  deleteBeforeReplace?: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  protect?: boolean;
  retainOnDelete?: boolean;
  /** An explicit provider reference; "" for the package's default provider. */
  provider: string;
}

/** A configured provider plugin for this run. */
export interface ConfiguredProvider {
  host: ProviderHost;
  protocol: ConfigureResult;
}

/** Options of one {@link Engine}. */
export interface EngineOptions {
  project: string;
  stack: string;
  /** A preview (`--dry-run`): no Create/Update/Delete reaches the provider. */
  preview: boolean;
  /** Resource states of the previous checkpoint, in checkpoint order. */
  olds: readonly ResourceState[];
  /** Starts (once) and configures the dynamic provider host. */
  provider: () => Promise<ConfiguredProvider>;
  /** Sink for engine diagnostics. */
  diagnostics: Diagnostic[];
  /**
   * `pulumi up/destroy --parallel`: at most this many Create/Update/Delete provider calls at once, and
   * deletions of independent resources run concurrently (dependents first). Unset: creates and updates
   * are unbounded (the CLI's default) and deletions run one at a time.
   */
  parallel?: number;
}

/**
 * `pkg/resource/deploy/step_executor.go`: the worker pool — at most `size` steps run at once; the rest
 * wait in arrival order.
 */
class StepSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The freed slot passes straight to the next waiter, so `running` never exceeds `size`.
      if (next) next();
      else this.running--;
    }
  }
}

/** A failed step; the message is what `pulumi up` would print for the resource. */
export class StepError extends Error {
  constructor(
    message: string,
    readonly urn: string,
  ) {
    super(message);
    this.name = "StepError";
  }
}

function isProviderType(type: string): boolean {
  return type.startsWith(PROVIDER_TYPE_PREFIX);
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
) {
  const parentType = parent ? typeOfQualified(parent) : "";
  const qualified = parentType && parentType !== ROOT_STACK_TYPE ? `${parentType}$${type}` : type;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

/** One deployment's worth of step generation and execution. */
export class Engine {
  /** Steps in the order they were applied. */
  readonly steps: Step[] = [];
  /** True once any step failed (`stepGenerator.sawError`): no deletions are generated afterwards. */
  sawError = false;
  private readonly olds: ResourceState[];
  private readonly oldByUrn = new Map<string, ResourceState>();
  private readonly news: ResourceState[] = [];
  private readonly newByUrn = new Map<string, ResourceState>();
  private readonly deleted = new Set<ResourceState>();
  private readonly completions = new Map<string, Promise<void>>();
  private defaultProvider?: Promise<string>;
  private readonly slots?: StepSlots;

  constructor(private readonly opts: EngineOptions) {
    if (opts.parallel !== undefined) {
      if (!Number.isInteger(opts.parallel) || opts.parallel < 1) {
        throw new Error(`parallel must be a positive integer, got ${opts.parallel}`);
      }
      this.slots = new StepSlots(opts.parallel);
    }
    this.olds = opts.olds.map((s) => ({ ...s }));
    for (const s of this.olds) if (!s.delete) this.oldByUrn.set(s.urn, s);
  }

  /** Stack outputs registered in this run (or carried in the old state). */
  stackOutputs(): PropertyMap {
    const stack = this.snapshot().find((s) => s.type === ROOT_STACK_TYPE);
    return stack?.outputs ?? {};
  }

  private step(op: StepOp, state: ResourceState, extra: Partial<Step> = {}): Step {
    const step: Step = {
      op,
      urn: state.urn,
      type: state.type,
      name: state.urn.split("::").slice(3).join("::"),
      custom: state.custom,
      preview: this.opts.preview,
      ...(state.id ? { id: state.id } : {}),
      ...extra,
    };
    this.steps.push(step);
    return step;
  }

  private fail(urn: string, message: string, step?: Step): never {
    this.sawError = true;
    if (step) step.error = message;
    this.opts.diagnostics.push({ severity: "error", message, urn, source: "engine" });
    throw new StepError(message, urn);
  }

  /**
   * `pkg/backend/snapshot.go: SnapshotManager.snap` — the resources produced by this run, then the old ones it
   * did not touch (a failed run keeps them) and pending deletions, in dependency order.
   */
  snapshot(): ResourceState[] {
    const kept = this.olds.filter((o) => !this.deleted.has(o) && (o.delete || !this.newByUrn.has(o.urn)));
    return sortByDependencies([...this.news, ...kept]);
  }

  /** Adds (or replaces) the new state of a URN; the old state with that URN is thereby superseded. */
  private record(state: ResourceState): void {
    const existing = this.newByUrn.get(state.urn);
    if (existing) this.news[this.news.indexOf(existing)] = state;
    else this.news.push(state);
    this.newByUrn.set(state.urn, state);
  }

  /**
   * `pkg/resource/deploy/source_eval.go: defaultProviders.getDefaultProviderRef` — custom resources without an
   * explicit provider use the package's default provider resource, registered (create or same) on first use.
   */
  private defaultProviderRef(type: string): Promise<string> {
    const pkg = type.split(":")[0] ?? "";
    if (pkg !== DYNAMIC_PACKAGE) {
      return Promise.reject(
        new Error(
          `the harness only runs ${DYNAMIC_PACKAGE} dynamic resources; cannot provide for package "${pkg}"`,
        ),
      );
    }
    this.defaultProvider ??= (async () => {
      const urn = makeUrn(
        this.opts.stack,
        this.opts.project,
        undefined,
        `${PROVIDER_TYPE_PREFIX}${pkg}`,
        "default",
      );
      const old = this.oldByUrn.get(urn);
      const state: ResourceState = {
        urn,
        type: `${PROVIDER_TYPE_PREFIX}${pkg}`,
        custom: true,
        id: old?.id ?? (this.opts.preview ? UNKNOWN : randomUUID()),
        inputs: {},
        outputs: {},
        dependencies: [],
        propertyDependencies: {},
      };
      this.record(state);
      this.step(old ? "same" : "create", state);
      return `${urn}::${state.id}`;
    })();
    return this.defaultProvider;
  }

  /**
   * `pkg/resource/deploy/step_generator.go: generateSteps` + `deployment_executor.go` ordering: a registration
   * waits for the steps of everything it depends on, then yields the resource's new state.
   */
  async registerResource(goal: Goal): Promise<ResourceState> {
    const urn = makeUrn(this.opts.stack, this.opts.project, goal.parent, goal.type, goal.name);
    if (this.completions.has(urn)) {
      // pkg/resource/deploy/step_executor.go: executeStep — "resource '…' registered twice".
      this.fail(urn, `resource '${urn}' registered twice`);
    }
    if (isProviderType(goal.type)) {
      this.fail(urn, `explicit provider resources (${goal.type}) are not supported by the harness`);
    }
    let finish = (): void => {};
    this.completions.set(urn, new Promise<void>((resolve) => (finish = resolve)));
    try {
      const prerequisites = new Set([
        ...goal.dependencies,
        ...Object.values(goal.propertyDependencies).flat(),
      ]);
      if (goal.parent) prerequisites.add(goal.parent);
      await Promise.all([...prerequisites].map((u) => this.completions.get(u)));
      const old = this.oldByUrn.get(urn);
      return goal.custom ? await this.stepCustom(urn, goal, old) : this.stepComponent(urn, goal, old);
    } finally {
      finish();
    }
  }

  /** Resolves once every registration received so far has finished its steps. */
  async settle(): Promise<void> {
    let seen: number;
    do {
      seen = this.completions.size;
      await Promise.all(this.completions.values());
    } while (seen !== this.completions.size);
  }

  /** The new state of `urn` in this run, if it was registered (for `pulumi:pulumi:getResource`). */
  lookup(urn: string): ResourceState | undefined {
    return this.newByUrn.get(urn);
  }

  /**
   * `pkg/resource/deploy/step_generator.go: diff` with no provider — a component is created, or "same" when its
   * inputs are deep-equal, else updated; its outputs come from RegisterResourceOutputs.
   */
  private stepComponent(urn: string, goal: Goal, old: ResourceState | undefined): ResourceState {
    const state: ResourceState = {
      urn,
      type: goal.type,
      custom: false,
      id: "",
      inputs: goal.properties,
      outputs: old?.outputs ?? {},
      ...(goal.parent ? { parent: goal.parent } : {}),
      dependencies: goal.dependencies,
      propertyDependencies: goal.propertyDependencies,
      ...(goal.protect ? { protect: true } : {}),
    };
    this.record(state);
    this.step(!old ? "create" : deepEquals(old.inputs, goal.properties) ? "same" : "update", state);
    return state;
  }

  /** `pkg/resource/deploy/source_eval.go: resmon.RegisterResourceOutputs` — replaces a resource's outputs. */
  registerOutputs(urn: string, outputs: PropertyMap): void {
    const state = this.newByUrn.get(urn);
    if (!state) throw new Error(`cannot register outputs for unknown resource ${urn}`);
    state.outputs = outputs;
  }

  private async stepCustom(urn: string, goal: Goal, old: ResourceState | undefined): Promise<ResourceState> {
    const providerRef = goal.provider || (await this.defaultProviderRef(goal.type));
    const { host, protocol } = await this.opts.provider();
    // step_generator.go: continueStepsFromImport — "We only allow unknown property values to be exposed to
    // the provider if we are performing an update preview."
    const allowUnknowns = this.opts.preview;
    const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: allowUnknowns };

    const news: ResourceState = {
      urn,
      type: goal.type,
      custom: true,
      id: "",
      inputs: old ? processIgnoreChanges(goal.properties, old.inputs, goal.ignoreChanges) : goal.properties,
      outputs: {},
      ...(goal.parent ? { parent: goal.parent } : {}),
      provider: providerRef,
      dependencies: goal.dependencies,
      propertyDependencies: goal.propertyDependencies,
      ...(goal.additionalSecretOutputs.length
        ? { additionalSecretOutputs: goal.additionalSecretOutputs }
        : {}),
      ...(goal.protect ? { protect: true } : {}),
      ...(goal.retainOnDelete ? { retainOnDelete: true } : {}),
    };

    // step_generator.go: continueStepsFromImport — Check with the old inputs (if any) and the new ones, then
    // issueCheckErrors: any failure makes the resource invalid and the deployment bails.
    news.inputs = await this.check(host, protocol, urn, old?.inputs ?? {}, news.inputs, wire);

    // step_generator.go: continueStepsFromImport, "Case 4" — no old state: create.
    if (!old) return this.create(host, protocol, news, undefined, {});

    // step_generator.go: generateStepsFromDiff → diff → providerChanged / diffResource.
    const diff = await this.diff(host, urn, old, news, goal, wire);

    // step_generator.go: continueStepsFromDiff.
    if (diff.changes === "some") {
      if (diff.replaceKeys.length > 0) {
        if (old.protect && news.protect) {
          this.fail(urn, `unable to replace resource "${urn}"\nas it is currently marked for protection.`);
        }
        // "If we are going to perform a replacement, we need to recompute the default values": Check again
        // without the old inputs.
        news.inputs = await this.check(host, protocol, urn, {}, goal.properties, wire);
        // "The user can override the provider's decision by setting the deleteBeforeReplace field".
        const deleteBeforeReplace = goal.deleteBeforeReplace ?? diff.deleteBeforeReplace;
        const extra = { diffs: diff.changedKeys, replaceKeys: diff.replaceKeys, deleteBeforeReplace };
        if (deleteBeforeReplace) {
          await this.deleteState(old, { replaced: true });
          return this.create(host, protocol, news, old, extra);
        }
        // Create-before-delete: the old resource is marked for deletion and deleted "later on, after all
        // creates/updates finish" (GenerateDeletes).
        const created = await this.create(host, protocol, news, old, extra);
        old.delete = true;
        return created;
      }
      return this.update(host, protocol, news, old, diff.changedKeys);
    }
    // "If resource was unchanged, but there were initialization errors, generate an empty update step".
    if (old.initErrors?.length) return this.update(host, protocol, news, old, []);
    return this.same(news, old);
  }

  /** `sdk/go/common/resource/plugin/provider_plugin.go: Check` (+ `issueCheckErrors` in the step generator). */
  private async check(
    host: ProviderHost,
    protocol: ConfigureResult,
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
    wire: { keepSecrets: boolean; keepUnknowns: boolean },
  ): Promise<PropertyMap> {
    let res: Awaited<ReturnType<ProviderHost["check"]>>;
    try {
      res = await host.check({
        urn,
        olds: marshalProperties(olds, wire),
        news: marshalProperties(news, wire),
      });
    } catch (err) {
      this.fail(urn, `check failed for ${urn}: ${(err as Error).message}`);
    }
    if (res.failures.length > 0) {
      // step_generator.go: issueCheckFailures — one diagnostic per failure, naming the property.
      const lines = res.failures.map((f) =>
        f.property ? `property ${f.property}: ${f.reason}` : `resource ${urn} is invalid: ${f.reason}`,
      );
      this.fail(urn, `resource ${urn} has check errors:\n  ${lines.join("\n  ")}`);
    }
    // "If we could not pass secrets to the provider, retain the secret bit on any property with the same name."
    return protocol.acceptSecrets ? res.inputs : annotateSecrets(res.inputs, news);
  }

  /**
   * `step_generator.go: diff` / `diffResource` / `providerChanged` / `applyReplaceOnChanges` — provider diff,
   * falling back to an input comparison when the provider answers DIFF_UNKNOWN (the dynamic host does when the
   * resource's provider has no `diff`).
   */
  private async diff(
    host: ProviderHost,
    urn: string,
    old: ResourceState,
    news: ResourceState,
    goal: Goal,
    wire: { keepSecrets: boolean; keepUnknowns: boolean },
  ): Promise<{
    changes: "none" | "some";
    replaceKeys: string[];
    changedKeys: string[];
    deleteBeforeReplace: boolean;
  }> {
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
      this.fail(urn, `diff failed for ${urn}: ${(err as Error).message}`);
    }
    let changes: "none" | "some" = res.changes === "some" ? "some" : "none";
    let changed = res.diffs;
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
   * `pkg/resource/deploy/step.go: CreateStep.Apply` + `provider_plugin.go: Create` — in a preview a provider
   * without preview support is not called and "the inputs [are returned] as the state"; a partial failure
   * (`ErrorResourceInitFailed`) still records the resource, with its init errors, before the step fails.
   */
  private async create(
    host: ProviderHost,
    protocol: ConfigureResult,
    news: ResourceState,
    replacing: ResourceState | undefined,
    extra: Partial<Step>,
  ): Promise<ResourceState> {
    const op: StepOp = replacing ? "replace" : "create";
    const oldId = replacing ? { oldId: replacing.id } : {};
    if (this.opts.preview && !protocol.supportsPreview) {
      news.outputs = markAdditionalSecretOutputs(news.inputs, news.additionalSecretOutputs ?? []);
      this.record(news);
      this.step(op, news, { ...oldId, ...extra });
      return news;
    }
    try {
      const res = await this.inSlot(() =>
        host.create({
          urn: news.urn,
          properties: marshalProperties(news.inputs, {
            keepSecrets: protocol.acceptSecrets,
            keepUnknowns: this.opts.preview,
          }),
          preview: this.opts.preview,
        }),
      );
      if (!res.id && !this.opts.preview) {
        this.fail(
          news.urn,
          `plugin for package '${DYNAMIC_PACKAGE}' returned empty resource.ID from create '${news.urn}'`,
        );
      }
      news.id = res.id;
      news.outputs = this.finishOutputs(res.properties, news, protocol);
      this.record(news);
      this.step(op, news, { ...oldId, ...extra });
      return news;
    } catch (err) {
      if (err instanceof StepError) throw err;
      const partial = err instanceof ProviderError ? err.partial : undefined;
      if (partial) {
        news.id = partial.id;
        news.outputs = this.finishOutputs(partial.properties, news, protocol);
        news.initErrors = partial.reasons;
        this.record(news);
        // The new resource now holds the URN; an old one it was replacing must stay in the state, pending
        // deletion, rather than be forgotten.
        if (replacing && !this.deleted.has(replacing)) replacing.delete = true;
      }
      const step = this.step(op, news, {
        ...oldId,
        ...extra,
        ...(partial ? { initErrors: partial.reasons } : {}),
      });
      this.fail(news.urn, `creating ${news.urn} failed: ${(err as Error).message}`, step);
    }
  }

  /** `pkg/resource/deploy/step.go: UpdateStep.Apply` + `provider_plugin.go: Update`. */
  private async update(
    host: ProviderHost,
    protocol: ConfigureResult,
    news: ResourceState,
    old: ResourceState,
    diffs: string[],
  ): Promise<ResourceState> {
    news.id = old.id;
    if (this.opts.preview && !protocol.supportsPreview) {
      news.outputs = markAdditionalSecretOutputs(news.inputs, news.additionalSecretOutputs ?? []);
      this.record(news);
      this.step("update", news, { oldId: old.id, diffs });
      return news;
    }
    const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: false };
    try {
      const res = await this.inSlot(() =>
        host.update({
          urn: news.urn,
          id: old.id,
          olds: marshalProperties(old.outputs, wire),
          news: marshalProperties(news.inputs, { ...wire, keepUnknowns: this.opts.preview }),
          oldInputs: marshalProperties(old.inputs, wire),
          preview: this.opts.preview,
        }),
      );
      news.outputs = this.finishOutputs(res.properties, news, protocol);
      this.record(news);
      this.step("update", news, { oldId: old.id, diffs });
      return news;
    } catch (err) {
      const partial = err instanceof ProviderError ? err.partial : undefined;
      if (partial) {
        news.outputs = this.finishOutputs(partial.properties, news, protocol);
        news.initErrors = partial.reasons;
        this.record(news);
      }
      const step = this.step("update", news, {
        oldId: old.id,
        diffs,
        ...(partial ? { initErrors: partial.reasons } : {}),
      });
      this.fail(news.urn, `updating ${news.urn} failed: ${(err as Error).message}`, step);
    }
  }

  /** `pkg/resource/deploy/step.go: SameStep.Apply` — keeps the old ID and outputs, takes the new inputs. */
  private same(news: ResourceState, old: ResourceState): ResourceState {
    news.id = old.id;
    news.outputs = markAdditionalSecretOutputs(old.outputs, news.additionalSecretOutputs ?? []);
    this.record(news);
    this.step("same", news);
    return news;
  }

  /**
   * `provider_plugin.go: Create/Update` → `annotateSecrets(outs, inputs)` when the provider does not accept
   * secrets, then `step_executor.go: executeStep` marks `additionalSecretOutputs`.
   */
  private finishOutputs(outs: PropertyMap, news: ResourceState, protocol: ConfigureResult): PropertyMap {
    const annotated = protocol.acceptSecrets ? outs : annotateSecrets(outs, news.inputs);
    return markAdditionalSecretOutputs(annotated, news.additionalSecretOutputs ?? []);
  }

  /**
   * `pkg/resource/deploy/step.go: ReadStep.Apply` + `provider_plugin.go: Read` — `CustomResource.get`: reads
   * an existing resource by ID into the state as external (not managed by Pulumi).
   */
  async readResource(goal: Goal & { id: string }): Promise<ResourceState> {
    const urn = makeUrn(this.opts.stack, this.opts.project, goal.parent, goal.type, goal.name);
    const providerRef = goal.provider || (await this.defaultProviderRef(goal.type));
    const { host, protocol } = await this.opts.provider();
    const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: false };
    const state: ResourceState = {
      urn,
      type: goal.type,
      custom: true,
      id: goal.id,
      inputs: goal.properties,
      outputs: {},
      ...(goal.parent ? { parent: goal.parent } : {}),
      provider: providerRef,
      dependencies: goal.dependencies,
      propertyDependencies: {},
      external: true,
    };
    let res: Awaited<ReturnType<ProviderHost["read"]>>;
    try {
      res = await host.read({
        urn,
        id: goal.id,
        properties: marshalProperties(goal.properties, wire),
        inputs: {},
      });
    } catch (err) {
      this.fail(urn, `reading ${urn} failed: ${(err as Error).message}`, this.step("read", state));
    }
    if (!res.id) this.fail(urn, `resource '${goal.id}' does not exist`, this.step("read", state));
    state.id = res.id;
    state.outputs = protocol.acceptSecrets
      ? res.properties
      : annotateSecrets(res.properties, goal.properties);
    this.record(state);
    this.step("read", state);
    return state;
  }

  /**
   * `pkg/resource/deploy/step.go: DeleteStep.Apply` + `provider_plugin.go: Delete` — protected resources are
   * refused; components, provider resources, external and retained resources leave the state without an RPC.
   */
  private async deleteState(state: ResourceState, extra: Partial<Step> = {}): Promise<void> {
    if (state.protect) {
      this.fail(
        state.urn,
        `unable to delete resource "${state.urn}"\nas it is currently marked for protection. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\``,
        this.step("delete", state, { oldId: state.id, ...extra }),
      );
    }
    const callsProvider =
      state.custom &&
      !isProviderType(state.type) &&
      !state.external &&
      !state.retainOnDelete &&
      !this.opts.preview;
    if (callsProvider) {
      const { host, protocol } = await this.opts.provider();
      const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: false };
      try {
        await this.inSlot(() =>
          host.delete({
            urn: state.urn,
            id: state.id,
            properties: marshalProperties(state.outputs, wire),
            oldInputs: marshalProperties(state.inputs, wire),
          }),
        );
      } catch (err) {
        const step = this.step("delete", state, { oldId: state.id, ...extra });
        this.fail(state.urn, `deleting ${state.urn} failed: ${(err as Error).message}`, step);
      }
    }
    this.deleted.add(state);
    this.step("delete", { ...state, id: "" }, { oldId: state.id, ...extra });
  }

  /**
   * `pkg/resource/deploy/step_generator.go: GenerateDeletes` — after the program finished without error, walk
   * the old snapshot backwards: delete what is marked for deletion (replaced this run or left over) and
   * every resource the program no longer registered. `deployment_executor.go: Execute` only gets here when
   * the source completed successfully.
   */
  async generateDeletes(): Promise<void> {
    if (this.sawError) return;
    const doomed = [...this.olds]
      .reverse()
      .filter((old) => !this.deleted.has(old) && (old.delete || !this.newByUrn.has(old.urn)));
    await this.deleteAll(doomed, (old) => (old.delete ? { replaced: true } : {}));
  }

  /**
   * `pkg/engine/destroy.go` → `step_generator.go: GenerateDeletes` in destroy mode: every resource in the
   * checkpoint, dependents first (reverse dependency order), using the provider text stored in state.
   */
  async destroyAll(): Promise<void> {
    const doomed = sortByDependencies(this.olds)
      .reverse()
      .filter((state) => !this.deleted.has(state));
    await this.deleteAll(doomed, (state) => (state.delete ? { replaced: true } : {}));
  }

  /** Runs a provider call in a step slot when `parallel` is set. */
  private inSlot<T>(work: () => Promise<T>): Promise<T> {
    return this.slots ? this.slots.run(work) : work();
  }

  /**
   * Deletes `doomed` (dependents before what they depend on). Without `parallel`, one at a time in the given
   * order; with it, `deployment_executor.go`/`step_executor.go` style: each deletion waits only for the
   * deletions of its dependents, and after the first failure no new deletion starts (those in flight finish).
   */
  private async deleteAll(
    doomed: readonly ResourceState[],
    extraOf: (state: ResourceState) => Partial<Step>,
  ): Promise<void> {
    if (!this.slots) {
      for (const state of doomed) await this.deleteState(state, extraOf(state));
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
            await this.deleteState(state, extraOf(state));
          } catch (err) {
            failure ??= err;
          }
        })(),
      );
    }
    await Promise.all(finished.values());
    if (failure !== undefined) throw failure;
  }

  /**
   * `pkg/resource/deploy/deployment_executor.go: refresh` + `step.go: RefreshStep.Apply` — Read every custom
   * resource; an empty ID from the provider (`provider_plugin.go: Read`: "the resource was missing") drops it.
   */
  async refreshAll(): Promise<void> {
    for (const old of this.olds) {
      // Pending deletions stay as they are; components and providers "never change with a refresh".
      if (old.delete) continue;
      if (!old.custom || isProviderType(old.type)) {
        this.record({ ...old });
        continue;
      }
      const { host, protocol } = await this.opts.provider();
      const wire = { keepSecrets: protocol.acceptSecrets, keepUnknowns: false };
      let res: Awaited<ReturnType<ProviderHost["read"]>>;
      let initErrors: string[] | undefined;
      try {
        res = await host.read({
          urn: old.urn,
          id: old.id,
          properties: marshalProperties(old.outputs, wire),
          inputs: marshalProperties(old.inputs, wire),
        });
      } catch (err) {
        const partial = err instanceof ProviderError ? err.partial : undefined;
        if (!partial) {
          this.record({ ...old });
          this.fail(
            old.urn,
            `refreshing ${old.urn} failed: ${(err as Error).message}`,
            this.step("refresh", old),
          );
        }
        // "Partial failure SHOULD NOT cause refresh to fail": keep the state, with its init errors.
        this.opts.diagnostics.push({
          severity: "warning",
          message: `Refreshed resource is in an unhealthy state:\n* ${partial.reasons.join("\n* ")}`,
          urn: old.urn,
          source: "engine",
        });
        res = { id: partial.id || old.id, properties: partial.properties };
        initErrors = partial.reasons;
      }
      if (!res.id) {
        this.deleted.add(old);
        this.step("refresh", { ...old, id: "" }, { oldId: old.id, gone: true });
        continue;
      }
      const outputs = protocol.acceptSecrets ? res.properties : annotateSecrets(res.properties, old.outputs);
      const inputs = res.inputs
        ? protocol.acceptSecrets
          ? res.inputs
          : annotateSecrets(res.inputs, old.inputs)
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
      this.record(state);
      this.step("refresh", state, {
        oldId: old.id,
        changed: !deepEquals(inputs, old.inputs) || !deepEquals(outputs, old.outputs),
      });
    }
  }
}

/**
 * `pkg/resource/deploy/step_generator.go: processIgnoreChanges` for top-level property names: ignored
 * properties keep their old value.
 */
function processIgnoreChanges(
  news: PropertyMap,
  olds: PropertyMap,
  ignoreChanges: readonly string[],
): PropertyMap {
  if (ignoreChanges.length === 0) return news;
  const result: PropertyMap = { ...news };
  for (const key of ignoreChanges) {
    const old = olds[key];
    if (old === undefined) delete result[key];
    else result[key] = old;
  }
  return result;
}
