/**
 * Watch keys: each names what a waking update touches. Only game updates wake a watch
 * (docs/service-contract.md §5), so a game is all there is to name.
 */
export const watchKeys = {
  game: (id: string) => `game:${id}`,
};

/** Why a held watch ended. */
export type WakeReason = "changed" | "timeout" | "aborted";

interface Waiter {
  keys: readonly string[];
  /** When the hold began (epoch ms). */
  since: number;
  timer: NodeJS.Timeout;
  finish(reason: WakeReason): void;
}

/**
 * Change tracking for the updates that wake watches (game updates, docs/service-contract.md §5). Each key
 * (e.g. `game:<id>`) remembers the instant of its last update; the index a held watch is answered
 * with is that instant plus one. Waiters are indexed by key, so an update wakes exactly the
 * watchers of what it touched, and each waiter costs one timer.
 */
export class WatchHub {
  private readonly changed = new Map<string, number>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly all = new Set<Waiter>();
  /** Highest index handed out; later changes land above it so they are never missed. */
  private issued = 0;

  constructor(
    private readonly now: () => number,
    private readonly startedAt: number,
  ) {}

  /** Current index of data made of `keys`. Records it as issued. */
  index(keys: readonly string[]): number {
    let last = this.startedAt;
    for (const key of keys) last = Math.max(last, this.changed.get(key) ?? this.startedAt);
    return this.issue(last + 1);
  }

  /** A fresh index (now + 1, never below the data's own): what a held watch gets on timeout. */
  freshIndex(keys: readonly string[]): number {
    return this.issue(Math.max(this.now() + 1, this.index(keys)));
  }

  private issue(index: number): number {
    if (index > this.issued) this.issued = index;
    return index;
  }

  /** Marks the keys changed now and wakes their watchers. */
  bump(keys: readonly string[]): void {
    const at = Math.max(this.now(), this.issued);
    const woken = new Set<Waiter>();
    for (const key of keys) {
      this.changed.set(key, at);
      for (const waiter of this.waiters.get(key) ?? []) woken.add(waiter);
    }
    for (const waiter of woken) waiter.finish("changed");
  }

  /** Number of held watches (tests check that disconnects free them). */
  get count(): number {
    return this.all.size;
  }

  /** Holds until one of the keys changes, `holdMs` passes, or `signal` aborts. */
  wait(keys: readonly string[], holdMs: number, signal: AbortSignal): Promise<WakeReason> {
    if (signal.aborted) return Promise.resolve("aborted");
    return new Promise((resolve) => {
      const onAbort = () => waiter.finish("aborted");
      const waiter: Waiter = {
        keys,
        since: this.now(),
        timer: setTimeout(() => waiter.finish("timeout"), holdMs),
        finish: (reason) => {
          clearTimeout(waiter.timer);
          signal.removeEventListener("abort", onAbort);
          this.remove(waiter);
          resolve(reason);
        },
      };
      for (const key of keys) {
        let set = this.waiters.get(key);
        if (!set) {
          set = new Set();
          this.waiters.set(key, set);
        }
        set.add(waiter);
      }
      this.all.add(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private remove(waiter: Waiter): void {
    this.all.delete(waiter);
    for (const key of waiter.keys) {
      const set = this.waiters.get(key);
      set?.delete(waiter);
      if (set && set.size === 0) this.waiters.delete(key);
    }
  }

  /** The held watches: what each waits on and since when (epoch ms), oldest first, at most `limit`. */
  held(limit: number): { keys: readonly string[]; since: number }[] {
    const out: { keys: readonly string[]; since: number }[] = [];
    for (const w of this.all) {
      if (out.length >= limit) break;
      out.push({ keys: w.keys, since: w.since });
    }
    return out;
  }

  /** Ends every held watch as if it timed out (used on stop). */
  releaseAll(): void {
    for (const w of [...this.all]) w.finish("timeout");
  }
}
