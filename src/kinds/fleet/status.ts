/**
 * A fleet's recorded status and the servers it stands for: members as the service reports them, what the
 * planner sees of each, the status brought up to date with the live servers, and a fleet read back from its
 * servers (import, `get`). Pure: the lookups that feed it are in lookups.ts.
 */
import type { Server } from "../../api/schemas";
import {
  changedSpecFields,
  outputsAreReady,
  type ServerOutputs,
  serverOutputs,
  specOfServer,
} from "../server/spec";
import { FLEET_SLOT_TAG } from "../server/tags";
import { converged, type PlannedServer } from "./planner";
import {
  type FleetDatacenterStatus,
  type FleetInputs,
  type FleetOutputs,
  type FleetServer,
  memberInputs,
  userTags,
} from "./spec";

export function memberOf(outputs: ServerOutputs, slot: number, generation: number): FleetServer {
  const ready = outputsAreReady(outputs);
  return {
    id: outputs.serverId,
    endpoints: outputs.endpoints ?? {},
    build: outputs.runtime.build,
    state: ready ? "ready" : "starting",
    slot,
    generation,
    createdAt: outputs.createdAt,
  };
}

/** A member as the service now reports it. */
export function refreshed(member: FleetServer, server: Server, fleet: FleetInputs): FleetServer {
  const outputs = serverOutputs(memberInputs(fleet, server.datacenter, member.slot), server);
  return { ...memberOf(outputs, member.slot, member.generation) };
}

export const planned = (s: FleetServer): PlannedServer => ({
  id: s.id,
  generation: s.generation,
  ready: s.state === "ready",
  createdAt: s.createdAt,
  slot: s.slot,
});

export function withCounts(entry: FleetDatacenterStatus): FleetDatacenterStatus {
  const servers = [...entry.servers].sort((a, b) => a.createdAt - b.createdAt || a.slot - b.slot);
  return { ...entry, servers, readyCount: servers.filter((s) => s.state === "ready").length };
}

/** Whether a live server has the fleet's template in its datacenter (its spec, reserved tags aside). */
function matchesTemplate(server: Server, fleet: FleetInputs): boolean {
  const live = specOfServer(server, fleet.gameId);
  live.tags = userTags(live.tags ?? {});
  const wanted = memberInputs(fleet, server.datacenter, 0);
  return changedSpecFields(live, { ...wanted, tags: userTags(wanted.tags) }).length === 0;
}

/** Whether the template changed (canonically: the service's defaults filled in). */
export function templateChanged(olds: FleetInputs, news: FleetInputs): boolean {
  const someDatacenter = "00000000-0000-4000-8000-000000000000";
  const a = memberInputs({ ...olds, fleetKey: news.fleetKey }, someDatacenter, 0);
  const b = memberInputs(news, someDatacenter, 0);
  return changedSpecFields(a, b).length > 0;
}

/**
 * The recorded status brought up to date with the live servers: dead ones dropped (the next `up` replaces
 * exactly those), the rest as the service reports them (one running the template counts as of `generation`,
 * whatever generation made it), and servers carrying this fleet's key but missing
 * from the state (made by a run that was interrupted before it could record them) taken in, so nothing
 * the fleet made is orphaned. Only this fleet puts its random key on a server, so nothing else is taken.
 */
export function reconciled(
  status: Record<string, FleetDatacenterStatus>,
  live: readonly Server[],
  fleet: FleetInputs,
  generation: number,
): Record<string, FleetDatacenterStatus> {
  const byId = new Map(live.map((s) => [s.id, s]));
  const known = new Set<string>();
  const out: Record<string, FleetDatacenterStatus> = {};
  for (const [key, entry] of Object.entries(status)) {
    const servers: FleetServer[] = [];
    for (const member of entry.servers) {
      const server = byId.get(member.id);
      known.add(member.id);
      if (!server) continue;
      // A server of an earlier generation that runs this template (a change reverted before its rollout
      // ended) is current: rolled, it would be replaced by a server of the same spec.
      const current = member.generation !== generation && matchesTemplate(server, fleet);
      servers.push(refreshed(current ? { ...member, generation } : member, server, fleet));
    }
    out[key] = { ...entry, servers };
  }
  for (const server of live) {
    if (known.has(server.id)) continue;
    const key =
      Object.keys(out).find((k) => out[k]?.datacenter === server.datacenter) ??
      Object.keys(fleet.datacenters).find((k) => k === server.datacenter) ??
      server.datacenter;
    const slot = Number.parseInt(server.tags[FLEET_SLOT_TAG] ?? "", 10);
    out[key] ??= { datacenter: server.datacenter, readyCount: 0, nextSlot: 0, servers: [] };
    const entry = out[key];
    const member: FleetServer = {
      id: server.id,
      endpoints: {},
      build: server.runtime.build,
      state: "starting",
      slot: Number.isInteger(slot) ? slot : entry.nextSlot,
      // A server whose spec is not the template's (an older template) is rolled like any outdated one.
      generation: matchesTemplate(server, fleet) ? generation : 0,
      createdAt: server.created_at,
    };
    entry.servers.push(refreshed(member, server, fleet));
    entry.nextSlot = Math.max(entry.nextSlot, member.slot + 1);
  }
  return Object.fromEntries(Object.entries(out).map(([k, e]) => [k, withCounts(e)]));
}

/** Whether recorded outputs show the declared fleet: every datacenter at its count, current and (if waited for) ready. */
export function fleetConverged(outputs: FleetOutputs): boolean {
  const status = outputs.status ?? {};
  const requireReady = outputs.waitForReady !== false;
  for (const [key, count] of Object.entries(outputs.datacenters ?? {})) {
    const servers = (status[key]?.servers ?? []).map((s) =>
      requireReady ? planned(s) : { ...planned(s), ready: true },
    );
    if (!converged(servers, count, outputs.generation)) return false;
  }
  return Object.entries(status).every(
    ([key, entry]) => key in (outputs.datacenters ?? {}) || entry.servers.length === 0,
  );
}

/** A fleet as its live servers show it (import, `get`): the newest server's spec is the template. */
export function fleetOfServers(
  where: { gameId: string; environmentId: string; fleetKey: string },
  live: readonly Server[],
): { inputs: FleetInputs; outputs: FleetOutputs } {
  const newest = [...live].sort((a, b) => b.created_at - a.created_at)[0] as Server;
  const { gameId: _g, environmentId: _e, datacenter: _d, ...spec } = specOfServer(newest, where.gameId);
  const template = { ...spec, tags: userTags(spec.tags ?? {}) } as FleetInputs["template"];
  const datacenters: Record<string, number> = {};
  for (const server of live) datacenters[server.datacenter] = (datacenters[server.datacenter] ?? 0) + 1;
  const inputs: FleetInputs = { ...where, template, datacenters };
  const status = reconciled({}, live, inputs, 1);
  return { inputs, outputs: { ...inputs, generation: 1, status } };
}
