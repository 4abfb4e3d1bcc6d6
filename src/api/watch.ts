import { isDeepStrictEqual } from "node:util";
import type { Watch } from "./generated/wire";
import { sleep as realSleep } from "./wait";

/** A watchable answer: any data plus its version marker. */
export interface Watched {
  watch: Watch;
}

/** Fetches one version: without an index at once, with one after the service's hold. */
export type WatchFetch<T extends Watched> = (
  watchIndex: string | undefined,
  signal?: AbortSignal,
) => Promise<T>;

/** How a watch loop paces its calls. */
export interface WatchPacing {
  /**
   * Least time between the starts of two calls, in ms (default 1 000). An answer faster than this is
   * not the service's hold: the next call waits out the rest, and each further fast answer without a
   * change doubles the wait, up to `maxBackoffMs`.
   */
  minIntervalMs?: number;
  /** Longest wait between two calls after repeated fast answers, in ms (default 30 000). */
  maxBackoffMs?: number;
}

/** Defaults of {@link WatchPacing}. */
export const DEFAULT_WATCH_PACING: Required<WatchPacing> = { minIntervalMs: 1_000, maxBackoffMs: 30_000 };

/** {@link WatchPacing} and the clock it runs on (tests pin `now` and `sleep`). */
export interface WatchLoopOptions extends WatchPacing {
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

function withoutWatch<T extends Watched>(value: T): Omit<T, "watch"> {
  const { watch: _ignored, ...data } = value;
  return data;
}

/**
 * Long-poll loop of a watchable endpoint (docs/service-contract.md §5): the first call carries no index and
 * is yielded; each later call passes the last `watch.index` and is yielded only when it is a new
 * version. A hold that ends with the same index, or with a fresh index but equal data, is the
 * service's normal timeout and is not yielded. Calls are paced (see {@link WatchPacing}), so a
 * service that answers at once, however it answers, never makes the loop spin. The loop ends
 * without error when `signal` fires; any other failure propagates.
 */
export async function* watchVersions<T extends Watched>(
  fetch: WatchFetch<T>,
  signal?: AbortSignal,
  options: WatchLoopOptions = {},
): AsyncGenerator<T, void, undefined> {
  const floor = options.minIntervalMs ?? DEFAULT_WATCH_PACING.minIntervalMs;
  const cap = Math.max(floor, options.maxBackoffMs ?? DEFAULT_WATCH_PACING.maxBackoffMs);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  let index: string | undefined;
  let last: Omit<T, "watch"> | undefined;
  /** Fast answers in a row without a change: the exponent of the backoff. */
  let fastRepeats = 0;
  while (!signal?.aborted) {
    const started = now();
    let answer: T;
    try {
      answer = await fetch(index, signal);
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    if (signal?.aborted) return;
    const fast = now() - started < floor;
    const data = withoutWatch(answer);
    const isNew = last === undefined || (answer.watch.index !== index && !isDeepStrictEqual(data, last));
    index = answer.watch.index;
    if (isNew) {
      last = data;
      yield answer;
    }
    // A hold that lasted (or a change) resets the backoff; a change that comes at once still waits
    // out the floor, so a service reporting a "change" on every call gets one call per floor.
    fastRepeats = fast && !isNew ? fastRepeats + 1 : 0;
    if (!fast) continue;
    const gap = Math.min(cap, floor * 2 ** fastRepeats);
    const wait = gap - (now() - started);
    if (wait <= 0) continue;
    try {
      await sleep(wait, signal);
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
  }
}
