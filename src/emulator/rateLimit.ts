/** Length of a rate-limit window: fixed 15-minute windows (docs/service-contract.md §8). */
export const RATE_WINDOW_MS = 15 * 60_000;

/**
 * The service's per-minute figures by method (docs/service-contract.md §8); every route uses them, the servers
 * routes included. A window allows {@link RATE_WINDOW_MS} / 1 min times as many.
 */
export const PER_MINUTE_LIMITS: Readonly<Record<string, number>> = {
  GET: 128,
  PATCH: 32,
  POST: 16,
  PUT: 16,
  DELETE: 16,
};

const MINUTES_PER_WINDOW = RATE_WINDOW_MS / 60_000;

/** Requests a route allows per window, by its name (`"METHOD /pattern"`). */
export function limitOf(routeName: string): number {
  const method = routeName.slice(0, routeName.indexOf(" "));
  return (PER_MINUTE_LIMITS[method] ?? PER_MINUTE_LIMITS.GET ?? 128) * MINUTES_PER_WINDOW;
}

/**
 * Fixed windows per client IP and route, aligned to the quarter hour, so `retry-after` (the window
 * end) is a whole second an HTTP date can carry exactly.
 */
export class RateLimiter {
  private readonly counts = new Map<string, { windowStart: number; count: number }>();

  /** Counts the request; returns the window end (epoch ms) when it is over the limit. */
  hit(ip: string, routeName: string, now: number): number | undefined {
    const windowStart = now - (now % RATE_WINDOW_MS);
    const key = `${ip} ${routeName}`;
    let entry = this.counts.get(key);
    if (!entry || entry.windowStart !== windowStart) {
      entry = { windowStart, count: 0 };
      this.counts.set(key, entry);
      this.prune(windowStart);
    }
    entry.count++;
    return entry.count > limitOf(routeName) ? windowStart + RATE_WINDOW_MS : undefined;
  }

  /** Drops counters of past windows so the map does not grow for ever. */
  private prune(current: number): void {
    if (this.counts.size < 1024) return;
    for (const [key, entry] of this.counts) if (entry.windowStart !== current) this.counts.delete(key);
  }
}
