/**
 * Typed HTTP client of the hosting API (`pulumi-gamehost/api`): the client, its wire schemas,
 * errors, configuration and validation helpers.
 */
export * from "./client";
export * from "./config";
export * from "./errors";
export * from "./issues";
export type { ResolvedRetryPolicy, RetryNotice } from "./retry";
export { DEFAULT_RETRY_POLICY, parseRetryAfter, RETRYABLE_STATUS_CODES } from "./retry";
export * from "./schemas";
export type { ResolvedTimeouts } from "./transport";
export { closeSharedDispatchers, DEFAULT_TIMEOUTS } from "./transport";
export { parseWith, toFieldIssues } from "./validate";
export {
  DEFAULT_MAX_WAIT_MS,
  MAX_TIMER_MS,
  type RetryAfterWait,
  type RetryAfterWaitInput,
  retryAfterWait,
  sleep,
  waitLimitMs,
} from "./wait";
export { DEFAULT_WATCH_PACING, type Watched, type WatchPacing, watchVersions } from "./watch";
