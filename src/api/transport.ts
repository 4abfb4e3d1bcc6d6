import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import {
  failedAtProxy,
  GamehostNetworkError,
  GamehostResponseTooLargeError,
  type SettingOrigins,
} from "./errors";
import { type ProxyChoice, type ProxyEnvironment, proxyEnvironment, proxyingDispatcher } from "./proxy";
import {
  createRetryCallback,
  mayHaveCommitted,
  type ResolvedRetryPolicy,
  type RetryNotice,
  type RetryState,
  withRetries,
} from "./retry";

// undici is loaded by the first request, not with the client: a plugin's preview that sends none, and a
// program that loads the package, skip its start-up (tens of ms on every `preview` and `up`).
const undici = () => require("undici") as typeof import("undici");

/** Time limits of one attempt, in ms. */
export interface Timeouts {
  /** Establishing the TCP/TLS connection (default 10 000). */
  connectMs?: number;
  /** Waiting for response headers of an ordinary request (default 30 000, or `requestTimeoutMs`). */
  headersMs?: number;
  /** Idle time between body chunks (default 30 000). */
  bodyMs?: number;
  /** Waiting for headers of a watch (long-poll) request: must exceed the service's 40 s hold (default 70 000). */
  watchHeadersMs?: number;
}

/** {@link Timeouts} with every default filled in. */
export type ResolvedTimeouts = Required<Timeouts>;

/** Defaults of {@link Timeouts}. */
export const DEFAULT_TIMEOUTS: ResolvedTimeouts = {
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
  watchHeadersMs: 70_000,
};

/** Fills in the defaults; `requestTimeoutMs` (config) stands in for `headersMs` when that is not given. */
export function resolveTimeouts(timeouts: Timeouts = {}, requestTimeoutMs?: number): ResolvedTimeouts {
  return {
    connectMs: timeouts.connectMs ?? DEFAULT_TIMEOUTS.connectMs,
    headersMs: timeouts.headersMs ?? requestTimeoutMs ?? DEFAULT_TIMEOUTS.headersMs,
    bodyMs: timeouts.bodyMs ?? DEFAULT_TIMEOUTS.bodyMs,
    watchHeadersMs: timeouts.watchHeadersMs ?? DEFAULT_TIMEOUTS.watchHeadersMs,
  };
}

/**
 * Something that happened to a call, for logging and metrics. It carries the method and the path
 * (never the query, the token or a body), so it is safe to log.
 */
export interface ClientEvent {
  /** `request`: a call is sent; `retry`: an attempt failed and another follows; `response`: the final answer. */
  type: "request" | "retry" | "response";
  method: string;
  /** Path of the call, without query string. */
  path: string;
  /** HTTP status of the final answer (`response`) or of the failed attempt (`retry`). */
  status?: number;
  /** `retry`: number of the attempt about to be sent (2 for the first retry); `response`: attempts made. */
  attempt?: number;
  /** `retry`: most attempts the call may make (`attempt` of `maxAttempts`). */
  maxAttempts?: number;
  /** `retry`: wait before the next attempt, in ms. */
  delayMs?: number;
  /** `retry`: error code of a failed attempt that got no answer (e.g. `ECONNRESET`). */
  errorCode?: string;
}

const sharedAgents = new Map<string, Dispatcher>();

/**
 * The process-wide keep-alive dispatcher (one per connect timeout and proxy environment), with undici's
 * retry interceptor composed on it. It honours `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` as Go-based
 * Pulumi providers do (see proxy.ts), for every request the package makes. Created on first use, so
 * importing this package opens nothing.
 */
export function sharedDispatcher(
  connectMs = DEFAULT_TIMEOUTS.connectMs,
  proxies: ProxyEnvironment = proxyEnvironment(),
): Dispatcher {
  const key = `${connectMs} ${proxies.http?.uri ?? ""} ${proxies.https?.uri ?? ""} ${proxies.noProxy}`;
  let dispatcher = sharedAgents.get(key);
  if (!dispatcher) {
    dispatcher = withRetries(proxyingDispatcher(undici(), proxies, connectMs));
    sharedAgents.set(key, dispatcher);
  }
  return dispatcher;
}

/** Closes the shared dispatchers (their idle keep-alive sockets). Later calls create new ones. */
export async function closeSharedDispatchers(): Promise<void> {
  const agents = [...sharedAgents.values()];
  sharedAgents.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}

/** One call, as the transport sends it. */
export interface TransportRequest {
  method: "GET" | "POST" | "DELETE";
  url: URL;
  /** Path named in errors and events: the URL's path without query (which may hold secrets). */
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal | undefined;
  headersTimeoutMs: number;
  /**
   * The client option that set `headersTimeoutMs`, when it is not requestTimeoutMs (a watch call's
   * `timeouts.watchHeadersMs`, an explicit `timeouts.headersMs`): a timeout's error names it.
   */
  headersTimeoutOption?: string | undefined;
  bodyTimeoutMs: number;
  retry: ResolvedRetryPolicy;
  /** Epoch ms by which the whole call must end: retries that cannot fit are not made. */
  deadline?: number | undefined;
  onRetry?: (notice: RetryNotice) => void;
  /** Where the base URL was set, so that a no-answer error names that place (not Pulumi config). */
  origins?: SettingOrigins | undefined;
  /** The proxy this request goes through, so that an error names it when it is the proxy that failed. */
  proxy?: ProxyChoice | undefined;
}

/** An answer with its body still unread. */
export interface TransportResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable & { text(): Promise<string> };
  /** Attempts made, the final one included. */
  attempts: number;
  /** The proxy it came through, if any: a page that is not the service's may be the proxy's. */
  proxy?: ProxyChoice | undefined;
}

/** Whether `err` is the abort of `signal` (the caller's own doing, passed on unchanged). */
export function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && (err === signal.reason || errorName(err) === "AbortError");
}

function errorName(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}

/**
 * Sends one call through `dispatcher` (which has the retry interceptor composed on it), retrying
 * per `req.retry`. Resolves with the final answer, whatever its status; rejects with a
 * {@link GamehostNetworkError} when no answer came, or with the abort reason when `req.signal` fired.
 */
export async function send(dispatcher: Dispatcher, req: TransportRequest): Promise<TransportResponse> {
  const state: RetryState = { retries: 0, totalDelayMs: 0, mayHaveCommitted: false, responded: false };
  const retryOptions = {
    retry: createRetryCallback({
      method: req.method,
      policy: req.retry,
      state,
      signal: req.signal,
      deadline: req.deadline,
      proxy: req.proxy,
      ...(req.onRetry ? { onRetry: req.onRetry } : {}),
    }),
  };
  // `retryOptions` is read by the retry interceptor from the dispatch options; undici's request()
  // passes unknown options through to dispatch, but its types do not declare this one.
  const options: Parameters<typeof import("undici").request>[1] & { retryOptions: typeof retryOptions } = {
    dispatcher,
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    signal: req.signal,
    headersTimeout: req.headersTimeoutMs,
    bodyTimeout: req.bodyTimeoutMs,
    retryOptions,
  };
  try {
    const res = await undici().request(req.url, options);
    state.responded = true;
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body,
      attempts: state.retries + 1,
      ...(req.proxy ? { proxy: req.proxy } : {}),
    };
  } catch (err) {
    if (isAbort(err, req.signal)) throw req.signal?.reason ?? err;
    // A proxy that refused the request, or could not be reached, did not pass it on.
    const committedNow = mayHaveCommitted(err) && !failedAtProxy(err, req.proxy);
    throw new GamehostNetworkError(
      req.method,
      req.path,
      err,
      state.mayHaveCommitted || committedNow,
      req.url.origin,
      req.origins,
      req.headersTimeoutOption,
      req.proxy,
    );
  }
}

/**
 * Reads a whole body as text, at most `maxBytes` of it: a longer answer (declared or streamed) is
 * dropped unread beyond the cap, with a {@link GamehostResponseTooLargeError}. A failure while
 * reading (reset, body timeout) means the call ran but its answer was lost, so it becomes a
 * {@link GamehostNetworkError} that may have committed.
 */
export async function readText(
  res: TransportResponse,
  method: string,
  path: string,
  signal: AbortSignal | undefined,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<string> {
  const tooLarge = () => {
    // undici ends a body destroyed before its end with an 'error' event (RequestAbortedError) even when
    // it had arrived whole; unheard, that event is an uncaught exception that ended the user's program.
    res.body.on("error", () => {});
    res.body.destroy();
    return new GamehostResponseTooLargeError(method, path, maxBytes);
  };
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
    // undici hands the keep-alive socket back to its pool a tick after the body ends; a caller that
    // sends its next request at once (list, then create) would otherwise open a second connection.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // TextDecoder drops a leading byte-order mark, as undici's body.text() does.
    return new TextDecoder().decode(Buffer.concat(chunks));
  } catch (err) {
    if (err instanceof GamehostResponseTooLargeError) throw err;
    if (isAbort(err, signal)) throw signal?.reason ?? err;
    throw new GamehostNetworkError(method, path, err, true);
  }
}
