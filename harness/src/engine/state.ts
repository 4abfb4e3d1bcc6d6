/**
 * One deployment's bookkeeping: the old resource states (the checkpoint), the new ones this run produced, the
 * deleted ones, and the steps in the order they were applied.
 */
import { type ResourceState, sortByDependencies } from "../checkpoint";
import type { Diagnostic, Step, StepOp } from "../types";

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

export class EngineState {
  /** Steps in the order they were applied. */
  readonly steps: Step[] = [];
  /** True once any step failed (`stepGenerator.sawError`): no deletions are generated afterwards. */
  sawError = false;
  readonly olds: ResourceState[];
  readonly oldByUrn = new Map<string, ResourceState>();
  readonly deleted = new Set<ResourceState>();
  private readonly news: ResourceState[] = [];
  private readonly newByUrn = new Map<string, ResourceState>();

  constructor(
    olds: readonly ResourceState[],
    private readonly preview: boolean,
    private readonly diagnostics: Diagnostic[],
  ) {
    this.olds = olds.map((s) => ({ ...s }));
    for (const s of this.olds) if (!s.delete) this.oldByUrn.set(s.urn, s);
  }

  /** Records a step for `state`. */
  step(op: StepOp, state: ResourceState, extra: Partial<Step> = {}): Step {
    const step: Step = {
      op,
      urn: state.urn,
      type: state.type,
      name: state.urn.split("::").slice(3).join("::"),
      custom: state.custom,
      preview: this.preview,
      ...(state.id ? { id: state.id } : {}),
      ...extra,
    };
    this.steps.push(step);
    return step;
  }

  /** Fails the resource's step: the run is now failed and the message is an engine diagnostic. */
  fail(urn: string, message: string, step?: Step): never {
    this.sawError = true;
    if (step) step.error = message;
    this.diagnostics.push({ severity: "error", message, urn, source: "engine" });
    throw new StepError(message, urn);
  }

  /** An engine warning about a resource. */
  warn(urn: string, message: string): void {
    this.diagnostics.push({ severity: "warning", message, urn, source: "engine" });
  }

  /** Adds (or replaces) the new state of a URN; the old state with that URN is thereby superseded. */
  record(state: ResourceState): void {
    const existing = this.newByUrn.get(state.urn);
    if (existing) this.news[this.news.indexOf(existing)] = state;
    else this.news.push(state);
    this.newByUrn.set(state.urn, state);
  }

  /** The new state of `urn` in this run, if it was registered. */
  lookup(urn: string): ResourceState | undefined {
    return this.newByUrn.get(urn);
  }

  /** The state of `urn`: this run's, else the checkpoint's. */
  current(urn: string): ResourceState | undefined {
    return this.newByUrn.get(urn) ?? this.oldByUrn.get(urn);
  }

  /** Whether this run registered `urn`. */
  registered(urn: string): boolean {
    return this.newByUrn.has(urn);
  }

  /**
   * `pkg/backend/snapshot.go: SnapshotManager.snap` — the resources produced by this run, then the old ones it
   * did not touch (a failed run keeps them) and pending deletions, in dependency order.
   */
  snapshot(): ResourceState[] {
    const kept = this.olds.filter((o) => !this.deleted.has(o) && (o.delete || !this.newByUrn.has(o.urn)));
    return sortByDependencies([...this.news, ...kept]);
  }
}
