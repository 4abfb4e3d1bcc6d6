/**
 * `gamehost adopt` and `gamehost sweep`: the live servers of a game's environment that a stack (or none
 * of several stacks) does not track. `adopt` writes them as a `pulumi import --file` file, so `pulumi
 * import --file` brings them under the stack; `sweep` lists those this package created (they carry its
 * reserved key tag) with their age, and deletes them only when told twice (`--delete --yes`).
 */
import type { Stack } from "@pulumi/pulumi/automation";
import type { GamehostClient } from "../api/client";
import { FLEET_TAG } from "../kinds/server/tags";
import { exportedState, findStrays, type Stray, trackedBy, trackedByStacks, trackedTogether } from "./drift";
import { FLEET_TYPES, nameOfUrn, SERVER_TYPES } from "./state";

/** One entry of a `pulumi import --file` file: the plugin's Server, or its Fleet (docs/fleets.md, import). */
export interface ImportEntry {
  type: typeof SERVER_TYPES.plugin | typeof FLEET_TYPES.plugin;
  name: string;
  id: string;
}

/** `base`, or `base-2`, `base-3`… if taken: resource names are unique in the file. */
function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/** A server's resource name from a tag value or the id: letters, digits, `-` and `_`. */
function serverNameOf(stray: Stray, nameTag: string): string {
  const fromId = `server-${stray.serverId.slice(0, 8)}`;
  const raw = stray.tags[nameTag] ?? fromId;
  return raw.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || fromId;
}

/**
 * The `pulumi import --file` document for `strays`. A server of a Fleet is not adopted alone: as a Server
 * it would have two owners (the fleet still counts it, scales it away, rolls it); its fleet is one entry.
 * Names are unique in the file and apart from `inState`, the names the stack's resources have.
 */
export function importFile(
  strays: readonly Stray[],
  nameTag: string,
  inState: Iterable<string> = [],
): { resources: ImportEntry[] } {
  // The stack's own names are taken too: `pulumi import` refuses a URN the state has (`already exists`),
  // as after `pulumi state delete` and an `up`, when the forgotten server and the new one share a name tag.
  const taken = new Set<string>(inState);
  const fleets = new Set<string>();
  const resources: ImportEntry[] = [];
  for (const s of strays) {
    const fleetKey = s.tags[FLEET_TAG];
    if (fleetKey === undefined) {
      resources.push({
        type: SERVER_TYPES.plugin,
        name: uniqueName(serverNameOf(s, nameTag), taken),
        id: `${s.gameId}/${s.environmentId}/${s.serverId}`,
      });
      continue;
    }
    const id = `${s.gameId}/${s.environmentId}/${fleetKey}`;
    if (fleets.has(id)) continue;
    fleets.add(id);
    resources.push({
      type: FLEET_TYPES.plugin,
      name: uniqueName(`fleet-${fleetKey.slice(0, 8)}`, taken),
      id,
    });
  }
  return { resources };
}

export interface Scope {
  gameId: string;
  environmentId: string;
  tags: Record<string, string>;
}

/** Live servers of `scope` the stacks do not track; with `madeHere`, only those this package created. */
export async function untracked(
  client: GamehostClient,
  stacks: readonly Stack[],
  scope: Scope,
  madeHere: boolean,
): Promise<Stray[]> {
  return (await untrackedWithNames(client, stacks, scope, madeHere)).strays;
}

/** {@link untracked}, and the resource names of the first stack's state (where `adopt` imports). */
export async function untrackedWithNames(
  client: GamehostClient,
  stacks: readonly Stack[],
  scope: Scope,
  madeHere: boolean,
): Promise<{ strays: Stray[]; names: string[] }> {
  const [first, ...rest] = stacks;
  const own = first ? await exportedState(first) : {};
  const tracked = trackedTogether(trackedBy(own), await trackedByStacks(rest));
  const strays = await findStrays(client, [scope], scope.tags, tracked, madeHere);
  return { strays, names: (own.resources ?? []).map((r) => nameOfUrn(r.urn)) };
}

/** Deletes `strays`; returns the ids deleted. */
export async function deleteStrays(client: GamehostClient, strays: readonly Stray[]): Promise<string[]> {
  const deleted: string[] = [];
  for (const s of strays) {
    await client.deleteServer(s.gameId, s.environmentId, s.serverId);
    deleted.push(s.serverId);
  }
  return deleted;
}
