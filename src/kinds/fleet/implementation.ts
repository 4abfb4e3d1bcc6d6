/**
 * The Fleet kind: servers per datacenter as one resource. Its provider orders the rollout (see
 * docs/fleets.md); every server it makes, waits for or deletes goes through the Server kind's own
 * operations, so a fleet's server is created, looked up after an ambiguous answer, waited for and
 * deleted exactly as a Server is.
 */
import { GamehostError } from "../../api/errors";
import { type Server, ServerScope } from "../../api/schemas";
import { containsUnknown } from "../checks";
import { scopedImportId } from "../importId";
import { defineKind, type OperationContext, PartialCreateError } from "../kind";
import { withRecordedSettings } from "../recordedSettings";
import { notThisService, readyDeadline, serverKind } from "../server/implementation";
import { destroyedAtText, ENVIRONMENT_PATH, missingForReady, type ServerOutputs } from "../server/spec";
import { askTogether } from "../serviceTargets";
import { expectListeners, FLEET_CONCURRENCY, type Limiter, limiter, settleAll } from "./concurrency";
import { BatchFailed, bySameReason, destroyProblems, failureOf, reasonOf } from "./failures";
import { checkBuildExists, datacenterIds, liveMembers } from "./lookups";
import { nextBatch, resolveBounds } from "./planner";
import { awaitReady, type FleetLister, sharedLister } from "./readiness";
import {
  checkFleet,
  FLEET_INPUT_FIELDS,
  FLEET_REPLACE_FIELDS,
  FLEET_UPDATE_FIELDS,
  FleetComputedOutputs,
  type FleetDatacenterStatus,
  type FleetInputs,
  FleetKnobs,
  type FleetOutputs,
  type FleetServer,
  FleetSpec,
  memberInputs,
} from "./spec";
import {
  fleetConverged,
  fleetOfServers,
  memberOf,
  planned,
  reconciled,
  refreshed,
  templateChanged,
  withCounts,
} from "./status";

/**
 * Brings the fleet to its declared spec, batch by batch, and returns what exists. On a failure the
 * servers that exist are recorded (a partial create or update) and the next `up` continues from there.
 */
async function converge(
  ctx: OperationContext,
  id: string,
  fleet: FleetInputs,
  generation: number,
  recorded: Record<string, FleetDatacenterStatus>,
): Promise<FleetOutputs> {
  const failures: string[] = [];
  let status = recorded;
  const result = (): FleetOutputs => ({
    ...fleet,
    generation,
    status: Object.fromEntries(Object.entries(status).map(([k, e]) => [k, withCounts(e)])),
  });
  const fail = (message: string): never => {
    throw new PartialCreateError(message, id, { ...result() });
  };
  expectListeners(ctx);
  const limit = limiter(FLEET_CONCURRENCY);
  const lister = sharedLister(() => liveMembers(ctx, fleet));
  const run = (key: string, count: number) =>
    runDatacenter(ctx, fleet, generation, status, key, count, limit, lister);
  // The two lookups go out together (one round trip, not two). Before anything changes: a datacenter that
  // is not the cluster's (a misspelt slug) fails the run as it is, with nothing made or deleted, not as a
  // stopped fleet to continue.
  // A rollout (recorded servers of another generation) also asks for the template's build: its batches delete
  // before they create, so a build the service refuses would cost ready servers. So does a new fleet, whose
  // every create the service would refuse, each naming the Server's `runtime.build`, not the template's.
  const rollsOut = Object.values(recorded).some((dc) => dc.servers.some((s) => s.generation !== generation));
  const isNew = Object.keys(recorded).length === 0;
  const [looked, listed, built] = await Promise.allSettled([
    datacenterIds(ctx, fleet),
    liveMembers(ctx, fleet),
    rollsOut || isNew ? checkBuildExists(ctx, fleet) : Promise.resolve(),
  ]);
  if (looked.status === "rejected") throw looked.reason;
  if (built.status === "rejected") throw built.reason;
  const ids = looked.value;
  try {
    if (listed.status === "rejected") throw listed.reason;
    status = reconciled(status, listed.value, fleet, generation);
    // Entries by declared key; a renamed key (slug ↔ id) keeps its datacenter's servers.
    const next: Record<string, FleetDatacenterStatus> = {};
    const leftover = { ...status };
    for (const [key, dc] of Object.entries(ids)) {
      const had = Object.keys(leftover).find((k) => leftover[k]?.datacenter === dc);
      const entry = had !== undefined ? leftover[had] : undefined;
      if (had !== undefined) delete leftover[had];
      next[key] = entry ?? { datacenter: dc, readyCount: 0, nextSlot: 0, servers: [] };
    }
    status = { ...next, ...leftover };
    const removed = Object.keys(leftover);
    const rolling = Object.keys(next).filter((k) =>
      next[k]?.servers.some((s) => s.generation !== generation),
    );
    const plain = Object.keys(next).filter((k) => !rolling.includes(k));
    // Datacenters with nothing to roll (creates, scaling, heals, removals) run together, each to its end even
    // when another fails (the stack must record what they made, and the message name every failure); rollouts
    // then one datacenter at a time, none after a failure.
    const together = await Promise.allSettled([
      ...plain.map((k) => run(k, fleet.datacenters[k] ?? 0)),
      ...removed.map((k) => run(k, 0)),
    ]);
    for (const outcome of together) {
      if (outcome.status === "rejected") failures.push(failureOf(outcome.reason));
    }
    if (failures.length === 0) for (const key of rolling) await run(key, fleet.datacenters[key] ?? 0);
    for (const key of removed) if (status[key]?.servers.length === 0) delete status[key];
  } catch (error) {
    if (error instanceof PartialCreateError) throw error;
    failures.push(failureOf(error));
  }
  if (failures.length > 0) {
    fail(
      `The fleet stopped: ${failures.join(" ")} What exists is recorded in the stack; run \`pulumi up\` again to continue from there.`,
    );
  }
  return result();
}

/** One datacenter, batch by batch, until it converges; `status[key]` always holds what exists. */
async function runDatacenter(
  ctx: OperationContext,
  fleet: FleetInputs,
  generation: number,
  status: Record<string, FleetDatacenterStatus>,
  key: string,
  count: number,
  limit: Limiter,
  lister: FleetLister,
): Promise<void> {
  const entry = () => status[key] as FleetDatacenterStatus;
  const bounds = resolveBounds(fleet.rollout, count);
  const deleteOutputs = {
    gameId: fleet.gameId,
    environmentId: fleet.environmentId,
    ...(fleet.destroyKillTimeout !== undefined ? { destroyKillTimeout: fleet.destroyKillTimeout } : {}),
  } as ServerOutputs;
  for (;;) {
    ctx.signal?.throwIfAborted();
    const servers = entry().servers;
    const rolling = servers.some((s) => s.generation !== generation);
    // Readiness is what the bounds count, so a rollout always waits for it.
    const waitForReady = fleet.waitForReady !== false || rolling;
    const view = servers.map((s) => (waitForReady ? planned(s) : { ...planned(s), ready: true }));
    const batch = nextBatch(view, { count, generation, ...bounds });
    if (batch.delete.length === 0 && batch.create === 0) {
      const waiting = servers.filter((s) => s.state !== "ready" && s.generation === generation);
      if (!waitForReady || waiting.length === 0) return;
      await waitForServers(ctx, fleet, key, status, waiting, lister);
      continue;
    }
    const errors: string[] = [];
    const deleted = await settleAll(batch.delete, limit, (serverId) =>
      serverKind.delete(ctx, serverId, deleteOutputs),
    );
    deleted.forEach((r, i) => {
      if (r.status === "fulfilled") {
        const gone = batch.delete[i];
        entry().servers = entry().servers.filter((s) => s.id !== gone);
      } else errors.push(`Deleting server ${batch.delete[i]} failed: ${reasonOf(r.reason)}`);
    });
    // Creates only after every delete of the batch: the live bound holds at every instant.
    if (errors.length === 0 && batch.create > 0) {
      const slots = Array.from({ length: batch.create }, (_, i) => entry().nextSlot + i);
      entry().nextSlot += batch.create;
      // One POST each; their readiness is awaited together, by the fleet's list, on the next pass.
      const made = await settleAll(slots, limit, async (slot) => {
        const inputs = { ...memberInputs(fleet, entry().datacenter, slot), waitForReady: false };
        return (await serverKind.create(ctx, inputs)).outputs;
      });
      const failed: Array<[label: string, reason: string]> = [];
      made.forEach((r, i) => {
        const slot = slots[i] as number;
        if (r.status === "fulfilled") entry().servers.push(memberOf(r.value, slot, generation));
        else {
          const failure = r.reason;
          // The server exists (not ready in time, or its wait was cut short): recorded, waited for next time.
          if (failure instanceof PartialCreateError) {
            const outputs = failure.properties as ServerOutputs;
            if (outputs.destroyedAt === undefined) entry().servers.push(memberOf(outputs, slot, generation));
          }
          failed.push([String(slot), reasonOf(failure)]);
        }
      });
      // Named by their slots, the numbers the fleet's status lists: "Servers 2, 3" read as ids no server has.
      errors.push(
        ...bySameReason(failed).map((line) => `creating ${/^\d+:/.test(line) ? "slot" : "slots"} ${line}`),
      );
    }
    if (errors.length > 0) throw new BatchFailed(`In datacenter ${key}: ${errors.join(" ")}`);
  }
}

/** Whether a listed server is ready: placed, with every port addressed (the Server's own rule). */
const isReadyServer = (server: Server) => missingForReady(server).length === 0;

/** Waits for servers of the current generation that are not ready yet, through the fleet's shared list. */
async function waitForServers(
  ctx: OperationContext,
  fleet: FleetInputs,
  key: string,
  status: Record<string, FleetDatacenterStatus>,
  waiting: readonly FleetServer[],
  lister: FleetLister,
): Promise<void> {
  const entry = () => status[key] as FleetDatacenterStatus;
  const deadline = readyDeadline(ctx, fleet.readyTimeoutSeconds);
  let outcomes: Awaited<ReturnType<typeof awaitReady>>;
  try {
    outcomes = await awaitReady(
      waiting.map((m) => m.id),
      lister,
      isReadyServer,
      deadline.at,
      ctx.signal,
    );
  } catch (error) {
    // The servers exist: they stay recorded as not ready, and the next `up` waits for them again.
    throw new BatchFailed(
      `In datacenter ${key}: checking whether ${waiting.length} new server(s) are ready failed: ${reasonOf(error)}`,
    );
  }
  const errors: string[] = [];
  for (const member of waiting) {
    const { server, outcome } = outcomes.get(member.id) ?? { outcome: "timeout" as const };
    const replace = (next: FleetServer | undefined) => {
      entry().servers = entry().servers.flatMap((s) => (s.id !== member.id ? [s] : next ? [next] : []));
    };
    if (outcome === "ready" && server) replace(refreshed(member, server, fleet));
    else if (outcome === "stopped") {
      replace(undefined);
      // A fleet lists live servers only: one that crashed or was deleted is simply absent from the list.
      const when = server?.destroyed_at !== undefined ? ` (${destroyedAtText(server.destroyed_at)})` : "";
      errors.push(
        `Server ${member.id} stopped before it was ready${when}: it crashed or exited, was deleted out of band, or the service lost it. The fleet drops it; if the template's servers cannot start, fix the template first.`,
      );
    } else {
      if (server) replace(refreshed(member, server, fleet));
      const missing = server ? missingForReady(server).join(", ") : "its placement";
      errors.push(
        `Server ${member.id} was created but was not ready in time (still missing ${missing}; raise ${deadline.raise} to wait longer).`,
      );
    }
  }
  if (errors.length > 0) throw new BatchFailed(`In datacenter ${key}: ${errors.join(" ")}`);
}

const IMPORT_ID_RULE =
  "must be <gameId>/<environmentId>/<fleetKey> (the fleet's key is the value of the tag `pulumi-gamehost/fleet` on its servers), e.g. `pulumi import gamehost:index:Fleet arena <gameId>/<environmentId>/<fleetKey>`";

function parseFleetId(id: string): { gameId: string; environmentId: string; fleetKey: string } {
  const [gameId, environmentId, fleetKey] = scopedImportId(
    id,
    "id of a Fleet (for `pulumi import` or `Fleet.get`)",
    IMPORT_ID_RULE,
  );
  return { gameId, environmentId, fleetKey };
}

/** The Fleet kind. */
export const fleetKind = defineKind<FleetInputs, FleetOutputs>({
  name: "Fleet",
  description:
    "Game servers per datacenter, declared once: `datacenters` says how many run where, `template` what they run. A count change creates or deletes only the difference; a template change rolls out datacenter by datacenter in batches within `rollout` (`maxSurge`, `maxUnavailable`, Agones' defaults). One resource whose provider manages its servers, each created, waited for and deleted as a Server is. A change of `gameId` or `environmentId` replaces the fleet.",
  hostSubpath: "fleet",
  updatedInPlace: FLEET_UPDATE_FIELDS,
  inputs: [ServerScope, FleetSpec, FleetKnobs],
  computed: FleetComputedOutputs,
  secretWhenUnrecorded: [["template", ...ENVIRONMENT_PATH]],

  check: checkFleet,

  diff(_id, olds, news) {
    const replaces: string[] = FLEET_REPLACE_FIELDS.filter(
      (k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]) || containsUnknown(news[k]),
    );
    const diffs = FLEET_INPUT_FIELDS.filter((k) =>
      k === "template"
        ? templateChanged(olds, news)
        : JSON.stringify(olds[k as keyof FleetInputs]) !== JSON.stringify(news[k as keyof FleetInputs]) ||
          containsUnknown(news[k as keyof FleetInputs]),
    );
    // What exists is not what was declared (a stopped rollout, a dead server seen by refresh): an update finishes it.
    const unfinished = !fleetConverged(olds);
    return {
      changes: diffs.length > 0 || unfinished,
      replaces,
      diffs,
      detailedDiff: Object.fromEntries(
        diffs.map((k) => [k, replaces.includes(k) ? ("update-replace" as const) : ("update" as const)]),
      ),
      deleteBeforeReplace: false,
    };
  },

  async checkReplacement(ctx, news) {
    // A replaced fleet goes to another game environment: its datacenters and build must be that one's.
    if (containsUnknown(news.gameId) || containsUnknown(news.environmentId)) return;
    await askTogether([
      containsUnknown(news.datacenters) ? undefined : datacenterIds(ctx, news),
      containsUnknown(news.template) ? undefined : checkBuildExists(ctx, news),
    ]);
  },

  async create(ctx, inputs) {
    const id = `${inputs.gameId}/${inputs.environmentId}/${inputs.fleetKey}`;
    const outputs = await converge(ctx, id, inputs, 1, {});
    return { id, outputs };
  },

  async update(ctx, id, olds, news) {
    const generation = (olds.generation ?? 1) + (templateChanged(olds, news) ? 1 : 0);
    return converge(ctx, id, news, generation, olds.status ?? {});
  },

  async read(ctx, id, recorded) {
    if (recorded?.outputs.status !== undefined && recorded.outputs.fleetKey !== undefined) {
      const fleet = recorded.outputs;
      const live = await liveMembers(ctx, fleet).catch((error: unknown) => {
        throw notThisService(ctx, error, `The servers of Fleet ${id} were`, fleet);
      });
      const status = reconciled(fleet.status, live, fleet, fleet.generation);
      return { id, outputs: { ...fleet, status }, inputs: recorded.inputs };
    }
    const where = parseFleetId(id);
    const live = await liveMembers(ctx, where);
    if (live.length === 0) return undefined;
    const found = fleetOfServers(where, live);
    return { id, ...found };
  },

  async delete(ctx, fleetId, outputs) {
    expectListeners(ctx);
    const recorded = [
      ...new Set(Object.values(outputs.status ?? {}).flatMap((e) => e.servers.map((s) => s.id))),
    ];
    const deleteOutputs = {
      gameId: outputs.gameId,
      environmentId: outputs.environmentId,
      ...(outputs.destroyKillTimeout !== undefined ? { destroyKillTimeout: outputs.destroyKillTimeout } : {}),
    } as ServerOutputs;
    const limit = limiter(FLEET_CONCURRENCY);
    const outcomes: (readonly [string, PromiseSettledResult<unknown>])[] = [];
    const deleteAll = async (ids: readonly string[]) => {
      const results = await settleAll(ids, limit, (serverId) =>
        serverKind.delete(ctx, serverId, deleteOutputs),
      );
      outcomes.push(...results.map((result, i) => [String(ids[i]), result] as const));
    };
    // The recorded servers go at once; the list of the fleet's live servers runs beside their deletes and
    // adds those the state missed (an interrupted run): nothing the fleet made outlives it.
    const missed = async (): Promise<string[]> => {
      if (!outputs.fleetKey) return [];
      const known = new Set(recorded);
      const live = await liveMembers(ctx, outputs).catch((error: unknown) => {
        throw notThisService(ctx, error, `The servers of Fleet ${fleetId} were`, outputs);
      });
      return live.map((s) => s.id).filter((id) => !known.has(id));
    };
    const [, listFailure] = await Promise.all([
      deleteAll(recorded),
      missed().then(
        (ids) => deleteAll(ids).then(() => undefined),
        (error: unknown) => reasonOf(withRecordedSettings(ctx, error)),
      ),
    ]);
    const failed = outcomes.flatMap(([serverId, r]) =>
      r.status === "rejected" ? [[serverId, reasonOf(r.reason)] as const] : [],
    );
    const problems = destroyProblems(failed, outcomes.length, listFailure);
    if (problems.length > 0) {
      throw new GamehostError(
        `${problems.join(" ")} The fleet stays in the stack; run \`pulumi destroy\` again.`,
      );
    }
  },
});
