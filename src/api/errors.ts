import type { FieldIssue } from "./issues";
import { describeIssues } from "./issues";

/** Error codes the service sends (service-facts §2). */
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
  internal: "ERROR",
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

const AUTH_CODES: ReadonlySet<string> = new Set([
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

/** Base class of every error this package throws. */
export class GamehostError extends Error {
  override name = "GamehostError";
}

const SET_TOKEN =
  "set gamehost:token (`pulumi config set --secret gamehost:token <token>`) or the GAMEHOST_TOKEN environment variable";

/** Ids by their wire names, as far as the request named them. */
type RequestIds = Readonly<Record<string, string>>;

/** Which id a not-found code is about, and what to do about it. */
function notFoundAdvice(code: string, ids: RequestIds): string {
  const { game_id: game, environment_id: environment, server_id: server, datacenter, build } = ids;
  const inEnvironment = environment ? ` in environment ${environment}` : "";
  switch (code) {
    case ERROR_CODES.gameNotFound:
      if (game) return `Game ${game} does not exist: check the game id.`;
      break;
    case ERROR_CODES.environmentNotFound:
      if (environment)
        return `Environment ${environment} does not exist${game ? ` in game ${game}` : ""}: check the environment id (the game's namespace ids are its environment ids).`;
      break;
    case ERROR_CODES.serverNotFound:
      if (server)
        return `Server ${server} does not exist${inEnvironment}: check the server id, and that it belongs to this environment.`;
      break;
    case ERROR_CODES.buildNotFound:
      if (build)
        return `Build ${build} does not exist${inEnvironment}: check runtime.build against the environment's builds (listBuilds).`;
      break;
    case ERROR_CODES.datacenterNotFound:
      if (datacenter)
        return `Datacenter ${datacenter} is not one of ${game ? `game ${game}'s` : "the game's"} datacenters: check datacenter against listDatacenters.`;
      break;
  }
  return "Check the ids: one does not exist or belongs to another game or environment.";
}

/** What the caller should do about a service error, in one sentence. */
function adviceFor(
  status: number,
  code: string,
  retryAfterMs: number | undefined,
  ids: RequestIds,
): string | undefined {
  switch (code) {
    case ERROR_CODES.entitlementExpired:
      return `The token has expired: ${SET_TOKEN} to a current token.`;
    case ERROR_CODES.tokenInvalid:
      return `The token is not valid (mistyped, revoked, or from another deployment): ${SET_TOKEN} to a valid token.`;
    case ERROR_CODES.missingEntitlement:
      return `The token is not entitled to this (a cloud token of another game, or one that cannot use this route): ${SET_TOKEN} to a user token of a member of the game's group, or a cloud token of this game.`;
    case ERROR_CODES.groupNotMember:
      return "The token's identity is not a member of the group that owns this: ask an owner of the group to add it, or use a member's token.";
    case ERROR_CODES.forbidden:
      return "The token is valid but may not do this: use a user token of a member of the group, or a cloud token of this game.";
  }
  if (AUTH_CODES.has(code) || status === 401) {
    return `No valid token was sent: ${SET_TOKEN}.`;
  }
  if (NOT_FOUND_CODES.has(code)) return notFoundAdvice(code, ids);
  if (code === ERROR_CODES.rateLimit || status === 429) {
    const when = retryAfterMs !== undefined ? ` after ${new Date(retryAfterMs).toISOString()}` : " later";
    return `Rate limited: retry${when}, or lower the request rate.`;
  }
  return undefined;
}

export interface ApiErrorInit {
  method: string;
  path: string;
  status: number;
  code: string;
  message: string;
  rayId?: string;
  documentation?: string;
  metadata?: unknown;
  /** When the service says to retry (epoch ms), from `Retry-After` or rate-limit metadata. */
  retryAfterMs?: number;
  /**
   * Ids the request named, by their wire names (`game_id`, `environment_id`, `server_id`, and the
   * body's `datacenter` and `build`), so a not-found error says which one does not exist.
   */
  ids?: Readonly<Record<string, string>>;
}

/** A non-200 answer from the service. */
export class GamehostApiError extends GamehostError {
  override name = "GamehostApiError";
  /** HTTP status. */
  readonly status: number;
  /** The service's error code, e.g. `SERVERS_SERVER_NOT_FOUND`. */
  readonly code: string;
  /** The service's own message. */
  readonly serviceMessage: string;
  /** Ray id of the request (body `ray_id` or header `rvt-ray-id`): quote it to support. */
  readonly rayId: string | undefined;
  readonly documentation: string | undefined;
  readonly metadata: unknown;
  readonly method: string;
  readonly path: string;
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    const advice = adviceFor(init.status, init.code, init.retryAfterMs, init.ids ?? {});
    const said = init.message.trim().replace(/\.+$/, "");
    const ray = init.rayId ? ` (ray id ${init.rayId})` : "";
    super(
      `${init.method} ${init.path} failed with ${init.status} ${init.code}: ${said}.${advice ? ` ${advice}` : ""}${ray}`,
    );
    this.status = init.status;
    this.code = init.code;
    this.serviceMessage = init.message;
    this.rayId = init.rayId;
    this.documentation = init.documentation;
    this.metadata = init.metadata;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** 401, or the 408 older clients expect, carrying an authentication code. */
  get isAuthError(): boolean {
    return (
      this.status === 401 || (this.status === 408 && AUTH_CODES.has(this.code)) || AUTH_CODES.has(this.code)
    );
  }

  /** A 400 whose code says the addressed resource does not exist. */
  get isNotFound(): boolean {
    return NOT_FOUND_CODES.has(this.code);
  }

  get isRateLimited(): boolean {
    return this.status === 429;
  }
}

/** The request never got an HTTP answer: connection refused or reset, or a timeout. */
export class GamehostNetworkError extends GamehostError {
  override name = "GamehostNetworkError";
  readonly method: string;
  readonly path: string;
  /** True when the request may have reached the service (sent, then no answer). */
  readonly mayHaveCommitted: boolean;

  constructor(method: string, path: string, cause: unknown, mayHaveCommitted: boolean) {
    const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(`${method} ${path} failed without an answer from the service: ${reason}`, { cause });
    this.method = method;
    this.path = path;
    this.mayHaveCommitted = mayHaveCommitted;
  }
}

/** A request or response that does not match the API's schema. */
export class GamehostValidationError extends GamehostError {
  override name = "GamehostValidationError";
  readonly issues: readonly FieldIssue[];
  /** Where the value was checked, e.g. `request body of POST /games/{game_id}/…`. */
  readonly where: string;

  constructor(where: string, issues: readonly FieldIssue[]) {
    super(`Invalid ${where}: ${describeIssues(issues)}`);
    this.where = where;
    this.issues = issues;
  }
}

/** Required configuration is missing or invalid. */
export class GamehostConfigError extends GamehostError {
  override name = "GamehostConfigError";
  readonly key: string;
  readonly envVar: string;

  constructor(key: string, envVar: string, problem = "is not set") {
    super(
      `Configuration ${key} ${problem}: run \`pulumi config set ${key.includes("token") ? "--secret " : ""}${key} <value>\` or set the ${envVar} environment variable.`,
    );
    this.key = key;
    this.envVar = envVar;
  }
}
