/**
 * How a data source calls the service, on both faces: how long it may wait for the service's
 * `Retry-After` in all, what the user is told while it waits, and the error when the wait would be longer.
 */
import type { ClientEvent, ClientOptions } from "../api/client";
import { GamehostApiError } from "../api/errors";

/**
 * Longest a data source waits for the service, over all its retries (ms). The service counts requests
 * in fixed 15-minute windows and its 429's `Retry-After` names the end of the window
 * (docs/service-contract.md §8): every call before that instant is refused, so the only retry that can
 * succeed is the one at the window's end, which may be up to 15 minutes away. A program's data source
 * holds up a preview the user is watching: it waits for a window that ends within 30 s (saying so), and
 * otherwise fails at once naming the instant, so the user can run it again then.
 */
export const DATA_SOURCE_MAX_WAIT_MS = 30_000;

/** A retry wait shorter than this is not worth a message (the backoff of a transient 5xx). */
const QUIET_WAIT_MS = 1_000;

/** What the user is told while a data source waits for a retry, or `undefined` for a short or other event. */
export function retryMessage(event: ClientEvent): string | undefined {
  if (event.type !== "retry" || event.delayMs === undefined) return undefined;
  if (event.status !== 429 && event.delayMs < QUIET_WAIT_MS) return undefined;
  const why =
    event.status === 429
      ? "rate limited by the service"
      : event.status !== undefined
        ? `the service answered ${event.status}`
        : `no answer from the service (${event.errorCode ?? "connection failed"})`;
  const of = event.maxAttempts !== undefined ? ` of ${event.maxAttempts}` : "";
  const seconds = Math.max(1, Math.ceil(event.delayMs / 1000));
  return `${event.method} ${event.path}: ${why}; retrying in ${seconds} s (attempt ${event.attempt}${of})`;
}

/**
 * `warn`, saying a wait once however many data sources meet it: those of a program refused by one
 * rate-limit window (a lookup per server in a loop of 100) each wait for the window's end, told in the same
 * words but for the seconds left (counted from each one's refusal), which printed 100 identical warnings.
 * A wait told is not told again until it has ended; a refusal after that is a new wait. `now`: the clock
 * (tests pin it).
 */
export function warnOnce(
  warn: (message: string) => void,
  now: () => number = Date.now,
): (message: string) => void {
  /** Until when each wait told runs (epoch ms), by its words less the seconds. */
  const told = new Map<string, number>();
  return (message) => {
    const at = now();
    const seconds = /\bretrying in (\d+) s\b/.exec(message)?.[1];
    const key = message.replace(/\bretrying in \d+ s\b/, "retrying in N s");
    const until = told.get(key);
    if (until !== undefined && at < until) return;
    // Bounded: only the waits still running matter.
    if (told.size >= 256) for (const [text, end] of told) if (at >= end) told.delete(text);
    told.set(key, at + (seconds !== undefined ? Number(seconds) * 1000 : DATA_SOURCE_MAX_WAIT_MS));
    warn(message);
  };
}

/**
 * Client options of a data source's calls: the total wait bounded by {@link DATA_SOURCE_MAX_WAIT_MS}, and
 * each noticeable wait told through `warn` (a Pulumi warning on either face), so a 429 is never a silence.
 */
export function dataSourceClientOptions(
  warn: (message: string) => void,
): Required<Pick<ClientOptions, "retry" | "onEvent">> {
  return {
    retry: { maxTotalDelayMs: DATA_SOURCE_MAX_WAIT_MS },
    onEvent: (event) => {
      const message = retryMessage(event);
      if (message !== undefined) warn(message);
    },
  };
}

/**
 * A data source's failure as the user reads it: a 429 left over after the waits says which endpoint
 * refused, until when (the service's `Retry-After`), and why the data source did not wait for it. The
 * error stays a {@link GamehostApiError} (status, code and `retryAfterMs` kept for code that catches it).
 */
export function dataSourceFailure(error: unknown, now = Date.now()): unknown {
  if (!(error instanceof GamehostApiError) || error.status !== 429) return error;
  const endpoint = `${error.method} ${error.path}`;
  const until = error.retryAfterMs;
  const limitS = DATA_SOURCE_MAX_WAIT_MS / 1000;
  const cause =
    until === undefined
      ? `The service rate-limits ${endpoint} and names no time to retry (no Retry-After)`
      : until - now > DATA_SOURCE_MAX_WAIT_MS
        ? `The service rate-limits ${endpoint} until ${new Date(until).toISOString()} (Retry-After, in ${Math.ceil((until - now) / 1000)} s), longer than a data source waits (${limitS} s in all)`
        : `The service still rate-limits ${endpoint} after the retries a data source makes (Retry-After ${new Date(until).toISOString()})`;
  const when = until === undefined ? "later" : "after that time";
  // Restated in place: the error keeps its class and fields, and the client's redaction.
  error.restate(
    `${cause}: run it again ${when}, or make fewer calls (read it once and reuse the result: the service counts calls, and a lower --parallel makes no fewer).`,
  );
  return error;
}
