/** How many of a fleet's server calls run at once, and how they settle. */
import { setMaxListeners } from "node:events";
import type { OperationContext } from "../kind";

/** Server creates and deletes in flight at once (readiness is one list for the whole fleet): the service allows 16 POSTs a minute per client, bursts beyond are 429s the Server's create waits out. */
export const FLEET_CONCURRENCY = 16;

/** Every request in flight listens to the operation's signal: more than Node's default 10 is the design, not a leak. */
export function expectListeners(ctx: OperationContext): void {
  if (ctx.signal) setMaxListeners(4 * FLEET_CONCURRENCY, ctx.signal);
}

/** Runs at most `limit` tasks at once, however many callers share it. */
export type Limiter = <R>(task: () => Promise<R>) => Promise<R>;

export function limiter(limit: number): Limiter {
  let running = 0;
  const queue: (() => void)[] = [];
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      queue.shift()?.();
    }
  };
}

/** Runs `work` over `items` through `limit`; every item settles (nothing is left running). */
export async function settleAll<T, R>(
  items: readonly T[],
  limit: Limiter,
  work: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  return Promise.allSettled(items.map((item) => limit(() => work(item))));
}
