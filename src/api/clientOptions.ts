/**
 * The options of a {@link GamehostClient} and of its calls, and the checks of what a caller passed: a name that is
 * no option, a number that is negative. Each is named with what is allowed.
 */
import type { Dispatcher } from "undici";
import type { GamehostClient } from "./client";
import type { ConnectionSettings } from "./config";
import type { GamehostDeadlineError } from "./errors";
import type { FieldIssue } from "./issues";
import type { RetryPolicy } from "./retry";
import type { ClientEvent, Timeouts } from "./transport";
import type { WatchPacing } from "./watch";

/** Options of a {@link GamehostClient}. Explicit values win over `GAMEHOST_*` environment variables. */
export interface ClientOptions extends ConnectionSettings {
  /** Retry policy of idempotent calls (GET, DELETE). `maxRetries` here wins over the top-level one. */
  retry?: RetryPolicy;
  /** Time limits of each attempt. */
  timeouts?: Timeouts;
  /** Appended to the `User-Agent` header, after `pulumi-gamehost/<version>`. */
  userAgent?: string;
  /**
   * Dispatcher to send through (undici's retry interceptor is composed on it; its own connect
   * timeout applies). Default: one shared keep-alive Agent per process, created on first use.
   */
  dispatcher?: Dispatcher;
  /** Called for each request, retry and final response. Events never carry the token, a query or a body. */
  onEvent?: (event: ClientEvent) => void;
}

/** Options of one call. */
export interface RequestOptions {
  /** Aborts the call; the returned promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of {@link GamehostClient.openExport}. */
export interface ExportOptions extends RequestOptions {
  /**
   * The call's deadline (`callTimeoutMs`) covers reading the whole body too, not only getting the answer:
   * for a caller with no other way to end an endless download (no signal that ever fires). The stream then
   * fails with a {@link GamehostDeadlineError}.
   */
  wholeBody?: boolean;
}

/** Options of a call to a watchable endpoint. */
export interface WatchableOptions extends RequestOptions {
  /**
   * `watch.index` of an earlier answer: the service holds the call until the data changes (at most
   * 40 s) and then answers with the current data. Without it the call answers at once.
   */
  watchIndex?: string;
}

/** Options of a watch loop (`watchGames`, `watchGame`, `watchGroupBilling`). */
export interface WatchOptions extends RequestOptions, WatchPacing {}

function nonNegativeOption(issues: FieldIssue[], path: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    // A string "3" printed bare reads as if the number 3 had been refused.
    const got = typeof value === "string" ? `${JSON.stringify(value)} (a string)` : String(value);
    issues.push({ path, message: `must be a non-negative number, got ${got}` });
  }
}

/**
 * Every option's name, kept in step with the interfaces by `satisfies`. A name that is not one of them
 * (`baseURL`, `timeout`, `retries` from another client's options, reaching us from JavaScript or a loosely
 * typed object) would otherwise be dropped, and the setting the caller meant silently not made.
 */
const CLIENT_OPTION_NAMES = {
  baseUrl: true,
  token: true,
  maxRetries: true,
  requestTimeoutMs: true,
  callTimeoutMs: true,
  maxResponseBytes: true,
  retry: true,
  timeouts: true,
  userAgent: true,
  dispatcher: true,
  onEvent: true,
  origins: false, // internal: recorded by readSettings, never written by hand
} satisfies Record<keyof ClientOptions, boolean>;
const RETRY_OPTION_NAMES = {
  maxRetries: true,
  minDelayMs: true,
  maxDelayMs: true,
  maxTotalDelayMs: true,
} satisfies Record<keyof RetryPolicy, true>;
const TIMEOUT_OPTION_NAMES = {
  connectMs: true,
  headersMs: true,
  bodyMs: true,
  watchHeadersMs: true,
} satisfies Record<keyof Timeouts, true>;

function unknownOptions(
  issues: FieldIssue[],
  prefix: string,
  given: object | undefined,
  names: Record<string, boolean>,
): void {
  if (typeof given !== "object" || given === null) return;
  const shown = Object.keys(names).filter((name) => names[name]);
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(names, key))
      issues.push({ path: `${prefix}${key}`, message: `is not a known option (known: ${shown.join(", ")})` });
  }
}

/** Option names that are none of the client's (`baseURL`, `timeout`), at the top and in `retry` and `timeouts`. */
export function unknownOptionIssues(options: ClientOptions): FieldIssue[] {
  const issues: FieldIssue[] = [];
  unknownOptions(issues, "", options, CLIENT_OPTION_NAMES);
  unknownOptions(issues, "retry.", options.retry, RETRY_OPTION_NAMES);
  unknownOptions(issues, "timeouts.", options.timeouts, TIMEOUT_OPTION_NAMES);
  return issues;
}

/** Numeric options that are negative or no number, each named by its path (`retry.minDelayMs`). */
export function negativeNumberIssues(options: ClientOptions): FieldIssue[] {
  const issues: FieldIssue[] = [];
  nonNegativeOption(issues, "maxRetries", options.maxRetries);
  nonNegativeOption(issues, "requestTimeoutMs", options.requestTimeoutMs);
  nonNegativeOption(issues, "callTimeoutMs", options.callTimeoutMs);
  nonNegativeOption(issues, "maxResponseBytes", options.maxResponseBytes);
  for (const [key, value] of Object.entries(options.retry ?? {}))
    nonNegativeOption(issues, `retry.${key}`, value);
  for (const [key, value] of Object.entries(options.timeouts ?? {}))
    nonNegativeOption(issues, `timeouts.${key}`, value);
  return issues;
}
