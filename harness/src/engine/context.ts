/** What the step modules share: the run's options, its state, its providers and its step slots. */
import type { ResourceState } from "../checkpoint";
import type { PropertyMap } from "../proto";
import type { Diagnostic } from "../types";
import type { CustomTimeouts } from "./options";
import type { ConfiguredProvider, ProviderSource } from "./provider";
import type { EngineState } from "./state";

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
  /** The provider version the resource asks for (names the default provider `default_<version>`). */
  version?: string;
  /** The `import` option: the id of an existing resource to adopt. */
  importId?: string;
  /** The `customTimeouts` option, in seconds. */
  customTimeouts?: CustomTimeouts;
}

/** Options of one {@link Engine} run. */
export interface EngineOptions {
  project: string;
  stack: string;
  /** A preview (`--dry-run`): no Create/Update/Delete reaches a provider that cannot preview. */
  preview: boolean;
  /** Resource states of the previous checkpoint, in checkpoint order. */
  olds: readonly ResourceState[];
  /** The providers of this run. */
  providers: ProviderSource;
  /** Sink for engine diagnostics. */
  diagnostics: Diagnostic[];
  /**
   * `pulumi up/destroy --parallel`: at most this many Create/Update/Delete provider calls at once, and
   * deletions of independent resources run concurrently (dependents first). Unset: creates and updates
   * are unbounded (the CLI's default) and deletions run one at a time.
   */
  parallel?: number;
  /** `pulumi up --replace <urn>`: URNs replaced whatever their diff says. */
  replaceTargets?: readonly string[];
}

/** The pieces every step module works with. */
export interface EngineContext {
  readonly opts: EngineOptions;
  readonly state: EngineState;
  /** Runs a Create/Update/Delete call in a step slot when `parallel` is set. */
  inSlot<T>(work: () => Promise<T>): Promise<T>;
  /** The configured provider of a resource's provider reference. */
  providerOf(ref: string | undefined): Promise<ConfiguredProvider>;
}
