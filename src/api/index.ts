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
export { type Watched, watchVersions } from "./watch";
