import type { ProxyChoice } from "../proxyChoice";
import { boundField, boundText } from "../textBounds";
import { GamehostError } from "./base";
import { AUTH_CODES, ERROR_CODES, NOT_FOUND_CODES } from "./codes";
import {
  BASE_URL,
  checkBaseUrl,
  type SettingOrigins,
  setToken,
  useTheApiRoot,
  whereToSet,
} from "./settingAdvice";

/** Ids by their wire names, as far as the request named them. */
type RequestIds = Readonly<Record<string, string>>;

/**
 * What the caller should do about a service error. `restates` marks advice that states the cause
 * itself, so the service's own message would only repeat it.
 */
interface Advice {
  text: string;
  restates: boolean;
}

/** Which id a not-found code is about, and what to do about it. */
function notFoundAdvice(code: string, ids: RequestIds): string {
  const { game_id: game, environment_id: environment, server_id: server, datacenter, build } = ids;
  const inEnvironment = environment ? ` in environment ${environment}` : "";
  switch (code) {
    case ERROR_CODES.gameNotFound:
      if (game) return `Game ${game} does not exist: check the game id (getEnvironment finds it by name).`;
      break;
    case ERROR_CODES.environmentNotFound:
      if (environment)
        return `Environment ${environment} does not exist${game ? ` in game ${game}` : ""}: check the environment id (getEnvironment finds it by name).`;
      break;
    case ERROR_CODES.serverNotFound:
      if (server)
        return `Server ${server} does not exist${inEnvironment}: check the server id, and that it belongs to this environment.`;
      break;
    case ERROR_CODES.buildNotFound:
      if (build)
        return `Build ${build} does not exist${inEnvironment}: check runtime.build against the environment's builds (getBuilds).`;
      break;
    case ERROR_CODES.datacenterNotFound:
      if (datacenter)
        return `Datacenter ${datacenter} is not one of ${game ? `game ${game}'s` : "the game's"} datacenters: check datacenter against getDatacenters.`;
      break;
  }
  return "Check the ids: one does not exist or belongs to another game or environment.";
}

/**
 * What a refusal is about, by the request's ids: a refusal's advice names it, since the same words for two
 * games (or groups) would read as one failure, and a program's data sources report one error per cause.
 */
function subjectOf(ids: RequestIds): string {
  if (ids.group_id) return `group ${ids.group_id}`;
  if (ids.game_id) return `game ${ids.game_id}`;
  return "this";
}

/** The group a GROUP_NOT_MEMBER refusal is about: the one addressed, or the one owning the game addressed. */
function ownerOf(ids: RequestIds): string {
  // The service answers a group id that names no group (a game's id given in its place) the same way.
  if (ids.group_id)
    return `group ${ids.group_id}, or no group has that id (a group id is a game's developerGroupId)`;
  if (ids.game_id) return `the group that owns game ${ids.game_id}`;
  return "the group that owns this";
}

function adviceFor(init: ApiErrorInit): Advice | undefined {
  const { status, code, retryAfterMs } = init;
  switch (code) {
    case ERROR_CODES.entitlementExpired:
      return { text: `The token has expired: ${setToken(init.origins)} to a current token.`, restates: true };
    case ERROR_CODES.tokenInvalid:
      return {
        text: `The token is not valid (mistyped, revoked, or from another deployment): ${setToken(init.origins)} to a valid token.`,
        restates: true,
      };
    case ERROR_CODES.missingEntitlement:
      // A group's routes (billing) take a user token only: no cloud token, not even one of the group's own
      // games, is entitled to them (service contract §2), so "this game's cloud token" would send the user
      // back to the token just refused.
      if (init.ids?.group_id)
        return {
          text: `The token is not entitled to ${subjectOf(init.ids)} (group routes, billing too, take no cloud token): ${setToken(init.origins)} to a group member's user token.`,
          restates: true,
        };
      return {
        text: `The token is not entitled to ${subjectOf(init.ids ?? {})} (another game's cloud token, or one this route refuses): ${setToken(init.origins)} to a group member's user token or this game's cloud token.`,
        restates: true,
      };
    case ERROR_CODES.groupNotMember:
      return {
        text: `The token's identity is not a member of ${ownerOf(init.ids ?? {})}: ask an owner of the group to add it, or use a member's token.`,
        restates: true,
      };
    case ERROR_CODES.forbidden:
      // The service's one refusal of a watch (docs/service-contract.md §5): no other token of the game would do.
      if (init.method === "GET" && init.path === "/cloud/games")
        return {
          text: "A game's cloud token may not watch the game list: watch it with a user token of a group member, or watch the one game (watchGame) with this token.",
          restates: false,
        };
      return {
        text: `The token is valid but may not read or change ${subjectOf(init.ids ?? {})}: use a user token of a member of the group, or a cloud token of this game.`,
        restates: false,
      };
    case ERROR_CODES.methodNotAllowed:
      return {
        text: `${init.baseUrl ?? "The base URL"} serves ${init.path}, but not with ${init.method}: ${checkBaseUrl(init.origins)}; it must be the hosting API's root, not another API or a proxy that changes requests.`,
        restates: true,
      };
    case ERROR_CODES.billingNotEnabled:
      return {
        text: "This deployment of the service has no billing: getGroupBilling and createPaymentPortalSession cannot be used with it.",
        restates: true,
      };
    case ERROR_CODES.requestTimeout:
      return {
        text:
          init.method === "POST"
            ? "The service ended the request at its 50 s time cap, and it may still have taken effect: check (e.g. list by tag) before sending it again."
            : "The service ended the request at its 50 s time cap: retry later.",
        restates: true,
      };
    case ERROR_CODES.serverFailedToCreate:
      return {
        text: "The service could not place the server: try again, or in another datacenter.",
        restates: false,
      };
    case ERROR_CODES.notFound:
      return {
        text: `No such route at ${init.baseUrl ?? "the base URL"}: ${useTheApiRoot(init.origins)}`,
        restates: true,
      };
  }
  // The service answers an unknown route 404 API_NOT_FOUND and a missing resource 400: a 404 page of
  // something else (a web server, a proxy) says the same as API_NOT_FOUND, and its page says nothing more.
  if (status === 404 && init.fromService === false)
    return {
      text: `No such route at ${init.baseUrl ?? "the base URL"} (a 404 that is not the service's): ${useTheApiRoot(init.origins)}`,
      restates: true,
    };
  if (AUTH_CODES.has(code) || status === 401)
    return { text: `No valid token was sent: ${setToken(init.origins)}.`, restates: true };
  if (NOT_FOUND_CODES.has(code)) return { text: notFoundAdvice(code, init.ids ?? {}), restates: true };
  if (code === ERROR_CODES.rateLimit || status === 429) {
    const when = retryAfterMs !== undefined ? ` after ${new Date(retryAfterMs).toISOString()}` : " later";
    // The service counts each endpoint's requests in fixed 15-minute windows: fewer requests help, slower
    // ones (a lower --parallel) do not.
    return {
      text: `Rate limited: retry${when}, or make fewer requests (the service counts them in fixed 15-minute windows).`,
      restates: true,
    };
  }
  // The service's own words for a 5xx ("An internal error has occurred.") say nothing to do: it reaches the
  // caller after the client's retries (a GET, a DELETE) or unretried (a POST, which may have done its work).
  if (status >= 500)
    return {
      text: "This is the service's failure, not the request's: run it again later, and if it keeps failing, quote the ray id to the service's support.",
      restates: false,
    };
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
  /** The client's base URL, named when a route does not exist there. */
  baseUrl?: string;
  /** Where the client's settings came from, so the advice says where to fix the token or base URL. */
  origins?: SettingOrigins;
  /** False when the body was not the service's error body (a gateway's or proxy's page); default true. */
  fromService?: boolean;
  /** The proxy the request went through (from the proxy environment), if any. */
  proxy?: ProxyChoice | undefined;
  /**
   * A redirect's target, without its query (it may hold a signature), and the base URL it implies when its
   * path ends with the request's path.
   */
  redirect?: { to: string; base?: string | undefined } | undefined;
}

/** What a redirect means: the client follows none, so the base URL must name where the API is now. */
function redirectAdvice(init: ApiErrorInit): { restates: boolean; text: string } | undefined {
  const { redirect } = init;
  if (!redirect) return undefined;
  const set = redirect.base
    ? whereToSet("set", { ...BASE_URL, value: redirect.base }, init.origins).replace(/^set /, "")
    : undefined;
  return {
    restates: true,
    text: `${init.baseUrl ?? "The base URL"} redirects ${init.method} ${init.path} to ${redirect.to}: ${
      set
        ? `set the base URL (${set}) to ${redirect.base}`
        : `${checkBaseUrl(init.origins)}; it must be where the API answers`
    }. The client follows no redirect, so that a create is never sent twice nor turned into a GET.`,
  };
}

/** What a page that is not the service's means when the request went through a proxy, or `undefined`. */
function proxyAnswerAdvice(init: ApiErrorInit): { restates: boolean; text: string } | undefined {
  const { proxy } = init;
  if (!proxy || init.fromService !== false) return undefined;
  const named = `the proxy ${proxy.shown} (from ${proxy.envVar}) or a gateway behind it`;
  const at = init.baseUrl ?? "the base URL";
  const POST = init.method === "POST";
  if (init.status === 407) {
    return {
      restates: false,
      text: `This answer came from ${named}: it wants ${proxy.hasCredentials ? "other credentials than" : "a user name and password in"} ${proxy.envVar} (http://<user>:<password>@<host>:<port>, special characters percent-encoded).`,
    };
  }
  if (init.status >= 500) {
    return {
      restates: false,
      text: `This answer came from ${named}, not the service: it got no answer from ${at}${POST ? ", and the request may have reached it: look its result up before sending it again" : ""}. Check that the service is running, and the proxy's logs for why.`,
    };
  }
  if (init.status === 403 || init.status === 401) {
    return {
      restates: false,
      text: `This answer came from ${named}, not the service: it refused the request to ${at}. Ask its administrators to allow that host, or add the host to NO_PROXY if it is reachable without the proxy.`,
    };
  }
  return undefined;
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
  readonly method: string;
  readonly path: string;
  /**
   * Whether the service itself answered (its JSON error body): false for a gateway's or proxy's page,
   * whose 502 or 504 says only that the service's answer never came.
   */
  readonly fromService: boolean;
  /**
   * What was sent and answered, as the message ends with it: `[GET /path: 400 CODE, ray id …]`. A field of
   * its own, so the client's redaction of an echoed token reaches it too.
   */
  readonly exchange: string;
  /** Ray id of the request (body `ray_id` or header `rvt-ray-id`): quote it to support. */
  declare readonly rayId?: string;
  /** URL of the error's page, when the service names one. */
  declare readonly documentation?: string;
  /** The service's structured detail, when it sends one. */
  declare readonly metadata?: unknown;
  /** When the service says to retry (epoch ms). */
  declare readonly retryAfterMs?: number;

  /**
   * The message is the cause and the fix, then what was sent and answered in brackets:
   * `Game … does not exist: check the game id. [GET /cloud/games/…: 400 GAME_NOT_FOUND, ray id …]`.
   * The service's own message leads instead when the advice does not state the cause.
   */
  constructor(init: ApiErrorInit) {
    const advice = redirectAdvice(init) ?? proxyAnswerAdvice(init) ?? adviceFor(init);
    const said = `${init.message.trim().replace(/\.+$/, "")}.`;
    const cause = advice ? (advice.restates ? advice.text : `${said} ${advice.text}`) : said;
    const ray = init.rayId ? `, ray id ${boundField(init.rayId)}` : "";
    const exchange = `[${init.method} ${init.path}: ${init.status} ${boundField(init.code)}${ray}]`;
    super(`${cause} ${exchange}`);
    this.exchange = exchange;
    this.status = init.status;
    this.code = boundField(init.code);
    this.serviceMessage = boundText(init.message);
    this.method = init.method;
    this.path = init.path;
    this.fromService = init.fromService ?? true;
    // Only what the answer held becomes a field: an inspected error shows no `undefined`s.
    const optional = {
      rayId: init.rayId !== undefined ? boundField(init.rayId) : undefined,
      documentation: init.documentation !== undefined ? boundField(init.documentation) : undefined,
      metadata: init.metadata,
      retryAfterMs: init.retryAfterMs,
    };
    for (const [key, value] of Object.entries(optional)) {
      // Configurable, so the client can redact an echoed token from it (see redactError).
      if (value !== undefined)
        Object.defineProperty(this, key, { value, enumerable: true, configurable: true });
    }
  }

  /**
   * Puts `cause` (what the failure means where it happened: the field whose value was sent) in place of
   * the message's cause and fix, keeping what was sent and answered and every field of the error.
   */
  restate(cause: string): void {
    this.message = `${cause} ${this.exchange}`;
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
