/** A request under the time cap: `expire` runs once if it is still in flight at its deadline. */
export interface Capped {
  /** Monotonic deadline (`performance.now()` ms). */
  readonly deadline: number;
  expire(): void;
}

/**
 * The request time cap for every in-flight request, with one timer in all instead of a timer per
 * request. Every request gets the same cap, so requests enter in deadline order: the timer only ever
 * needs to wait for the oldest one, and a sweep stops at the first request not yet due.
 */
export class TimeCap {
  private readonly live = new Set<Capped>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly capMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Deadline of a request starting now. */
  deadlineFromNow(): number {
    return performance.now() + this.capMs;
  }

  /** Puts a request under the cap; {@link end} takes it off again. */
  start(request: Capped): void {
    this.live.add(request);
    if (this.timer === undefined) this.arm(request.deadline);
  }

  /** The request was answered (or dropped): it no longer needs the cap. */
  end(request: Capped): void {
    this.live.delete(request);
  }

  /** Requests under the cap now. */
  get size(): number {
    return this.live.size;
  }

  /** Forgets every request and stops the timer (on stop). */
  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.live.clear();
  }

  private arm(deadline: number): void {
    // The sockets of in-flight requests keep the process alive; this timer need not.
    this.timer = setTimeout(() => this.sweep(), Math.max(1, Math.ceil(deadline - performance.now())));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const request of this.live) {
      if (request.deadline > now) {
        this.arm(request.deadline);
        return;
      }
      this.live.delete(request);
      // One failing expiry must neither skip the others nor escape from a timer callback.
      try {
        request.expire();
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
