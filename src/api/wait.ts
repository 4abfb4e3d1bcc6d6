/**
 * Bounded waiting: every wait of this package goes through here, so none can outlast the operation
 * it belongs to, nor overflow `setTimeout` (which fires after 1 ms for any delay above 2^31-1 ms).
 */
import { GamehostRetryAfterError } from "./errors";

/** The longest delay `setTimeout` honours (about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The largest instant a `Date` can hold (epoch ms, year 275760). */
const MAX_DATE_MS = 8.64e15;

/** Longest wait for a named instant when the operation has no deadline of its own (the dynamic face). */
export const DEFAULT_MAX_WAIT_MS = 60_000;

/**
 * What a `Retry-After` value names: an instant (epoch ms), `"beyond"` when it is a valid value
 * naming a time no date can hold (`99999999999999999999`), or `undefined` when absent or unreadable.
 */
export type RetryAfterInstant = number | "beyond" | undefined;

/**
 * How far apart two clocks may read and still be taken as agreeing (ms): an HTTP `Date` header says
 * whole seconds only, and the answer took time to arrive.
 */
export const CLOCK_TOLERANCE_MS = 2_000;

/** The instant (epoch ms) an HTTP date names, or `undefined` for text that is none. */
function httpDate(text: string): number | undefined {
  // An HTTP date names its month; this keeps Date.parse from reading a bare number ("-5") as a year.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * How far this machine's clock reads ahead of the service's (ms; negative when behind), from the `Date`
 * header of one of its answers; 0 when they agree within {@link CLOCK_TOLERANCE_MS}, or without a readable
 * header. An instant the service names (a `Retry-After` date, a rate limit's `metadata`) is in its own
 * clock: adding this gives the same instant in this machine's. The header is truncated to the second, so
 * the offset errs late, never early (a wait is never shortened, which would only be refused again).
 */
export function serviceClockOffset(date: string | readonly string[] | undefined, now = Date.now()): number {
  const text = (typeof date === "string" ? date : date?.[0])?.trim();
  const serviceNow = text ? httpDate(text) : undefined;
  if (serviceNow === undefined) return 0;
  const offset = now - serviceNow;
  return Math.abs(offset) <= CLOCK_TOLERANCE_MS ? 0 : offset;
}

/**
 * Reads a `Retry-After` value (delta seconds or an HTTP date; the first of repeated headers).
 * The service sends an HTTP date; delta seconds are accepted too. `clockOffset`
 * ({@link serviceClockOffset}) moves an HTTP date from the service's clock into this machine's.
 */
export function readRetryAfter(
  value: string | readonly string[] | undefined,
  now = Date.now(),
  clockOffset = 0,
): RetryAfterInstant {
  const raw = typeof value === "string" ? value : value?.[0];
  const text = raw?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const at = now + Math.round(Number(text) * 1000);
    return Number.isFinite(at) && at <= MAX_DATE_MS ? at : "beyond";
  }
  const at = httpDate(text);
  if (at !== undefined) return Math.min(at + clockOffset, MAX_DATE_MS);
  // A well-formed date past year 275760 ("Fri, 01 Jan 300000 00:00:00 GMT") is a refusal without end.
  return /\b\d{6,}\b/.test(text) && /[a-z]{3}/i.test(text) ? "beyond" : undefined;
}

/**
 * The longest wait (ms) that fits: the caller's own cap, the time left before `deadline`, and what
 * `setTimeout` can hold. Never negative.
 */
export function waitLimitMs(o: { deadline?: number | undefined; maxWaitMs?: number; now?: number }): number {
  const now = o.now ?? Date.now();
  const toDeadline = o.deadline !== undefined ? o.deadline - now : Number.POSITIVE_INFINITY;
  return Math.max(0, Math.min(o.maxWaitMs ?? DEFAULT_MAX_WAIT_MS, toDeadline, MAX_TIMER_MS));
}

/** Inputs of {@link retryAfterWait}. */
export interface RetryAfterWaitInput {
  /** What the service refused, e.g. `POST /games/{game_id}/environments/{environment_id}/servers`. */
  what: string;
  /** The raw `Retry-After` header: delta seconds or an HTTP date, any size. */
  retryAfter?: string | readonly string[] | undefined;
  /**
   * The instant already known (epoch ms), e.g. `GamehostApiError.retryAfterMs` (which prefers the
   * service's metadata); wins over `retryAfter`.
   */
  retryAt?: number | undefined;
  /** Wait when the service names no instant (ms, default 0). */
  fallbackMs?: number;
  /** Epoch ms by which the operation must end (`OperationContext.deadline`); none on the dynamic face. */
  deadline?: number | undefined;
  /**
   * Longest wait, deadline or not. Default: {@link DEFAULT_MAX_WAIT_MS} without a deadline, none
   * beyond the deadline with one. Never more than {@link MAX_TIMER_MS}.
   */
  maxWaitMs?: number;
  /** How to give the operation more time, e.g. `the customTimeouts of the resource`. */
  raise?: string;
  /** The current time (epoch ms); tests pin it. */
  now?: number;
}

/** A wait that fits (`waitMs`, safe for `setTimeout`), or why none does (`error`, to throw). */
export type RetryAfterWait =
  | { waitMs: number; error?: undefined }
  | { waitMs?: undefined; error: GamehostRetryAfterError };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * How long to wait before trying again after a refusal that names when to come back (a 429's
 * `Retry-After`), bounded by the operation's deadline and `maxWaitMs`: a wait that fits, or at once
 * an error saying until when the service refuses and how to proceed. Dates of any size are handled.
 */
export function retryAfterWait(input: RetryAfterWaitInput): RetryAfterWait {
  const now = input.now ?? Date.now();
  const maxWaitMs =
    input.maxWaitMs ?? (input.deadline === undefined ? DEFAULT_MAX_WAIT_MS : Number.POSITIVE_INFINITY);
  const known = input.retryAt;
  const at: RetryAfterInstant =
    known !== undefined && Number.isFinite(known)
      ? Math.min(known, MAX_DATE_MS)
      : readRetryAfter(input.retryAfter, now);
  const how = input.raise ? `, or raise ${input.raise}` : "";
  if (at === "beyond") {
    const raw = typeof input.retryAfter === "string" ? input.retryAfter : input.retryAfter?.[0];
    return {
      error: new GamehostRetryAfterError(
        `The service refuses ${input.what} for longer than any date can say (Retry-After ${JSON.stringify(raw)}): ask the service's operator when the limit lifts, then run it again.`,
        undefined,
      ),
    };
  }
  const wantMs = Math.ceil(at !== undefined ? Math.max(0, at - now) : Math.max(0, input.fallbackMs ?? 0));
  const limit = waitLimitMs({ deadline: input.deadline, maxWaitMs, now });
  if (wantMs <= limit) return { waitMs: wantMs };
  const until = at ?? now + wantMs;
  const beyond =
    input.deadline !== undefined && input.deadline - now <= Math.min(maxWaitMs, MAX_TIMER_MS)
      ? `past this operation's deadline (${iso(input.deadline)})`
      : `longer than the longest wait of ${Math.round(Math.min(maxWaitMs, MAX_TIMER_MS) / 1000)}s`;
  return {
    error: new GamehostRetryAfterError(
      `The service refuses ${input.what} until ${iso(until)}, ${beyond}: run it again after that time${how}.`,
      until,
    ),
  };
}

/**
 * Sleeps `ms` (clamped to what `setTimeout` can hold); rejects with the reason at once when
 * `signal` aborts.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, Math.min(ms, MAX_TIMER_MS)),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
