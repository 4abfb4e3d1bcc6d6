/**
 * The fault campaign's fixture: the `fleet` program (N servers against the emulator), its stack config,
 * the emulator routes faults are aimed at, and the census that compares live servers with the checkpoint.
 */
import * as path from "node:path";
import type { ConfigEntry, Stack } from "../../harness/src";
import type { RequestLogEntry, RunningEmulator } from "../../src/emulator";
import { dist } from "../support/dist";
import { serverTarget } from "../support/emulator";

/** The fleet program directory (`gamehost-faults-fleet`, plain JS so runs start fast). */
export const FLEET_PROGRAM = path.join(__dirname, "programs", "fleet");
const PROJECT = "gamehost-faults-fleet";

/** Type token of the Server dynamic resource in the checkpoint. */
/** The two faces of the resources; the fleet program picks one with config `face`. */
export type Face = "dynamic" | "plugin";
/** The Server type token of each face. */
export const SERVER_TYPE: Record<Face, string> = {
  dynamic: "pulumi-nodejs:dynamic/gamehost:Server",
  plugin: "gamehost:index:Server",
};
/** The reserved tag the Server resource stamps on what it creates. */
const { IDEMPOTENCY_TAG } = dist.pkg();

const SERVERS = "/games/:game/environments/:env/servers";

/** The server routes faults are aimed at, as the emulator names them (method + route pattern). */
export const ROUTES = {
  create: { method: "POST", path: SERVERS },
  list: { method: "GET", path: SERVERS },
  get: { method: "GET", path: `${SERVERS}/:server` },
  delete: { method: "DELETE", path: `${SERVERS}/:server` },
} as const;

/** Short names of the routes, as the figures print them. */
export type RouteName = keyof typeof ROUTES;

/** How the figures name each route. */
export const ROUTE_LABELS: Record<RouteName, string> = {
  create: "POST create",
  list: "GET list",
  get: "GET server",
  delete: "DELETE server",
};

/** Stack config of the fleet: `count` servers tagged `campaign: caseTag`, plus the gamehost connection. */
export function fleetConfig(
  emulator: RunningEmulator,
  count: number,
  caseTag: string,
  face: Face,
): Record<string, ConfigEntry | string> {
  const target = serverTarget(emulator);
  return {
    "gamehost:baseUrl": emulator.url,
    "gamehost:token": { value: emulator.tokens.user, secret: true },
    [`${PROJECT}:count`]: { value: count },
    [`${PROJECT}:case`]: caseTag,
    [`${PROJECT}:face`]: face,
    [`${PROJECT}:gameId`]: target.gameId,
    [`${PROJECT}:environmentId`]: target.environmentId,
    [`${PROJECT}:datacenterId`]: target.datacenter,
    [`${PROJECT}:buildId`]: target.build,
  };
}

/** Config key of the fleet program (`gamehost-faults-fleet:<name>`). */
export function fleetKey(name: string): string {
  return `${PROJECT}:${name}`;
}

/** How the emulator's servers of one case compare with the stack's checkpoint. */
export interface Census {
  /** Live (not destroyed) servers of the case. */
  live: number;
  /** Server resources in the checkpoint (with an id). */
  recorded: number;
  /** Live servers the checkpoint does not know: nobody would ever delete them. */
  orphans: number;
  /** Live servers beyond the first for one resource key (idempotency key). */
  duplicates: number;
  /** Checkpoint entries whose server is not live (destroyed or unknown). */
  stale: number;
  /** Servers of the case the emulator ever created, destroyed ones included. */
  everCreated: number;
}

/** Counts live, recorded, orphaned and duplicated servers of the case tagged `caseTag`. */
export function census(emulator: RunningEmulator, stack: Stack, caseTag: string, face: Face): Census {
  const all = emulator.servers().filter((s) => s.tags.campaign === caseTag);
  const live = all.filter((s) => s.destroyed_at === undefined);
  const recorded = stack
    .resources()
    .filter((r) => r.type === SERVER_TYPE[face] && r.id !== "")
    .map((r) => r.id);
  const liveIds = new Set(live.map((s) => s.id));
  const perKey = new Map<string, number>();
  for (const s of live) {
    const key = s.tags[IDEMPOTENCY_TAG] ?? `untagged:${s.id}`;
    perKey.set(key, (perKey.get(key) ?? 0) + 1);
  }
  return {
    live: live.length,
    recorded: recorded.length,
    orphans: live.filter((s) => !recorded.includes(s.id)).length,
    duplicates: [...perKey.values()].reduce((n, c) => n + c - 1, 0),
    stale: recorded.filter((id) => !liveIds.has(id)).length,
    everCreated: all.length,
  };
}

/** Requests per server route (create, list, get, delete) in a request log. */
export function routeCounts(requests: readonly RequestLogEntry[]): Record<RouteName, number> {
  const counts: Record<RouteName, number> = { create: 0, list: 0, get: 0, delete: 0 };
  for (const r of requests) {
    for (const [name, route] of Object.entries(ROUTES) as [RouteName, (typeof ROUTES)[RouteName]][]) {
      if (r.route === `${route.method} ${route.path}`) counts[name]++;
    }
  }
  return counts;
}

/** Answers that were not a success: injected faults, timeouts (status 0 = dropped) and the like. */
export function failedAnswers(requests: readonly RequestLogEntry[]): number {
  return requests.filter((r) => r.status === 0 || r.status >= 400).length;
}
