/**
 * `gamehost drift`: what differs between a stack's state and the service, changing nothing. A
 * preview-only refresh of the stack (the faces' own `read`, through the real CLI) reports each resource
 * destroyed out of band (gone) or changed; the service's server lists report strays: live servers in the
 * stack's games and environments, with the tags every server of the stack shares, that the state does not
 * track. Pending creates count as drift too
 * (`gamehost repair` resolves them).
 */
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import type { GamehostClient } from "../api/client";
import { SERIALIZED_PROVIDER_FIELD } from "../kinds/fields";
import { FLEET_TAG, IDEMPOTENCY_TAG } from "../kinds/server/tags";
import { CommandError } from "./errors";
import {
  Deployment,
  isFleetType,
  isServerType,
  nameOfUrn,
  plainString,
  type StateResource,
  serverScope,
} from "./state";
import { cliMessage, exportEncrypted } from "./workspace";

export interface DriftedResource {
  urn: string;
  name: string;
  type: string;
  /** `gone`: destroyed out of band (crashed, deleted); `changed`: its live properties differ. */
  kind: "gone" | "changed";
  /** The properties that differ (changed only). */
  properties?: string[];
  /**
   * Gone by the stack's own delete, which a hard interruption left pending (a double Ctrl-C of a destroy or
   * of an `up` that removed it): the next `pulumi up` or `pulumi refresh` finishes it.
   */
  interruptedDelete?: boolean;
  /**
   * Deleted by the stack's own replacement (delete first: `deleteBeforeReplace`), whose create then failed or
   * was cut short: the state keeps it marked `pendingReplacement`, which the engine's refresh never reads.
   */
  replacementNotCreated?: boolean;
}

/**
 * The Servers and Fleets `d` keeps as deleted for a replacement whose create did not finish, not in
 * `drifted` yet. The engine's refresh skips such a resource (no read reaches the service), so the refresh
 * preview reports nothing: the stack declares a server that exists nowhere until the next `up` creates it.
 */
export function replacementsNotCreated(
  drifted: readonly DriftedResource[],
  d: Deployment,
): DriftedResource[] {
  const seen = new Set(drifted.map((r) => r.urn));
  return (d.resources ?? []).flatMap((r) =>
    (isServerType(r.type) || isFleetType(r.type)) && r.pendingReplacement === true && !seen.has(r.urn)
      ? [
          {
            urn: r.urn,
            name: nameOfUrn(r.urn),
            type: r.type,
            kind: "gone" as const,
            replacementNotCreated: true,
          },
        ]
      : [],
  );
}

/** `drifted`, its gone resources whose delete `d` holds pending marked as such. */
export function markInterruptedDeletes(drifted: DriftedResource[], d: Deployment): DriftedResource[] {
  const deleting = new Set(
    (d.pending_operations ?? []).filter((op) => op.type === "deleting").map((op) => op.resource.urn),
  );
  return drifted.map((r) =>
    r.kind === "gone" && deleting.has(r.urn) ? { ...r, interruptedDelete: true } : r,
  );
}

export interface Stray {
  serverId: string;
  gameId: string;
  environmentId: string;
  createdAt: string;
  /** Age in seconds when seen. */
  ageSeconds: number;
  tags: Record<string, string>;
}

export interface DriftReport {
  stack: string;
  drifted: DriftedResource[];
  strays: Stray[];
  /** Pending creates left by a hard interruption (run `gamehost repair`). */
  pendingCreates: string[];
  /**
   * Servers and Fleets the state keeps for deletion (a replaced one whose delete failed, or waited for a
   * dependent an `up` left out): still live, and deleted by the next `pulumi up`.
   */
  pendingDeletes: Array<{ urn: string; id: string }>;
  /** The tags a live server must carry to count as this stack's stray (besides the reserved key tag). */
  strayTags: Record<string, string>;
}

export const hasDrift = (r: DriftReport): boolean =>
  r.drifted.length > 0 || r.strays.length > 0 || r.pendingCreates.length > 0 || r.pendingDeletes.length > 0;

/** The tags a recorded Server declares, or a Fleet declares on each of its servers (`template.tags`). */
function declaredTags(resource: StateResource): unknown {
  if (!isFleetType(resource.type)) return resource.inputs?.tags;
  const template = resource.inputs?.template;
  return template && typeof template === "object" ? (template as Record<string, unknown>).tags : undefined;
}

/**
 * Tags every server of the state declares, a Server's or a Fleet's (plain values only): what marks a
 * server as this stack's.
 */
export function sharedTags(declarers: readonly StateResource[]): Record<string, string> {
  let shared: Record<string, string> | undefined;
  for (const s of declarers) {
    const raw = declaredTags(s);
    const tags: Record<string, string> = {};
    if (raw && typeof raw === "object") {
      for (const [k, v] of Object.entries(raw)) if (typeof v === "string") tags[k] = v;
    }
    shared =
      shared === undefined
        ? tags
        : Object.fromEntries(Object.entries(shared).filter(([k, v]) => tags[k] === v));
  }
  return shared ?? {};
}

/** The stack's current deployment (checked), from `pulumi stack export`. */
export async function exportedState(stack: Stack): Promise<Deployment> {
  const exported = await exportEncrypted(stack).catch((error: unknown) => {
    throw new CommandError(`cannot export stack ${stack.name}: ${cliMessage(error)}`);
  });
  return Deployment.parse(exported.deployment ?? {});
}

/** The live Servers of the state (custom, not pending deletion). */
export const stateServers = (d: Deployment): StateResource[] =>
  (d.resources ?? []).filter((r) => isServerType(r.type) && r.delete !== true && r.id !== undefined);

/** The live Servers and Fleets of the state: what declares its servers, their scopes and tags. */
export const stateServerDeclarers = (d: Deployment): StateResource[] =>
  (d.resources ?? []).filter(
    (r) => (isServerType(r.type) || isFleetType(r.type)) && r.delete !== true && r.id !== undefined,
  );

/**
 * What stacks track: their Servers' ids, their Fleets' keys (a fleet's servers carry its key tag), and the
 * idempotency keys of their Servers' pending creates (the server such a create made carries its key tag).
 */
export interface Tracked {
  ids: ReadonlySet<string>;
  fleetKeys: ReadonlySet<string>;
  pendingKeys: ReadonlySet<string>;
}

/**
 * The keys of the state's Fleets, those whose create is pending included: their servers are the fleet's
 * (or `gamehost repair`'s to record), never strays.
 */
export const stateFleetKeys = (d: Deployment): string[] =>
  [...(d.resources ?? []), ...(d.pending_operations ?? []).map((op) => op.resource)].flatMap((r) => {
    if (!isFleetType(r.type)) return [];
    const key = plainString(r.outputs, "fleetKey") ?? plainString(r.inputs, "fleetKey");
    return key ? [key] : [];
  });

/**
 * The idempotency keys of the state's pending Server creates: the servers they made are the stack's, which
 * `gamehost repair` records, never strays (reported twice by `drift`, deleted by `sweep --delete` before the
 * repair could record them).
 */
export const statePendingServerKeys = (d: Deployment): string[] =>
  (d.pending_operations ?? []).flatMap((op) => {
    if (op.type !== "creating" || !isServerType(op.resource.type)) return [];
    const key = plainString(op.resource.inputs, "idempotencyKey");
    return key ? [key] : [];
  });

/**
 * What `d` tracks. A Server pending deletion (`delete: true`: a replaced one whose delete failed) is the
 * stack's too: the next `up` deletes it, so it is no stray, and adopting it would hand the stack's next
 * `up` a server it then destroys.
 */
export const trackedBy = (d: Deployment): Tracked => ({
  ids: new Set(
    (d.resources ?? []).flatMap((r) => (isServerType(r.type) && r.id !== undefined ? [r.id] : [])),
  ),
  fleetKeys: new Set(stateFleetKeys(d)),
  pendingKeys: new Set(statePendingServerKeys(d)),
});

/** What any of `all` tracks. */
export const trackedTogether = (...all: readonly Tracked[]): Tracked => ({
  ids: new Set(all.flatMap((t) => [...t.ids])),
  fleetKeys: new Set(all.flatMap((t) => [...t.fleetKeys])),
  pendingKeys: new Set(all.flatMap((t) => [...t.pendingKeys])),
});

/** The servers the stacks track: their Servers' ids, their Fleets' keys and their pending creates' keys. */
export async function trackedByStacks(stacks: readonly Stack[]): Promise<Tracked> {
  const each: Tracked[] = [];
  for (const stack of stacks) each.push(trackedBy(await exportedState(stack)));
  return trackedTogether(...each);
}

/**
 * Live servers in `scopes` carrying `tags` that `tracked` does not track (neither a Server's id nor a
 * server of a tracked Fleet); with `madeHere`, only those this package created (they carry the reserved
 * key tag).
 */
export async function findStrays(
  client: GamehostClient,
  scopes: ReadonlyArray<{ gameId: string; environmentId: string }>,
  tags: Record<string, string>,
  tracked: Tracked,
  madeHere = false,
  now?: number,
): Promise<Stray[]> {
  const strays: Stray[] = [];
  const seen = new Set<string>();
  for (const { gameId, environmentId } of scopes) {
    const key = `${gameId}/${environmentId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const servers = await client.listServers(gameId, environmentId, { tags });
    // `created_at` is in the service's clock: an age from this machine's would be off by their difference.
    const at = now ?? client.serviceNow();
    for (const s of servers) {
      if (s.destroyed_at !== undefined || tracked.ids.has(s.id)) continue;
      const fleet = s.tags[FLEET_TAG];
      if (fleet !== undefined && tracked.fleetKeys.has(fleet)) continue;
      const key = s.tags[IDEMPOTENCY_TAG];
      if (key !== undefined && tracked.pendingKeys.has(key)) continue;
      if (madeHere && key === undefined) continue;
      strays.push({
        serverId: s.id,
        gameId,
        environmentId,
        createdAt: new Date(s.created_at).toISOString(),
        ageSeconds: Math.max(0, Math.round((at - s.created_at) / 1000)),
        tags: Object.fromEntries(Object.entries(s.tags).filter(([k]) => k !== IDEMPOTENCY_TAG)),
      });
    }
  }
  return strays;
}

/** The top-level outputs whose values differ (the dynamic face's serialized provider aside). */
function changedOutputs(
  old: Record<string, unknown> | undefined,
  now: Record<string, unknown> | undefined,
): string[] {
  const keys = new Set([...Object.keys(old ?? {}), ...Object.keys(now ?? {})]);
  keys.delete(SERIALIZED_PROVIDER_FIELD);
  return [...keys].filter((k) => JSON.stringify(old?.[k]) !== JSON.stringify(now?.[k])).sort();
}

/** Drift of one resource from a refresh preview's step, if it drifted. */
function driftOf(event: EngineEvent): DriftedResource | undefined {
  const meta = event.resOutputsEvent?.metadata;
  if (!meta || meta.type.startsWith("pulumi:providers:") || meta.type === "pulumi:pulumi:Stack")
    return undefined;
  const base = { urn: meta.urn, name: nameOfUrn(meta.urn), type: meta.type };
  if (meta.op === "delete" || (meta.op === "refresh" && meta.new === undefined))
    return { ...base, kind: "gone" };
  let properties = meta.diffs ?? Object.keys(meta.detailedDiff ?? {});
  // A refresh whose inputs read back unchanged names no property (a Fleet's dead servers change only its
  // `status` output): the outputs that differ are the change.
  if (meta.op !== "same" && properties.length === 0)
    properties = changedOutputs(meta.old?.outputs, meta.new?.outputs);
  if (meta.op !== "same" && properties.length > 0) return { ...base, kind: "changed", properties };
  return undefined;
}

/**
 * Drift of `stack`: a refresh preview, pending creates and strays. The refresh preview (a CLI run that
 * reads every resource, the long part) starts at once; the state export, the stack's config (behind
 * `client`; a function is called once the export is back) and the service's lists run beside it.
 * `exported`: the stack's state as just read (a reconcile pass's repair), so that it is not exported again.
 */
export async function drift(
  stack: Stack,
  client: GamehostClient | Promise<GamehostClient> | (() => Promise<GamehostClient>),
  others: readonly Stack[] = [],
  exported?: Deployment,
): Promise<DriftReport> {
  const drifted: DriftedResource[] = [];
  const preview = stack
    .previewRefresh({
      onEvent: (event) => {
        const d = driftOf(event);
        if (d) drifted.push(d);
      },
    })
    .catch((error: unknown) => {
      throw new CommandError(`the refresh preview of stack ${stack.name} failed: ${cliMessage(error)}`);
    });
  // Handled below: a failure of the preview must not end the process before the service's answer.
  preview.catch(() => undefined);
  try {
    // A client made on demand (the command's first pass: loading the HTTP client and reading the config)
    // is made once the export is back, by when the preview's CLI run has started.
    const state = () => (exported ? Promise.resolve(exported) : exportedState(stack));
    const [deployment, service] =
      typeof client === "function"
        ? await state().then(async (d) => [d, await client()] as const)
        : await Promise.all([state(), client]);
    // A Fleet's servers are the stack's as a Server is: their scope and tags count alike.
    const declarers = stateServerDeclarers(deployment);
    const scopes = declarers.flatMap((s) => {
      const scope = serverScope(s);
      return scope ? [scope] : [];
    });
    const strayTags = sharedTags(declarers);
    // The servers of the other stacks named (another project's in the same environment) are theirs, not strays.
    const tracked = trackedTogether(trackedBy(deployment), await trackedByStacks(others));
    // Live until the next `up` deletes them: the stack is not what its program declares until then.
    const pendingDeletes = (deployment.resources ?? []).flatMap((r) =>
      (isServerType(r.type) || isFleetType(r.type)) && r.delete === true && r.id !== undefined
        ? [{ urn: r.urn, id: r.id }]
        : [],
    );
    const pendingCreates = (deployment.pending_operations ?? [])
      .filter((op) => op.type === "creating")
      .map((op) => op.resource.urn);
    for (const op of deployment.pending_operations ?? []) {
      const scope = serverScope(op.resource);
      if (op.type === "creating" && scope) scopes.push(scope);
    }
    // Without a tag shared by the stack's servers, any server of the environment would look like this
    // stack's: strays are then only looked for when the stack's servers share a tag. One list is asked
    // either way, so that a rejected token is one line from the service, not a provider failure in the
    // middle of the refresh preview.
    let strays: Stray[] = [];
    const [first] = scopes;
    if (Object.keys(strayTags).length > 0) strays = await findStrays(service, scopes, strayTags, tracked);
    else if (first) await service.listServers(first.gameId, first.environmentId, { tags: strayTags });
    await preview;
    return {
      stack: stack.name,
      drifted: [
        ...markInterruptedDeletes(drifted, deployment),
        ...replacementsNotCreated(drifted, deployment),
      ],
      strays,
      pendingCreates,
      pendingDeletes,
      strayTags,
    };
  } catch (error) {
    // The service's or the state's failure is the one reported; the preview's CLI run ends first.
    await preview.catch(() => undefined);
    throw error;
  }
}

/** One line per finding, then a summary, for people. */
export function driftLines(r: DriftReport): string[] {
  const lines = [
    ...r.drifted.map((d) =>
      d.kind === "gone"
        ? `gone     ${d.name} (${d.type}): ${
            d.interruptedDelete
              ? "deleted by an interrupted update (its delete was left pending: the next `pulumi up` or `pulumi refresh` finishes it)"
              : d.replacementNotCreated
                ? "deleted for its replacement, whose create did not finish (the next `pulumi up` creates it)"
                : "destroyed out of band"
          }`
        : `changed  ${d.name} (${d.type}): ${d.properties?.join(", ")}`,
    ),
    ...r.strays.map(
      (s) =>
        `stray    server ${s.serverId} (${s.gameId}/${s.environmentId}), ${s.ageSeconds}s old, not in the state`,
    ),
    ...r.pendingCreates.map(
      (u) => `pending  ${nameOfUrn(u)}: a create left pending (run \`gamehost repair\`)`,
    ),
    ...r.pendingDeletes.map(
      (p) =>
        `pending  ${nameOfUrn(p.urn)} ${p.id}: replaced, kept for deletion (the next \`pulumi up\` deletes it)`,
    ),
  ];
  const gone = r.drifted.filter((d) => d.kind === "gone").length;
  const interrupted = r.drifted.filter((d) => d.interruptedDelete).length;
  const goneText =
    interrupted > 0 ? `${gone} gone (${interrupted} by an interrupted delete)` : `${gone} gone`;
  const summary = hasDrift(r)
    ? `${r.stack}: drift: ${goneText}, ${r.drifted.length - gone} changed, ${r.strays.length} strays, ${r.pendingCreates.length} pending creates` +
      (r.pendingDeletes.length > 0 ? `, ${r.pendingDeletes.length} pending deletes` : "")
    : `${r.stack}: no drift`;
  return [...lines, summary];
}
