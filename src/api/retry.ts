import type { Dispatcher, RetryHandler } from "undici";
import { errorCode, failedAtProxy, HANDSHAKE_FAILURE_CODES } from "./errors";
import type { ProxyChoice } from "./proxyChoice";
import { readRetryAfter, serviceClockOffset, waitLimitMs } from "./wait";

/** How idempotent requests (GET, DELETE) are retried. Every field has a default. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4, so at most 5 attempts). */
  maxRetries?: number;
  /** Backoff before the first retry, doubled for each further one (default 200 ms). */
  minDelayMs?: number;
  /** Cap of one computed backoff (default 10 000 ms). A server's `Retry-After` is not shortened by it. */
  maxDelayMs?: number;
  /** Cap of all waits of one call together (default 60 000 ms); a wait that would pass it ends the retries. */
  maxTotalDelayMs?: number;
}

/** {@link RetryPolicy} with every default filled in. */
export type ResolvedRetryPolicy = Required<RetryPolicy>;

/** Defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY_POLICY: ResolvedRetryPolicy = {
  maxRetries: 4,
  minDelayMs: 200,
  maxDelayMs: 10_000,
  maxTotalDelayMs: 60_000,
};

/** Methods that are safe to send twice. POST creates things, so it is never retried. */
export const RETRYABLE_METHODS: readonly Dispatcher.HttpMethod[] = ["GET", "DELETE"];

/** Answers worth another attempt: rate limited, or a transient server/gateway failure. */
export const RETRYABLE_STATUS_CODES: readonly number[] = [429, 500, 502, 503, 504];

/** Failures that never reached the service: the request certainly did not run. */
export const NOT_SENT_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETDOWN",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Connection failures and timeouts worth another attempt of an idempotent request. */
export const RETRYABLE_ERROR_CODES: ReadonlySet<string> = new Set([
  ...NOT_SENT_ERROR_CODES,
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Whether a failed request may have reached the service. Only failures that happen before a
 * connection exists (refused, DNS, connect timeout, a failed TLS handshake) prove it did not; a reset, a closed socket or
 * a read timeout after sending leave it open.
 */
export function mayHaveCommitted(err: unknown): boolean {
  const code = errorCode(err);
  return code === undefined || !(NOT_SENT_ERROR_CODES.has(code) || HANDSHAKE_FAILURE_CODES.has(code));
}

/**
 * A proxy's 502, 503 or 504 to CONNECT (undici: `Proxy response (503) !== 200 when HTTP Tunneling`): the
 * tunnel never opened, so nothing was sent, and it is as passing as the same status from the service.
 */
function proxyUnavailable(err: Error): boolean {
  return /^Proxy response \(50[234]\)/.test(err.message ?? "");
}

/** Fills in the defaults of a policy; `maxRetries` given outside the policy (config) comes second. */
export function resolveRetryPolicy(policy: RetryPolicy = {}, maxRetries?: number): ResolvedRetryPolicy {
  return {
    maxRetries: policy.maxRetries ?? maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    minDelayMs: policy.minDelayMs ?? DEFAULT_RETRY_POLICY.minDelayMs,
    maxDelayMs: policy.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxTotalDelayMs: policy.maxTotalDelayMs ?? DEFAULT_RETRY_POLICY.maxTotalDelayMs,
  };
}

/**
 * Parses a `Retry-After` value into the instant it names (epoch ms). The service sends an HTTP
 * date; delta seconds are accepted too. Unparseable values, and those past any date, give `undefined`.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
  clockOffset = 0,
): number | undefined {
  const at = readRetryAfter(value, now, clockOffset);
  return at === "beyond" ? undefined : at;
}

/**
 * Backoff before retry number `retry` (1-based): exponential from `minDelayMs`, capped at
 * `maxDelayMs`, with "equal jitter" (half fixed, half random) so that clients that failed together
 * do not come back together.
 */
export function backoffDelay(policy: ResolvedRetryPolicy, retry: number, random = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(base / 2 + random() * (base / 2));
}

/** What one retry decision was based on; handed to the client's event hook. */
export interface RetryNotice {
  /** Number of the attempt about to be sent (2 for the first retry). */
  attempt: number;
  /** Most attempts the policy allows (its `maxRetries` + 1): `attempt 2 of 5`. */
  maxAttempts: number;
  /** Wait before it, in ms. */
  delayMs: number;
  /** Status of the failed attempt, when it got an answer. */
  status?: number;
  /** Error code of the failed attempt, when it got none (e.g. `ECONNRESET`). */
  errorCode?: string;
}

/** Per-call state the retry callback shares with the transport. */
export interface RetryState {
  /** Retries made so far. */
  retries: number;
  /** Sum of the waits so far, in ms. */
  totalDelayMs: number;
  /** Whether any failed attempt may have reached the service. */
  mayHaveCommitted: boolean;
  /** Set once a response was handed to the caller: from then on nothing is retried. */
  responded: boolean;
  /** Set when a proxy refused an attempt (see createRetryCallback). */
  refusedByProxy?: boolean;
}

/** Inputs of {@link createRetryCallback}. */
export interface RetryCallbackInput {
  method: string;
  policy: ResolvedRetryPolicy;
  state: RetryState;
  signal?: AbortSignal | undefined;
  onRetry?: (notice: RetryNotice) => void;
  /** Epoch ms by which the whole call must end: a wait that would pass it ends the retries. */
  deadline?: number | undefined;
  /** The proxy the call goes through, if any. */
  proxy?: ProxyChoice | undefined;
  /** Source of jitter; tests pin it. */
  random?: () => number;
}

type RetryDecisionError = Error & { statusCode?: number; headers?: Record<string, string | string[]> };

/**
 * The per-call decision function for undici's retry interceptor: which failures to retry, how long
 * to wait (honouring `Retry-After`), and when to stop (attempt and total-wait caps, abort).
 */
export function createRetryCallback(input: RetryCallbackInput): RetryHandler.RetryCallback {
  const { method, policy, state, signal } = input;
  const random = input.random ?? Math.random;
  return (err, _context, callback) => {
    const failure = err as RetryDecisionError;
    const status = failure.statusCode;
    const code = errorCode(failure);
    const answered = status !== undefined;
    // A proxy that refused the attempt, or could not be reached, did not pass it on. A refusal can come twice,
    // the second time as a TypeError of undici's own (a refused answer's body fed to a request it already
    // failed): once refused, the attempt is not counted as one that reached the service.
    if (failedAtProxy(failure, input.proxy)) state.refusedByProxy = true;
    else if (!answered && mayHaveCommitted(failure) && !state.refusedByProxy) state.mayHaveCommitted = true;

    const giveUp = () => callback(err);
    if (signal?.aborted || state.responded) return giveUp();
    if (!RETRYABLE_METHODS.includes(method)) return giveUp();
    if (answered) {
      if (!RETRYABLE_STATUS_CODES.includes(status)) return giveUp();
    } else if ((code === undefined || !RETRYABLE_ERROR_CODES.has(code)) && !proxyUnavailable(failure)) {
      return giveUp();
    }
    if (state.retries >= policy.maxRetries) return giveUp();

    const retry = state.retries + 1;
    const backoff = backoffDelay(policy, retry, random);
    const now = Date.now();
    // The date is in the service's clock: its Date header says how far this machine's reads from it.
    const retryAt = answered
      ? readRetryAfter(failure.headers?.["retry-after"], now, serviceClockOffset(failure.headers?.date, now))
      : undefined;
    // A refusal past any date will not lift within this call.
    if (retryAt === "beyond") return giveUp();
    // A server-named instant is honoured as is (a shorter wait would only be refused again);
    // a small jitter spreads clients released at the same instant.
    const delayMs =
      retryAt !== undefined && retryAt > now
        ? retryAt - now + Math.round(random() * Math.min(100, policy.minDelayMs / 2))
        : backoff;
    // The wait must fit the total-wait budget, the call's deadline and a timer: else the last
    // answer is handed over now rather than after a sleep that cannot end in time.
    const limit = waitLimitMs({
      deadline: input.deadline,
      maxWaitMs: policy.maxTotalDelayMs - state.totalDelayMs,
      now,
    });
    if (delayMs > limit || (input.deadline !== undefined && now + delayMs >= input.deadline)) return giveUp();

    state.retries = retry;
    state.totalDelayMs += delayMs;
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      callback(null);
    }, delayMs);
    // An abort ends the wait at once. For an answered attempt the request is still open and undici
    // aborts it itself; a failed connection has nothing open, so the abort reason is handed over.
    function onAbort(): void {
      clearTimeout(timer);
      if (!answered) callback(signal?.reason instanceof Error ? signal.reason : err);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    // Told once the wait is armed: a listener that aborts the call on being told ends the wait at once.
    input.onRetry?.({
      attempt: retry + 1,
      maxAttempts: policy.maxRetries + 1,
      delayMs,
      ...(answered ? { status } : {}),
      ...(code !== undefined && !answered ? { errorCode: code } : {}),
    });
  };
}

/** Options of the retry interceptor composed on every dispatcher; each call adds its own callback. */
export const RETRY_INTERCEPTOR_DEFAULTS: RetryHandler.RetryOptions = {
  // Hand the final answer (with its body) to the caller instead of a bare RequestRetryError.
  throwOnError: false,
  methods: [...RETRYABLE_METHODS],
  statusCodes: [...RETRYABLE_STATUS_CODES],
  errorCodes: [...RETRYABLE_ERROR_CODES],
  maxRetries: DEFAULT_RETRY_POLICY.maxRetries,
  minTimeout: DEFAULT_RETRY_POLICY.minDelayMs,
  maxTimeout: DEFAULT_RETRY_POLICY.maxDelayMs,
};

/** Composes undici's retry interceptor on a dispatcher. */
export function withRetries(dispatcher: Dispatcher): Dispatcher {
  return dispatcher.compose(
    (require("undici") as typeof import("undici")).interceptors.retry(RETRY_INTERCEPTOR_DEFAULTS),
  );
}
