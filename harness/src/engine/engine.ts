/**
 * The engine's step logic for one deployment, copied rule by rule from pulumi/pulumi (each module names the
 * Go file and function it follows). One `Engine` lives for one run: it starts from the old resource states
 * (the checkpoint), turns registrations into steps, and yields the new resource states.
 *
 * Deliberately left out (a development tool, not a product): aliases, targets, plans, policy packs,
 * transforms/hooks, component providers, parallel-diff, dependents of delete-before-replace.
 */
import { type ResourceState, ROOT_STACK_TYPE } from "../checkpoint";
import { deepEquals, keepSecrecy, marshalProperties } from "../properties";
import type { PropertyMap } from "../proto";
import type { CheckFailure } from "../providerHost";
import type { EngineContext, EngineOptions, Goal } from "./context";
import { stepCustom } from "./customSteps";
import { destroyAll, generateDeletes } from "./deletes";
import type { ConfiguredProvider } from "./provider";
import { DefaultProviders, stepExplicitProvider } from "./providerSteps";
import { refreshAll } from "./refresh";
import { StepSlots } from "./slots";
import { EngineState, StepError } from "./state";
import { isProviderType, makeUrn, parseProviderReference } from "./urn";

/** One deployment's worth of step generation and execution. */
export class Engine {
  private readonly run: EngineState;
  private readonly ctx: EngineContext;
  private readonly completions = new Map<string, Promise<void>>();
  private readonly defaults: DefaultProviders;

  constructor(private readonly opts: EngineOptions) {
    if (opts.parallel !== undefined && (!Number.isInteger(opts.parallel) || opts.parallel < 1)) {
      throw new Error(`parallel must be a positive integer, got ${opts.parallel}`);
    }
    this.run = new EngineState(opts.olds, opts.preview, opts.diagnostics);
    const slots = opts.parallel !== undefined ? new StepSlots(opts.parallel) : undefined;
    this.ctx = {
      opts,
      state: this.run,
      inSlot: (work) => (slots ? slots.run(work) : work()),
      providerOf: (ref) => this.providerOf(ref),
    };
    this.defaults = new DefaultProviders(this.ctx);
  }

  /** Steps in the order they were applied. */
  get steps() {
    return this.run.steps;
  }

  /** True once any step failed: no deletions are generated afterwards. */
  get sawError(): boolean {
    return this.run.sawError;
  }

  set sawError(value: boolean) {
    this.run.sawError = value;
  }

  /** The new resource states (and the old ones this run kept), in dependency order. */
  snapshot(): ResourceState[] {
    return this.run.snapshot();
  }

  /** The new state of `urn` in this run, if it was registered (for `pulumi:pulumi:getResource`). */
  lookup(urn: string): ResourceState | undefined {
    return this.run.lookup(urn);
  }

  /** Stack outputs registered in this run (or carried in the old state). */
  stackOutputs(): PropertyMap {
    return this.snapshot().find((s) => s.type === ROOT_STACK_TYPE)?.outputs ?? {};
  }

  /** The configured provider of a provider reference (a resource's `provider`). */
  private providerOf(ref: string | undefined): Promise<ConfiguredProvider> {
    if (!ref) return Promise.reject(new Error("the resource has no provider reference"));
    return this.opts.providers.get(ref, this.run.current(parseProviderReference(ref).urn));
  }

  /**
   * `step_generator.go: generateSteps` + `deployment_executor.go` ordering: a registration waits for the steps
   * of everything it depends on, then yields the resource's new state.
   */
  async registerResource(goal: Goal): Promise<ResourceState> {
    const urn = makeUrn(this.opts.stack, this.opts.project, goal.parent, goal.type, goal.name);
    if (this.completions.has(urn)) {
      // step_executor.go: executeStep — "resource '…' registered twice".
      this.run.fail(urn, `resource '${urn}' registered twice`);
    }
    let finish = (): void => {};
    this.completions.set(urn, new Promise<void>((resolve) => (finish = resolve)));
    try {
      const prerequisites = new Set([
        ...goal.dependencies,
        ...Object.values(goal.propertyDependencies).flat(),
      ]);
      if (goal.parent) prerequisites.add(goal.parent);
      if (goal.provider) prerequisites.add(parseProviderReference(goal.provider).urn);
      await Promise.all([...prerequisites].map((u) => this.completions.get(u)));
      if (isProviderType(goal.type)) return await stepExplicitProvider(this.ctx, urn, goal);
      const old = this.run.oldByUrn.get(urn);
      if (!goal.custom) return this.stepComponent(urn, goal, old);
      const providerRef = goal.provider || (await this.defaults.referenceFor(goal.type, goal.version));
      return await stepCustom(this.ctx, urn, goal, providerRef, old);
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

  /**
   * `step_generator.go: diff` with no provider — a component is created, or "same" when its inputs are
   * deep-equal, else updated; its outputs come from RegisterResourceOutputs.
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
    this.run.record(state);
    this.run.step(!old ? "create" : deepEquals(old.inputs, goal.properties) ? "same" : "update", state);
    return state;
  }

  /** `source_eval.go: resmon.RegisterResourceOutputs` — replaces a resource's outputs. */
  registerOutputs(urn: string, outputs: PropertyMap): void {
    const state = this.run.lookup(urn);
    if (!state) throw new Error(`cannot register outputs for unknown resource ${urn}`);
    state.outputs = outputs;
  }

  /**
   * `step.go: ReadStep.Apply` + `provider_plugin.go: Read` — `CustomResource.get`: reads an existing resource
   * by ID into the state as external (not managed by Pulumi).
   */
  async readResource(goal: Goal & { id: string }): Promise<ResourceState> {
    const urn = makeUrn(this.opts.stack, this.opts.project, goal.parent, goal.type, goal.name);
    const providerRef = goal.provider || (await this.defaults.referenceFor(goal.type, goal.version));
    const { host, protocol } = await this.providerOf(providerRef);
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
    let res: Awaited<ReturnType<typeof host.read>>;
    try {
      res = await host.read({
        urn,
        id: goal.id,
        properties: marshalProperties(goal.properties, wire),
        inputs: {},
      });
    } catch (err) {
      this.run.fail(urn, `reading ${urn} failed: ${(err as Error).message}`, this.run.step("read", state));
    }
    if (!res.id) this.run.fail(urn, `resource '${goal.id}' does not exist`, this.run.step("read", state));
    state.id = res.id;
    state.outputs = protocol.acceptSecrets ? res.properties : keepSecrecy(res.properties, goal.properties);
    this.run.record(state);
    this.run.step("read", state);
    return state;
  }

  /**
   * `source_eval.go: resmon.Invoke` for a provider's function: the package's default provider (registered
   * like a resource's) or the given one answers; its check failures are returned, not thrown.
   */
  async invoke(args: {
    tok: string;
    args: PropertyMap;
    provider: string;
    version?: string;
  }): Promise<{ result: PropertyMap; failures: CheckFailure[] }> {
    const ref = args.provider || (await this.defaults.referenceFor(args.tok, args.version));
    const { host, protocol } = await this.providerOf(ref);
    return host.invoke({
      tok: args.tok,
      args: marshalProperties(args.args, { keepSecrets: protocol.acceptSecrets, keepUnknowns: false }),
      preview: this.opts.preview,
    });
  }

  /** See `deletes.ts: generateDeletes`. */
  generateDeletes(): Promise<void> {
    return generateDeletes(this.ctx);
  }

  /** See `deletes.ts: destroyAll`. */
  destroyAll(): Promise<void> {
    return destroyAll(this.ctx);
  }

  /** See `refresh.ts: refreshAll`. */
  refreshAll(): Promise<void> {
    return refreshAll(this.ctx);
  }
}

export { StepError };
