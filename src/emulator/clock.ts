/**
 * The emulator's wall clock: the one `now` every expiry, timestamp, watch index and rate-limit window reads,
 * which a test moves forward (`POST /__admin/clock`) to meet an hour-old export URL or an expired token
 * without waiting. Timers (placement delays, watch holds, the request time cap) keep real time: a jump is the
 * service's clock moving, not time passing.
 */
export class EmulatorClock {
  private offset = 0;

  constructor(private readonly base: () => number) {}

  /** Epoch milliseconds on the emulator's clock. */
  readonly now = (): number => this.base() + this.offset;

  /** How far the clock has been moved ahead of its base, in milliseconds. */
  get offsetMs(): number {
    return this.offset;
  }

  /** Moves the clock `ms` forward (never back: times already answered must not run backwards). */
  advance(ms: number): void {
    this.offset += ms;
  }
}

/**
 * The furthest ahead any instant the emulator names may lie (a `retry-after`, a clock moved forward): 100
 * years, so that it is always a valid HTTP date.
 */
export const FURTHEST_AHEAD_MS = 100 * 365.25 * 86_400_000;
