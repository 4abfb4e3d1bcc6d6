/**
 * The rollout planner: given one datacenter's servers and what it should run, the next batch of deletes
 * and creates. Pure, so its bounds are proven by property tests; the Fleet kind runs each batch (deletes
 * first, then creates, each create awaited until ready) and plans again from what exists.
 */

/** A server as the planner sees it. */
export interface PlannedServer {
  id: string;
  /** The generation (template version) it was made from. */
  generation: number;
  ready: boolean;
  /** Creation order (epoch ms, then slot): higher is newer. */
  createdAt: number;
  slot: number;
}

/** What one datacenter should run. */
export interface DatacenterTarget {
  count: number;
  /** The current generation: servers of any other are replaced. */
  generation: number;
  maxSurge: number;
  maxUnavailable: number;
}

/** The next batch: delete these servers, then create this many of the current generation. */
export interface Batch {
  delete: string[];
  create: number;
}

/** A count or a percentage of `count`: percentages round up for surge and down for unavailability (Agones). */
export function resolveBound(
  value: number | string | undefined,
  count: number,
  round: "up" | "down",
): number {
  const given = value ?? "25%";
  if (typeof given === "number") return given;
  const share = (Number.parseInt(given, 10) / 100) * count;
  // Tolerance for float error: 25% of 4 is 1, not 1.0000000002.
  return round === "up" ? Math.ceil(share - 1e-9) : Math.floor(share + 1e-9);
}

/** Both bounds of a datacenter; when both come to 0 nothing could move, so maxUnavailable is 1. */
export function resolveBounds(
  rollout: { maxSurge?: number | string; maxUnavailable?: number | string } | undefined,
  count: number,
): { maxSurge: number; maxUnavailable: number } {
  const maxSurge = resolveBound(rollout?.maxSurge, count, "up");
  const maxUnavailable = resolveBound(rollout?.maxUnavailable, count, "down");
  return maxSurge === 0 && maxUnavailable === 0
    ? { maxSurge, maxUnavailable: 1 }
    : { maxSurge, maxUnavailable };
}

const newestFirst = (a: PlannedServer, b: PlannedServer) => b.createdAt - a.createdAt || b.slot - a.slot;
const oldestFirst = (a: PlannedServer, b: PlannedServer) => -newestFirst(a, b);

/**
 * The next batch for one datacenter, or an empty one when it has converged or must wait for servers to
 * become ready. Running the deletes and then the creates keeps, at every instant, at least
 * `count - maxUnavailable` ready servers (never fewer than were ready, if already below) and at most
 * `count + maxSurge` live ones (never more than were live, if already above).
 */
export function nextBatch(servers: readonly PlannedServer[], target: DatacenterTarget): Batch {
  const { count, generation } = target;
  const current = servers.filter((s) => s.generation === generation);
  const old = servers.filter((s) => s.generation !== generation);
  const deletes: PlannedServer[] = [];

  // Too many of the current generation (a scale down): not ready ones first, then the newest.
  const surplus = current.length - count;
  if (surplus > 0) {
    const byPreference = [
      ...current.filter((s) => !s.ready).sort(newestFirst),
      ...current.filter((s) => s.ready).sort(newestFirst),
    ];
    deletes.push(...byPreference.slice(0, surplus));
  }
  const keptCurrent = current.length - Math.max(0, surplus);

  // Old servers that are not ready count for nothing: they go at once.
  deletes.push(...old.filter((s) => !s.ready));
  // Ready old ones go as far as the ready floor allows (all of them once the count is met by ready ones).
  const readyNow = servers.filter((s) => s.ready).length;
  const readyLeft = readyNow - deletes.filter((s) => s.ready).length;
  const floor = count - target.maxUnavailable;
  const readyOld = old.filter((s) => s.ready).sort(oldestFirst);
  const mayGo = Math.max(0, readyLeft - floor);
  // Old servers beyond what the count still needs from them go regardless of readiness once enough current ones are ready.
  deletes.push(...readyOld.slice(0, Math.min(readyOld.length, mayGo)));

  const liveAfter = servers.length - deletes.length;
  const needed = Math.max(0, count - keptCurrent);
  const room = Math.max(0, count + target.maxSurge - liveAfter);
  return { delete: deletes.map((s) => s.id), create: Math.min(needed, room) };
}

/** Whether a datacenter has converged: exactly `count` servers, all of the current generation and ready. */
export function converged(servers: readonly PlannedServer[], count: number, generation: number): boolean {
  return servers.length === count && servers.every((s) => s.generation === generation && s.ready);
}
