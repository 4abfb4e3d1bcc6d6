/**
 * Typed HTTP client of the hosting API (`pulumi-gamehost/api`): the client, the wire types (plain
 * declarations, snake_case as on the wire), errors and configuration. Nothing declared here needs zod's
 * typings; the zod schemas, and the helpers that take a schema, are `pulumi-gamehost/api/schemas`.
 */
export * from "./client";
export * from "./config";
export * from "./errors";
export type * from "./generated/wire";
export * from "./issues";
export type { ResolvedRetryPolicy, RetryNotice } from "./retry";
export { DEFAULT_RETRY_POLICY, parseRetryAfter, RETRYABLE_STATUS_CODES } from "./retry";
export type { ResolvedTimeouts } from "./transport";
export { closeSharedDispatchers, DEFAULT_TIMEOUTS } from "./transport";
export {
  DEFAULT_MAX_WAIT_MS,
  MAX_TIMER_MS,
  type RetryAfterWait,
  type RetryAfterWaitInput,
  retryAfterWait,
  serviceClockOffset,
  sleep,
  waitLimitMs,
} from "./wait";
export { DEFAULT_WATCH_PACING, type Watched, type WatchPacing, watchVersions } from "./watch";
