/**
 * What every resource kind implements once, for both faces: the dynamic-provider shim (serialized into
 * state, run by the SDK's dynamic provider host) and the `pulumi-resource-gamehost` plugin (gRPC).
 * A face turns its protocol into these calls; nothing here knows either protocol.
 */
import type { z } from "zod";
import { snakeToCamel } from "../api/case";
import type { GamehostClient } from "../api/client";
import { GamehostError } from "../api/errors";
import { knownKeysAt } from "../api/validate";
import { type CheckFailure, namingKnownInputs } from "./checks";
import { noteResourceChecked, withRecordedSettingsOf } from "./recordedSettings";

/** What an operation that may call the service gets from its face. */
export interface OperationContext {
  /** The configured client; building it fails with a message naming the missing setting. */
  client(): GamehostClient;
  /**
   * Epoch ms by which the operation must end: the engine's `customTimeouts` (plugin face only).
   * Waits end there with a clear error instead of running past it.
   */
  deadline?: number;
  /** Aborted when the engine cancels the operation. */
  signal?: AbortSignal;
  /**
   * The face can neither cancel an operation nor time it out (the dynamic face: no Cancel, no
   * customTimeouts), so a download the kind reads itself must end within the client's call deadline
   * (`gamehost:callTimeoutMs`), body included.
   */
  boundDownloads?: boolean;
}

/** What a face knows of a check beyond the inputs. */
export interface CheckContext {
  /**
   * The engine's `CheckRequest.randomSeed` (plugin face): random per deployment, fixed by an update plan.
   * Absent (the dynamic face), a kind that needs randomness takes it from the OS.
   */
  randomSeed?: Uint8Array;
  /** The resource's URN, where the face knows it. */
  urn?: string;
}

/** Checked inputs, or why they are invalid. */
export interface CheckResult<I> {
  inputs: I;
  failures: CheckFailure[];
}

/** How one property differs, in the engine's terms (`pulumirpc.PropertyDiff.Kind`). */
export type PropertyChange =
  | "add"
  | "delete"
  | "update"
  | "add-replace"
  | "delete-replace"
  | "update-replace";

/** What changed between the recorded outputs and the new inputs. */
export interface DiffResult {
  /** Whether anything changed (a partial create awaiting readiness counts as a change). */
  changes: boolean;
  /** Top-level properties whose change replaces the resource. */
  replaces: string[];
  /** Top-level properties that changed. */
  diffs: string[];
  /** Per property path (`tags.role`, `network.ports.web`), how it changed. */
  detailedDiff: Record<string, PropertyChange>;
  deleteBeforeReplace: boolean;
}

/** A resource read back from the service. */
export interface ReadResult<I, O> {
  /** The resource's id (for an import: its normal id, whatever form the import id took). */
  id: string;
  outputs: O;
  /** The inputs a program declaring this resource as it is would have. */
  inputs: I;
}

/**
 * A zod object schema contributing properties. Wire schemas have snake_case keys; the package's
 * properties are their camelCase form (which leaves camelCase keys as they are).
 */
export type PropertySource = z.ZodType;

/**
 * What a kind declares about itself, written once: every face (the dynamic class, its host module, the
 * plugin's registry and schema, the native class, the reference) is derived from it.
 */
export interface KindDeclaration {
  /** Type name: `gamehost:index:<name>` for the plugin, `pulumi-nodejs:dynamic/gamehost:<name>` dynamically. */
  readonly name: string;
  /**
   * The kind's description, in the package schema, the reference and both classes' documentation.
   * Markdown; say what changes replace the resource.
   */
  readonly description: string;
  /**
   * The package subpath (after `pulumi-gamehost/provider/`) the dynamic shim `require`s at call time:
   * stored in stack state, so it never changes once released.
   */
  readonly hostSubpath: string;
  /** Where the input properties come from, with their descriptions (every input is echoed as an output). */
  readonly inputs: readonly PropertySource[];
  /** Outputs the service or provider adds to the inputs, with their descriptions. */
  readonly computed: PropertySource;
  /** Output properties that are secrets (the plugin wraps them; both classes declare them). */
  readonly secretOutputs: readonly string[];
  /**
   * Output values that may hold their owner's secrets (a server's environment), as property paths: a read
   * with no recorded value there to say whether it was secret (`get`, `import`) keeps them secret.
   */
  readonly secretWhenUnrecorded: readonly (readonly string[])[];
}

/** One resource a kind's listing found: an id its `read` imports (a plugin's `List` answers with these). */
export interface ListedResource {
  /** The import id. */
  id: string;
  /** A name the service gives the resource, if any. */
  name?: string;
}

/**
 * How a kind lists the resources that exist on the service (served as the provider's `List`, which
 * `pulumi do <token> list` calls). `inputs` is the query's schema, with camelCase keys.
 */
export interface KindListing {
  /** The query: the package schema's `listInputs` come from it. */
  readonly inputs: PropertySource;
  /**
   * Up to `limit` resources (0: all) matching `query`, after the one `after` names (a previous page's
   * `next`). `next` is set when more may follow. A listing may exceed `limit` where a shorter page could
   * not be resumed (the Server listing keeps servers created in one millisecond on one page).
   */
  list(
    ctx: OperationContext,
    query: Record<string, unknown>,
    page: { limit: number; after?: string },
  ): Promise<{ items: ListedResource[]; next?: string }>;
}

/** One resource kind: its declaration, its rules and its lifecycle against the service. */
export interface ResourceKind<I, O extends I> extends KindDeclaration {
  /**
   * Validates and normalizes inputs. `olds` are empty for a new resource and for every replacement (the
   * engine checks a replacement as a new resource), so values chosen here for a new resource differ from
   * the replaced one's.
   */
  check(olds: Record<string, unknown>, news: Record<string, unknown>, ctx: CheckContext): CheckResult<I>;
  diff(id: string, olds: O, news: I): DiffResult;
  /**
   * Asked when {@link diff} replaces the resource, and by the check of a replacement the diff did not ask
   * for (`pulumi up --replace`, `replaceOnChanges`, `replacementTrigger`: see `replacementCheck.ts`), before
   * the engine acts (a preview asks too): fails, naming the input, where the service would refuse the
   * replacement's create. With `deleteBeforeReplace` the engine deletes the old resource before it creates
   * the new one, so a refused create cost the old one; asked here, nothing has changed yet. Values not known
   * yet (a preview's) are not asked about. Absent: the kind has nothing to ask.
   */
  checkReplacement?(ctx: OperationContext, news: I): Promise<void>;
  /**
   * Whether the resource `id` a `deleteBeforeReplace` delete is for is taken over by the replacement's
   * create (`news`) as it is, so the delete must leave it alone: a Server adopting the very server it
   * replaces (`pulumi up --replace` of a resource that keeps `adoptServerId`) found it destroyed by that
   * delete. Absent: never.
   */
  keptByReplacement?(id: string, news: I): boolean;
  /** The outputs known before anything is created: what a preview shows (at least the inputs). */
  preview(inputs: I): I | O;
  create(ctx: OperationContext, inputs: I): Promise<{ id: string; outputs: O }>;
  /**
   * Reads the resource. With `recorded` (refresh), `id` is its id; without it (import, `get` by id
   * alone), `id` is whatever the import id carries. A `get` with state passes that state as `recorded`,
   * which may then hold only some properties. `undefined`: it is gone.
   */
  read(
    ctx: OperationContext,
    id: string,
    recorded?: { inputs: I; outputs: O },
  ): Promise<ReadResult<I, O> | undefined>;
  update(ctx: OperationContext, id: string, olds: O, news: I): Promise<O>;
  delete(ctx: OperationContext, id: string, outputs: O): Promise<void>;
  /**
   * Whether the kind has an `update` of its own: without one every change replaces, the engine never calls
   * update, and the dynamic shim leaves it out (shims are stored in state, where every byte counts).
   */
  readonly updates: boolean;
  /**
   * The top-level inputs whose change the kind's `update` makes in place; a change of any other replaces.
   * Empty for a kind without an update. The dynamic face names them where `replaceOnChanges` cannot apply.
   */
  readonly updatedInPlace: readonly string[];
  /** How to list the kind's resources, if it can. */
  readonly listing?: KindListing;
}

/** What most kinds share, and {@link defineKind} fills in. */
type Defaulted =
  | "secretOutputs"
  | "secretWhenUnrecorded"
  | "preview"
  | "update"
  | "delete"
  | "updatedInPlace";

/** A kind as written: {@link ResourceKind} with the shared parts optional. */
export type KindDefinition<I, O extends I> = Omit<ResourceKind<I, O>, Defaulted | "updates"> &
  Partial<Pick<ResourceKind<I, O>, Defaulted>>;

/** The delete of a kind with nothing to remove. */
const noDelete = async (): Promise<void> => {};

/**
 * A kind from its definition, with the defaults most kinds share: no secret outputs; a preview that shows
 * the inputs (everything else is known once the service answers); an `update` that never runs because
 * every change replaces (kept total, so a face can call it safely); a `delete` with nothing to remove.
 */
export function defineKind<I, O extends I>(definition: KindDefinition<I, O>): ResourceKind<I, O> {
  let inputNames: string[] | undefined;
  return {
    secretOutputs: [],
    secretWhenUnrecorded: [],
    preview: (inputs) => inputs,
    update: async (_ctx, _id, olds, news) => ({ ...olds, ...news }),
    updatedInPlace: [],
    ...definition,
    // Reads and deletes of recorded resources, on both faces and inside other kinds (a fleet's servers), tell
    // a refused token's part in the state where they are defined (recordedSettings). A read without a
    // recorded state (`pulumi import`, `get`) uses the stack's config as it is now.
    read: (ctx, id, recorded) =>
      recorded === undefined
        ? definition.read(ctx, id, recorded)
        : withRecordedSettingsOf(ctx, () => definition.read(ctx, id, recorded)),
    delete: (ctx, id, outputs) =>
      withRecordedSettingsOf(ctx, () => (definition.delete ?? noDelete)(ctx, id, outputs)),
    check: (olds, news, ctx) => {
      noteResourceChecked();
      const result = definition.check(olds, news, ctx);
      if (result.failures.length === 0) return result;
      inputNames ??= inputPropertyNames(definition.inputs);
      return { ...result, failures: namingKnownInputs(result.failures, inputNames) };
    },
    updates: definition.update !== undefined,
  };
}

/** A kind's input properties as a program writes them (camelCase), from its sources. */
export function inputPropertyNames(sources: readonly PropertySource[]): string[] {
  return sources.flatMap((source) => (knownKeysAt(source, []) ?? []).map(snakeToCamel));
}

// biome-ignore lint/suspicious/noExplicitAny: kinds of different input and output types in one list
export type AnyResourceKind = ResourceKind<any, any>;

/**
 * A failure after the resource was created: the engine records it as partially created (with these
 * outputs) instead of losing it, and the next `up` continues with an update.
 */
export class PartialCreateError extends GamehostError {
  override name = "PartialCreateError";
  /**
   * What the engine prints of a partial create: only these reasons (it drops the error's own message), so
   * the one reason is the whole message, with the cause, the server id and the fix.
   */
  readonly reasons: string[];
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
  ) {
    super(message);
    this.reasons = [message];
  }
}
