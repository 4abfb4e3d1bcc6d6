/**
 * `gamehost adopt` and `gamehost sweep`: the live servers of a game's environment that a stack (or none
 * of several stacks) does not track. `adopt` writes them as a `pulumi import --file` file, so `pulumi
 * import --file` brings them under the stack; `sweep` lists those this package created (they carry its
 * reserved key tag) with their age, and deletes them only when told twice (`--delete --yes`).
 */
import type { Stack } from "@pulumi/pulumi/automation";
import type { GamehostClient } from "../api/client";
import { FLEET_TAG } from "../kinds/fleet/spec";
import { findStrays, type Stray, trackedByStacks } from "./drift";

/** The plugin's type token: `pulumi import` needs a provider that can import (the dynamic host cannot). */
export const IMPORT_TYPE = "gamehost:index:Server";
/** The plugin's Fleet: a fleet's servers are adopted whole, as the fleet (docs/fleets.md, import). */
export const FLEET_IMPORT_TYPE = "gamehost:index:Fleet";

/** One entry of a `pulumi import --file` file. */
export interface ImportEntry {
  type: typeof IMPORT_TYPE | typeof FLEET_IMPORT_TYPE;
  name: string;
  id: string;
}

/** A resource name from a tag value or the id: letters, digits, `-` and `_`, unique in the file. */
function nameOf(stray: Stray, nameTag: string, taken: Set<string>): string {
  const raw = stray.tags[nameTag] ?? `server-${stray.serverId.slice(0, 8)}`;
  const base =
    raw.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || `server-${stray.serverId.slice(0, 8)}`;
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/**
 * The `pulumi import --file` document for `strays`. A server of a Fleet is not adopted alone: as a Server
 * it would have two owners (the fleet still counts it, scales it away, rolls it); its fleet is one entry.
 */
export function importFile(strays: readonly Stray[], nameTag: string): { resources: ImportEntry[] } {
  const taken = new Set<string>();
  const fleets = new Set<string>();
  const resources: ImportEntry[] = [];
  for (const s of strays) {
    const fleetKey = s.tags[FLEET_TAG];
    if (fleetKey === undefined) {
      resources.push({
        type: IMPORT_TYPE,
        name: nameOf(s, nameTag, taken),
        id: `${s.gameId}/${s.environmentId}/${s.serverId}`,
      });
      continue;
    }
    const id = `${s.gameId}/${s.environmentId}/${fleetKey}`;
    if (fleets.has(id)) continue;
    fleets.add(id);
    let name = `fleet-${fleetKey.slice(0, 8)}`;
    for (let i = 2; taken.has(name); i++) name = `fleet-${fleetKey.slice(0, 8)}-${i}`;
    taken.add(name);
    resources.push({ type: FLEET_IMPORT_TYPE, name, id });
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
  const tracked = await trackedByStacks(stacks);
  return findStrays(client, [scope], scope.tags, tracked, madeHere);
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
