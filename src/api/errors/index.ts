/**
 * The errors this package throws, one module per kind of failure: the service's answer (apiError), no answer
 * (networkError, its proxy and TLS cases), a value off the schema (validationError), a setting (configError).
 * Each message names the cause and the fix; settingAdvice says where a setting is changed.
 */
export { type ApiErrorInit, GamehostApiError } from "./apiError";
export { causeOf, GamehostError, requestOf, withMessageAsStack } from "./base";
export { ERROR_CODES, type ErrorCode, NOT_FOUND_CODES } from "./codes";
export { GamehostConfigError } from "./configError";
export { errorCode, HANDSHAKE_FAILURE_CODES, PROXY_TUNNEL_FAILURE } from "./connectionCodes";
export { GamehostDeadlineError, GamehostNetworkError, GamehostResponseTooLargeError } from "./networkError";
export { failedAtProxy } from "./proxyFailure";
export { GamehostRetryAfterError } from "./retryAfterError";
export { notTheApiAdvice, type SettingOrigins, type SettingSource } from "./settingAdvice";
export { GamehostValidationError } from "./validationError";
