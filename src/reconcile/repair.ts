/**
 * `gamehost repair`: resolves the creates a hard interruption (a second Ctrl-C, a killed CI job) left
 * pending in a stack's state. Each pending create of a Server recorded its idempotency key in its inputs,
 * and the server it made carries that key as a tag: the server found is recorded in the state, or the
 * pending create is dropped when the service has no live server with its key. After it, `pulumi up`
 * creates nothing twice and leaves nothing behind.
 *
 * Why a state edit and not `pulumi refresh --import-pending-creates`: with the pinned CLI (v3.274.1) that
 * flag turns the operation into a pending import which the refresh then drops, so the server is recorded
 * nowhere and the next `up` makes a second one (seen through the real CLI). The edit goes through the
 * Automation API (`stack export` / `stack import`, which check the state), then a targeted `refresh` has
 * the face's own `read` record the server as the provider sees it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import type { GamehostClient } from "../api/client";
import type { Server } from "../api/schemas";
import { FLEET_TAG, IDEMPOTENCY_TAG } from "../kinds/server/tags";
import { CommandError } from "./errors";
import {
  Deployment,
  isExportType,
  isFleetType,
  isServerType,
  type PendingOperation,
  plainString,
  type StateResource,
  serverScope,
} from "./state";
import { cliMessage, exportEncrypted, isLocked, lockError } from "./workspace";

/**
 * What repair did with one pending operation (`serverId`: the id recorded, a Fleet's `<game>/<env>/<fleetKey>`).
 * `refreshed`: a Fleet's interrupted update, read from the service.
 */
export type RepairOutcome =
  | { urn: string; action: "imported"; serverId: string; fleet?: true; replaces?: string }
  | { urn: string; action: "cleared"; reason: string }
  | { urn: string; action: "kept"; reason: string }
  | { urn: string; action: "refreshed"; reason: string };

export interface RepairReport {
  stack: string;
  /**
   * `--dry-run`: nothing was changed, and the outcomes are what repair would do. The state still holds every
   * pending create, so an `up` now would create their servers again.
   */
  dryRun: boolean;
  /** Pending operations it resolves found in the state: creates, and updates of a recorded Fleet. */
  pending: number;
  outcomes: RepairOutcome[];
}

/** The live servers carrying `key`, newest first. */
async function serversWithKey(
  client: GamehostClient,
  gameId: string,
  environmentId: string,
  key: string,
): Promise<Server[]> {
  const found = await client.listServers(gameId, environmentId, { tags: { [IDEMPOTENCY_TAG]: key } });
  return found.filter((s) => s.destroyed_at === undefined);
}

/** When the newest server a recorded Fleet lists in its `status` was created (epoch ms), if it lists any. */
function newestFleetServer(fleet: StateResource): number | undefined {
  const status = fleet.outputs?.status;
  if (typeof status !== "object" || status === null) return undefined;
  const created = Object.values(status).flatMap((dc: unknown) => {
    const servers = (dc as { servers?: unknown } | null)?.servers;
    return Array.isArray(servers)
      ? servers.flatMap((s: unknown) => {
          const at = (s as { createdAt?: unknown } | null)?.createdAt;
          return typeof at === "number" ? [at] : [];
        })
      : [];
  });
  return created.length > 0 ? Math.max(...created) : undefined;
}

/**
 * A pending create of a Fleet: its random key is in its inputs and on every server it made, so the fleet
 * is recorded (its id is `<gameId>/<environmentId>/<fleetKey>`) when one of them lives, and the targeted
 * refresh takes them all in; otherwise the next `up` makes the fleet with a new key. A fleet the state
 * holds under the same URN is the one an interrupted replacement replaces when all its servers are older
 * than the new fleet's (it is then marked for deletion); otherwise a later `up` made the fleet anew.
 */
async function resolveFleet(
  client: GamehostClient,
  op: PendingOperation,
  recordedNow: StateResource | undefined,
  laterUpdate: RepairOutcome,
): Promise<RepairOutcome> {
  const urn = op.resource.urn;
  const scope = serverScope(op.resource);
  const fleetKey = plainString(op.resource.inputs, "fleetKey");
  if (!scope || !fleetKey) {
    return recordedNow
      ? laterUpdate
      : { urn, action: "kept", reason: "its inputs hold no gameId, environmentId and fleetKey" };
  }
  const found = await client.listServers(scope.gameId, scope.environmentId, {
    tags: { [FLEET_TAG]: fleetKey },
  });
  const live = found.filter((s) => s.destroyed_at === undefined);
  if (live.length === 0)
    return { urn, action: "cleared", reason: "the service has no live server of the fleet" };
  const imported = {
    urn,
    action: "imported",
    serverId: `${scope.gameId}/${scope.environmentId}/${fleetKey}`,
    fleet: true,
  } as const;
  if (!recordedNow) return imported;
  const newestRecorded = newestFleetServer(recordedNow) ?? Number.NEGATIVE_INFINITY;
  const oldestFound = Math.min(...live.map((s) => s.created_at));
  return recordedNow.id && newestRecorded < oldestFound
    ? { ...imported, replaces: recordedNow.id }
    : laterUpdate;
}

async function resolve(
  client: GamehostClient,
  op: PendingOperation,
  standing: ReadonlyMap<string, StateResource>,
): Promise<RepairOutcome> {
  const { urn, type } = op.resource;
  const laterUpdate: RepairOutcome = {
    urn,
    action: "cleared",
    reason:
      "a later update recorded this resource anew; what the interrupted create made is left to `gamehost sweep`",
  } as const;
  const recordedNow = standing.get(urn);
  if (isFleetType(type)) return resolveFleet(client, op, recordedNow, laterUpdate);
  // An export changes nothing on the service (docs/reliability.md): the next `up` exports again. Kept, its
  // pending create made every later `up` warn, and the CLI's advice (an interactive `pulumi refresh`) fits
  // no CI job.
  if (isExportType(type))
    return {
      urn,
      action: "cleared",
      reason: "an export changes nothing on the service; the next `up` exports again",
    };
  if (!isServerType(type)) return { urn, action: "kept", reason: `not a gamehost Server or Fleet (${type})` };
  const scope = serverScope(op.resource);
  if (!scope?.idempotencyKey) {
    return { urn, action: "kept", reason: "its inputs hold no gameId, environmentId and idempotencyKey" };
  }
  const [server] = await serversWithKey(client, scope.gameId, scope.environmentId, scope.idempotencyKey);
  if (!server) return { urn, action: "cleared", reason: "the service has no live server with its key" };
  if (!recordedNow) return { urn, action: "imported", serverId: server.id };
  // The state holds a server under this URN too. Made before the pending create's server, it is the one an
  // interrupted replacement was replacing (create-before-delete): the new server is recorded and the old
  // one marked for deletion, as the engine would have left them, so the next `up` deletes the old one.
  // Made after it, a later `up` made the resource anew.
  const recordedAt = recordedNow.outputs?.createdAt;
  if (recordedNow.id && typeof recordedAt === "number" && recordedAt < server.created_at)
    return {
      urn,
      action: "imported",
      serverId: server.id,
      replaces: plainString(recordedNow.outputs, "serverId") ?? recordedNow.id,
    };
  return laterUpdate;
}

/**
 * The state resource recording `server` for a pending create: its inputs, and as outputs until the
 * refresh (a Fleet's with an empty status and its first generation, which its read fills from the
 * servers carrying its key).
 */
function recorded(op: PendingOperation, outcome: { serverId: string; fleet?: true }): StateResource {
  const inputs = op.resource.inputs ?? {};
  const outputs = outcome.fleet ? { ...inputs, generation: 1, status: {} } : { ...inputs };
  return { ...op.resource, id: outcome.serverId, inputs, outputs };
}

/**
 * `stack.importStack`, without leaving the state behind. The Automation API writes the deployment it
 * imports to `<tmpdir>/automation-<n>`, readable by all, and leaves it there when `pulumi stack import`
 * fails (a stack locked by another update). Its secrets are encrypted (exported without `--show-secrets`),
 * but the rest of the state is the user's too: it is pointed at a folder of its own (mode 0700), removed
 * whatever happens. Nothing else of this process runs meanwhile (repair is the first step of a pass).
 */
async function importPrivately(stack: Stack, state: Parameters<Stack["importStack"]>[0]): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-repair-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    await stack.importStack(state);
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Resolves every pending create of `stack`. With `dryRun`, reports what it would do and changes nothing. */
export async function repair(stack: Stack, client: GamehostClient, dryRun = false): Promise<RepairReport> {
  return (await repairStack(stack, client, dryRun)).report;
}

/**
 * {@link repair}, with the state it read when it left the state as it was (`unchanged`): a reconcile pass
 * hands it to drift, which then runs no second `pulumi stack export`. Kept out of the report, which
 * `repair --json` prints.
 */
export async function repairStack(
  stack: Stack,
  client: GamehostClient,
  dryRun = false,
): Promise<{ report: RepairReport; unchanged?: Deployment }> {
  // Its secrets left encrypted: repair reads none, and `stack import` takes them back as they are.
  const exported = await exportEncrypted(stack).catch((error: unknown) => {
    throw new CommandError(`cannot export stack ${stack.name}: ${cliMessage(error)}`);
  });
  const deployment = Deployment.parse(exported.deployment ?? {});
  const pending = (deployment.pending_operations ?? []).filter((op) => op.type === "creating");
  const outcomes: RepairOutcome[] = [];
  const standing = new Map(
    (deployment.resources ?? []).filter((r) => r.delete !== true).map((r) => [r.urn, r] as const),
  );
  for (const op of pending) outcomes.push(await resolve(client, op, standing));
  // An update of a Fleet cut short: the state holds the fleet as it was before it, not the servers that update
  // made or deleted. The next `up` compares the program with that record only, so one whose program is as
  // recorded (a reverted change) changed nothing and left them running. A refresh reads them in: an `up`
  // then finishes or undoes the update. (The engine drops the pending update at the next `up`, saying so.)
  const updates = (deployment.pending_operations ?? []).filter(
    (op) => op.type === "updating" && isFleetType(op.resource.type) && standing.has(op.resource.urn),
  );
  for (const op of updates)
    outcomes.push({
      urn: op.resource.urn,
      action: "refreshed",
      reason:
        "its update was interrupted; the fleet is read from the service, and the next `up` converges it",
    });
  const report = { stack: stack.name, dryRun, pending: pending.length + updates.length, outcomes };
  const done = outcomes.filter((o) => o.action !== "kept");
  if (dryRun || done.length === 0) return { report, unchanged: deployment };

  const byUrn = new Map(outcomes.map((o) => [o.urn, o]));
  const imported: StateResource[] = [];
  const remaining = (deployment.pending_operations ?? []).filter((op) => {
    if (op.type === "updating") return !updates.includes(op);
    if (op.type !== "creating") return true;
    const outcome = byUrn.get(op.resource.urn);
    if (outcome?.action === "imported") imported.push(recorded(op, outcome));
    return outcome?.action === "kept";
  });
  // Appended after everything it may depend on: its parent and provider were registered before its create.
  // The server an interrupted replacement was replacing: pending deletion, as the engine marks it.
  const replaced = new Set(outcomes.flatMap((o) => (o.action === "imported" && o.replaces ? [o.urn] : [])));
  const resources = (deployment.resources ?? []).map((r) =>
    replaced.has(r.urn) && r.delete !== true ? { ...r, delete: true } : r,
  );
  const edited = {
    ...deployment,
    resources: [...resources, ...imported],
    pending_operations: remaining,
  };
  await importPrivately(stack, { version: exported.version, deployment: edited }).catch((error: unknown) => {
    if (isLocked(error)) throw lockError(stack, error);
    throw new CommandError(`cannot write the state of stack ${stack.name}: ${cliMessage(error)}`);
  });
  const refreshed = [...imported.map((r) => r.urn), ...updates.map((op) => op.resource.urn)];
  if (refreshed.length > 0) {
    await stack.refresh({ target: refreshed }).catch((error: unknown) => {
      throw new CommandError(
        `the state is repaired, but refreshing ${imported.length > 0 ? "the servers recorded" : "the interrupted fleet"} failed: ${cliMessage(error)} (run \`pulumi refresh\`)`,
      );
    });
  }
  return { report };
}

/** What a dry run says for each outcome: what it would do. */
const DRY_RUN_VERBS: Record<RepairOutcome["action"], string> = {
  imported: "would import",
  cleared: "would clear",
  kept: "would keep",
  refreshed: "would refresh",
};

/** One line per pending create, for people; a dry run's in the conditional ("would import"), as nothing was done. */
export function repairLines(report: RepairReport): string[] {
  if (report.pending === 0) return [`${report.stack}: no pending creates, nothing to repair`];
  const count = (action: RepairOutcome["action"]) =>
    report.outcomes.filter((o) => o.action === action).length;
  const refreshed = count("refreshed");
  const verb = (action: RepairOutcome["action"]): string => (report.dryRun ? DRY_RUN_VERBS[action] : action);
  const lines = report.outcomes.map((o) =>
    o.action === "imported"
      ? `${verb(o.action)} ${o.urn} = ${o.fleet ? "fleet" : "server"} ${o.serverId}` +
        (o.replaces
          ? ` (replacing ${o.fleet ? "fleet" : "server"} ${o.replaces}, which the next \`pulumi up\` deletes)`
          : "")
      : `${verb(o.action)} ${o.urn}: ${o.reason}`,
  );
  const summary = report.dryRun
    ? `${report.stack} (dry run, nothing changed): ${count("imported")} to import, ${count("cleared")} to clear, ` +
      `${count("kept")} kept${refreshed > 0 ? `, ${refreshed} to refresh` : ""}; run \`gamehost repair\` before the next \`pulumi up\``
    : `${report.stack}: ${count("imported")} imported, ${count("cleared")} cleared, ${count("kept")} kept` +
      (refreshed > 0 ? `, ${refreshed} refreshed` : "");
  return [...lines, summary];
}
