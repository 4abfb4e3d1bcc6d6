/**
 * Readiness of a fleet's servers, seen through one list request for the whole fleet (by its tag) per
 * tick, shared by every datacenter waiting at that moment, instead of one GET per server: 100 servers
 * waiting cost one request a tick, not 100, and the fleets of one process share two lists a second, which keeps
 * them within the service's 128 GETs a minute (docs/service-contract.md §8). The servers endpoints are not
 * watchable, so this polls.
 */
import type { Server } from "../../api/schemas";
import { sleep } from "../../api/wait";

/** First look after this long, then 1.5× longer each time, at most {@link MAX_INTERVAL_MS}. */
const FIRST_INTERVAL_MS = 100;
/** At most two lists a second: 120 a minute, under the service's 128 GETs a minute per endpoint. */
export const MAX_INTERVAL_MS = 500;

/**
 * Fleet lists of this process at once before they are paced: a fleet's first quick looks (100 ms, 150 ms, …)
 * go out as they come.
 */
export const LIST_BURST = 8;

/**
 * The fleet lists of this process, whichever fleet asks, through one token bucket: {@link LIST_BURST} at once,
 * then one per {@link MAX_INTERVAL_MS}. The service counts GETs per client IP and endpoint (1,920 in a 15-minute
 * window), not per fleet: with a pace of their own each, three fleets waiting spent the window in five minutes
 * and every GET of the servers after them (an ambiguous create's lookup among them) was refused until it ended.
 * At most 8 + 1,800 lists a window.
 */
let tokens = LIST_BURST;
let countedAt = Date.now();

/** Runs `list` once the process's bucket of fleet lists has a token for it. */
async function paced<T>(list: () => Promise<T>): Promise<T> {
  for (;;) {
    const now = Date.now();
    tokens = Math.min(LIST_BURST, tokens + (now - countedAt) / MAX_INTERVAL_MS);
    countedAt = now;
    if (tokens >= 1) {
      tokens -= 1;
      return list();
    }
    await sleep(Math.ceil((1 - tokens) * MAX_INTERVAL_MS));
  }
}

/** Fetches of the fleet's servers, shared: a caller gets a listing that was requested after `notBefore`. */
export type FleetLister = (notBefore: number) => Promise<readonly Server[]>;

/** A lister over `list` that joins callers asking at about the same time into one request. */
export function sharedLister(list: () => Promise<readonly Server[]>): FleetLister {
  let last: { at: number; listing: Promise<readonly Server[]> } | undefined;
  return (notBefore) => {
    if (last === undefined || last.at < notBefore) {
      const listing = paced(list);
      last = { at: Date.now(), listing };
      // A failed listing is not reused: the next caller asks again.
      listing.catch(() => {
        if (last?.listing === listing) last = undefined;
      });
    }
    return last.listing;
  };
}

/** How each awaited server ended: ready, stopped (destroyed or gone), or still starting at the deadline. */
export interface ReadinessOutcome {
  /** The server as last listed (absent when the list no longer shows it). */
  server?: Server;
  /** `ready`; `stopped` (destroyed, or no longer listed); or `timeout` (still starting at the deadline). */
  outcome: "ready" | "stopped" | "timeout";
}

/**
 * Waits until each of `ids` is ready (`isReady`), stopped, or `deadline` (epoch ms) passes, through
 * `lister`; a failed list request rejects (the caller records what it knows).
 */
export async function awaitReady(
  ids: readonly string[],
  lister: FleetLister,
  isReady: (server: Server) => boolean,
  deadline: number,
  signal?: AbortSignal,
): Promise<Map<string, ReadinessOutcome>> {
  const outcomes = new Map<string, ReadinessOutcome>();
  const pending = new Set(ids);
  let last = new Map<string, Server>();
  for (let attempt = 0; pending.size > 0; attempt++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    const interval = Math.min(MAX_INTERVAL_MS, FIRST_INTERVAL_MS * 1.5 ** attempt);
    await sleep(Math.min(remaining, interval), signal);
    const asked = Date.now();
    last = new Map((await lister(asked)).map((s) => [s.id, s]));
    for (const id of [...pending]) {
      const server = last.get(id);
      if (server === undefined || server.destroyed_at !== undefined) {
        outcomes.set(id, { ...(server ? { server } : {}), outcome: "stopped" });
        pending.delete(id);
      } else if (isReady(server)) {
        outcomes.set(id, { server, outcome: "ready" });
        pending.delete(id);
      }
    }
  }
  for (const id of pending) {
    const server = last.get(id);
    outcomes.set(id, { ...(server ? { server } : {}), outcome: "timeout" });
  }
  return outcomes;
}
