import type * as pulumi from "@pulumi/pulumi";
import { GamehostError } from "../api/errors";

/** Names the SDK gives a meaning of its own in a resource's properties: never registered from arguments. */
const RESERVED = new Set(["id", "urn", "__provider"]);

/**
 * The inputs a plugin resource registers, as Pulumi's code generator builds them: for a lookup (`get`,
 * or a resource rehydrated by URN) every property from the optional state; otherwise every input
 * property (given or not) and every computed output as unknown, so each of them becomes an Output.
 *
 * An argument that is none of these (a misspelt `readyTimeoutSecond` in JavaScript, or an object spread
 * into the arguments, which TypeScript lets through) is registered too, so the kind's check names it;
 * Pulumi's generated SDKs drop it, and the setting the user meant silently did not apply.
 */
export function registeredInputs(
  args: object | undefined,
  opts: pulumi.CustomResourceOptions,
  inputs: readonly string[],
  computed: readonly string[],
): pulumi.Inputs {
  const from = (args ?? {}) as Record<string, unknown>;
  const registered: pulumi.Inputs = {};
  const lookup = opts.id !== undefined || opts.urn !== undefined;
  for (const key of inputs) registered[key] = from[key];
  for (const key of computed) registered[key] = lookup ? from[key] : undefined;
  if (lookup) return registered;
  for (const [key, value] of Object.entries(from)) {
    if (!(key in registered) && !RESERVED.has(key) && value !== undefined) registered[key] = value;
  }
  return registered;
}

/** The kinds whose delete deletes game servers: nothing else deletes them. */
const KINDS_WITH_SERVERS = new Set(["Server", "Fleet"]);

/**
 * Refuses `deletedWith` on a Server or a Fleet, either face. The engine skips the delete of a resource whose
 * `deletedWith` target is deleted, trusting the target to take it along; nothing deletes a game server but its
 * own delete (a Fleet deletes only its own servers), so a destroy would leave the servers running in no
 * state (seen through the real CLI: "deleted (0.00s)" and the server still live). A lookup (`get`) deletes
 * nothing and is let through.
 */
export function refuseDeletedWith(
  kind: string,
  name: string,
  opts: pulumi.CustomResourceOptions | undefined,
): void {
  if (!KINDS_WITH_SERVERS.has(kind) || opts?.deletedWith === undefined) return;
  if (opts.id !== undefined || opts.urn !== undefined) return;
  throw new GamehostError(
    `${kind} "${name}": deletedWith would leave its servers running in no state: the engine skips the delete of a resource whose deletedWith target is deleted, ` +
      "and nothing deletes a game server but its own delete. Remove deletedWith; to keep the servers on purpose, use retainOnDelete " +
      "(then `gamehost adopt` or `gamehost sweep`, docs/reconcile.md).",
  );
}
