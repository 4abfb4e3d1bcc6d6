/**
 * The functions the dynamic provider host calls, built from a kind. The serialized shim of every dynamic
 * resource (`serverProvider` and the like, stored in stack state) `require`s a package subpath such as
 * `pulumi-gamehost/provider/server` at call time and calls these by name, so their names and shapes are a
 * compatibility promise to every stack already deployed: `configure`, `check`, `diff`, `create`, `read`,
 * `update`, `delete`, as the SDK's `dynamic.ResourceProvider` takes them.
 */
import { type CheckFailure, withoutGivenString } from "../kinds/checks";
import { SERIALIZED_PROVIDER_FIELD } from "../kinds/fields";
import type { ResourceKind } from "../kinds/kind";
import {
  askAboutReplacement,
  createAfterDeleteOf,
  deleteBeforeReplacement,
  isReplacementCheck,
  noteCheckedInputs,
  noteCreatingInputs,
} from "../kinds/replacementCheck";
import { endHostWithEngine } from "./endWithEngine";
import { dynamicContext } from "./settings";

/** What a shim calls (the SDK's `dynamic.ResourceProvider` shapes). */
export interface DynamicHostModule<I, O> {
  check(
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<{ inputs: I; failures: CheckFailure[] }>;
  diff(
    id: string,
    olds: O,
    news: I,
  ): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }>;
  create(inputs: I): Promise<{ id: string; outs: O }>;
  /** `id: ""` tells the host the resource is gone. */
  read(id: string, props: O): Promise<{ id: string; props?: O }>;
  update(id: string, olds: O, news: I): Promise<{ outs: O }>;
  delete(id: string, props: O): Promise<void>;
}

/**
 * The error the host reports for a failed check, diff, read or delete. For those four (not create and
 * update) the SDK's dynamic provider host prints `${error}: ${error.stack}` before it reports the error,
 * which put a stack trace under the stack of every failed `pulumi refresh` or `destroy`. The message is
 * the resource's error as before; the host's line is then `pulumi-gamehost: <message>`, one line.
 */
function reportedByHost(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const reported = new Error(error.message);
  Object.defineProperties(reported, {
    stack: { value: error.message },
    toString: { value: () => "pulumi-gamehost" },
  });
  return reported;
}

/** `run`, its failure reported as {@link reportedByHost} says. */
async function printedByHost<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw reportedByHost(error);
  }
}

/** The dynamic host's calls of one kind, each a thin translation to the kind's own. */
export function dynamicHostModule<I, O extends I>(kind: ResourceKind<I, O>): DynamicHostModule<I, O> {
  endHostWithEngine();
  return {
    check: (olds, news) =>
      printedByHost(async () => {
        // The dynamic provider host passes no random seed: a kind that needs one takes it from the OS. It gets
        // secrets as plain values, so no failure may quote a string the user gave: it may be a secret.
        const checked = await kind.check(olds, news, {});
        // A replacement no diff asked about (the host knows no URN: the same inputs checked with olds before).
        const replacing = isReplacementCheck(
          olds,
          news,
          undefined,
          checked.inputs as unknown as Record<string, unknown>,
        );
        if (replacing && checked.failures.length === 0)
          await kind.checkReplacement?.(dynamicContext(), checked.inputs);
        if (checked.failures.length === 0)
          noteCheckedInputs(olds, news, checked.inputs as unknown as Record<string, unknown>);
        return { ...checked, failures: checked.failures.map(withoutGivenString) };
      }),
    diff: (id, olds, news) =>
      printedByHost(async () => {
        const { changes, replaces, deleteBeforeReplace } = kind.diff(id, olds, news);
        if (replaces.length > 0) await askAboutReplacement(kind, dynamicContext(), news);
        // Recorded by the plugin's face (a resource moved here by an alias of its type): the host passes the
        // program's serialized provider, but the outputs hold none, so the host could neither refresh nor
        // delete it ("code must be a string, not undefined"). An update records one; a kind without an
        // update of its own is replaced, as the host's update would record no outputs but the provider.
        if (
          SERIALIZED_PROVIDER_FIELD in (news as object) &&
          !(SERIALIZED_PROVIDER_FIELD in (olds as object))
        ) {
          if (kind.updates) return { changes: true, replaces, deleteBeforeReplace };
          return { changes: true, replaces: [...replaces, SERIALIZED_PROVIDER_FIELD], deleteBeforeReplace };
        }
        return { changes, replaces, deleteBeforeReplace };
      }),
    async create(inputs) {
      noteCreatingInputs(inputs as unknown as Record<string, unknown>);
      const { id, outputs } = await kind.create(dynamicContext(), inputs);
      return { id, outs: outputs };
    },
    read: (id, props) =>
      printedByHost(async () => {
        // The host hands back the recorded outputs only; every output echoes its input, so they serve as both.
        const found = await kind.read(dynamicContext(), id, { inputs: props, outputs: props });
        return found ? { id: found.id, props: found.outputs } : { id: "" };
      }),
    async update(id, olds, news) {
      return { outs: await kind.update(dynamicContext(), id, olds, news) };
    },
    delete: (id, props) =>
      printedByHost(async () => {
        // The create this delete may come before (`pulumi up --replace` with deleteBeforeReplace).
        const replacement = createAfterDeleteOf(props as unknown as Record<string, unknown>);
        await deleteBeforeReplacement(kind, dynamicContext(), id, props, replacement as I | undefined);
      }),
  };
}
