/** The service's error codes (docs/service-contract.md §2) and the groups the client tells apart. */

/** Error codes the service sends (docs/service-contract.md §2). */
export const ERROR_CODES = {
  unauthorized: "API_UNAUTHORIZED",
  missingEntitlement: "CLAIMS_MISSING_ENTITLEMENT",
  entitlementExpired: "CLAIMS_ENTITLEMENT_EXPIRED",
  tokenInvalid: "TOKEN_INVALID",
  forbidden: "API_FORBIDDEN",
  methodNotAllowed: "API_METHOD_NOT_ALLOWED",
  groupNotMember: "GROUP_NOT_MEMBER",
  notFound: "API_NOT_FOUND",
  badBody: "API_BAD_BODY",
  badQuery: "API_BAD_QUERY",
  badQueryParameter: "API_BAD_QUERY_PARAMETER",
  gameNotFound: "GAME_NOT_FOUND",
  environmentNotFound: "GAME_ENVIRONMENT_NOT_FOUND",
  serverNotFound: "SERVERS_SERVER_NOT_FOUND",
  buildNotFound: "BUILDS_BUILD_NOT_FOUND",
  datacenterNotFound: "CLUSTER_DATACENTER_NOT_FOUND",
  mustSpecifyRoutingType: "SERVERS_MUST_SPECIFY_ROUTING_TYPE",
  unsupportedHostProtocol: "SERVERS_UNSUPPORTED_HOST_PROTOCOL",
  serverFailedToCreate: "SERVERS_SERVER_FAILED_TO_CREATE",
  billingNotEnabled: "BILLING_NOT_ENABLED",
  rateLimit: "API_RATE_LIMIT",
  requestTimeout: "API_REQUEST_TIMEOUT",
  /** The emulator's only: a change it could not write to its state file, so did not make; retryable. */
  stateNotSaved: "EMULATOR_STATE_NOT_SAVED",
  internal: "ERROR",
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export const AUTH_CODES: ReadonlySet<string> = new Set([
  ERROR_CODES.unauthorized,
  ERROR_CODES.missingEntitlement,
  ERROR_CODES.entitlementExpired,
  ERROR_CODES.tokenInvalid,
]);

/** Not-found is a 400 with one of these codes; 404 means the route itself does not exist. */
export const NOT_FOUND_CODES: ReadonlySet<string> = new Set([
  ERROR_CODES.gameNotFound,
  ERROR_CODES.environmentNotFound,
  ERROR_CODES.serverNotFound,
  ERROR_CODES.buildNotFound,
  ERROR_CODES.datacenterNotFound,
]);
