import type { InspectOptions } from "node:util";
import type { FieldIssue } from "./issues";
import { describeIssues } from "./issues";
import type { ProxyChoice } from "./proxyChoice";
import { boundField, boundText, formatCount, MAX_KEPT_ISSUES } from "./textBounds";

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

/**
 * What a failure's message says of its cause: the message without the closing `[request: answer]` that every
 * error of this package ends with, which differs per request (its path, its ray id) for one cause.
 */
export const causeOf = (message: string) => message.replace(/ \[[^\]]*\]$/, "");
/** The closing ` [request: status code, ray id]` of a message ({@link causeOf}'s complement), or `""`. */
export const requestOf = (message: string) => message.slice(causeOf(message).length);

/**
 * Base class of every error this package throws. Each message names the cause and the fix on its own,
 * so a Pulumi program that fails with one prints the message alone: the SDK's language host prints
 * only the message of an error it recognizes as a `RunError` (by this duck-typed brand, the way it
 * recognizes its own across SDK copies), instead of a stack trace and every field.
 *
 * A program may throw it for its own failures too (a config value that names no game, say): the CLI prints
 * the message alone, at once. A `pulumi.RunError` thrown from an `apply` or after an `await` is also printed
 * alone, but only after the SDK's formatting of it has run for a minute and gigabytes (docs/known-issues.md).
 */
export class GamehostError extends Error {
  override name = "GamehostError";
  constructor(message: string, options?: { cause?: unknown }) {
    // Bounded before Error captures it in the stack (see textBounds.ts).
    super(boundText(message), options);
    Object.defineProperty(this, "__pulumiRunError", { value: true, enumerable: false });
    // The SDK prefixes the message of an error that fails an input (`error serializing property "x": …`)
    // in place, once for every resource input the same rejected Output reaches: the message names the
    // cause and the fix on its own, so it is kept alone.
    let text = this.message;
    Object.defineProperty(this, "message", {
      get: () => text,
      set: (value: string) => {
        const before = text;
        text = boundText(withoutSdkContext(String(value)));
        // The SDK prints an error that fails the program after its main returned (a data source's Output
        // rejecting) by its stack, whose first line V8 wrote from the message when the stack was first
        // read: kept in step, or a restated message (a data source's 429) printed the words it replaced.
        const stack = this.stack;
        const header = `${this.name}: ${before}`;
        if (typeof stack === "string" && stack.startsWith(header))
          this.stack = `${this.name}: ${text}${stack.slice(header.length)}`;
      },
      enumerable: false,
      configurable: true,
    });
  }

  /**
   * `util.inspect` shows the error as it would, without colours. The SDK formats a program's uncaught
   * error with `util.inspect(err, { colors: true })` even when it prints the message alone, and Node's
   * colouring of stack frames never ends on a source-mapped SDK frame (`node_modules/@pulumi/output.ts`):
   * the program would grow to GBs and die unreported (docs/known-issues.md).
   */
  [Symbol.for("nodejs.util.inspect.custom")](
    _depth: number,
    options: InspectOptions,
    inspect: (value: unknown, options: InspectOptions) => string,
  ): string {
    // Without the caller's `stylize` either, which colours whatever `colors` says.
    const { stylize: _stylize, ...plain } = options as InspectOptions & { stylize?: unknown };
    return inspect(this, { ...plain, colors: false, customInspect: false });
  }
}

/**
 * `error` with its `stack` made its message, read when printed (so a later restate shows): for a data
 * source's failure reaching the program. The SDK prints a RunError's message alone while the program's
 * main runs, but a rejection that comes once main has returned (a program that declares servers in a loop
 * and exports nothing waiting on its data sources) by its `stack`: the package's frames under a message
 * that already names the cause and the fix.
 */
export function withMessageAsStack<E>(error: E): E {
  if (error instanceof GamehostError)
    Object.defineProperty(error, "stack", {
      get: () => error.message,
      set: () => undefined,
      enumerable: false,
      configurable: true,
    });
  return error;
}

/** The message without the SDK's `error serializing property "x": ` prefixes, however many. */
function withoutSdkContext(message: string): string {
  return message.replace(/^(?:error serializing property "[^"]*": )+/, "");
}

/**
 * Where a setting's value came from: `option` (passed to `new GamehostClient` in code), `config` (Pulumi
 * config: the stack's, or a provider's arguments) or `env` (a `GAMEHOST_*` environment variable).
 */
export type SettingSource = "option" | "config" | "env";

/**
 * Where a client's settings came from, so its errors say where to fix one: `pulumi` is true for a client
 * a Pulumi program or provider built from its config (the only one told to run `pulumi config set`).
 */
export interface SettingOrigins {
  /** Source of each setting that has a value, by option name (`baseUrl`, `token`…). */
  sources: Readonly<Partial<Record<string, SettingSource>>>;
  pulumi: boolean;
  /**
   * The name of the explicit provider (`pulumi:providers:gamehost`) whose arguments are the `config` here: it
   * reads no stack config, so a setting is fixed where the provider is declared.
   */
  provider?: string | undefined;
  /**
   * The settings are `pulumi do`'s (its provider has no name): it reads its `--gamehost:*` flags and the
   * environment, never the stack's config, so `pulumi config set` would change nothing.
   */
  pulumiDo?: boolean | undefined;
}

/** A setting by its three names: option, Pulumi config key, environment variable. */
interface SettingNames {
  name: string;
  key: string;
  envVar: string;
}

/** `pulumi do`'s flag of a setting: `baseUrl` → `gamehost:base-url` (the CLI's kebab-case of the config key). */
const flagOf = (name: string): string => `gamehost:${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

const settingNames = (key: string, envVar: string): SettingNames => ({
  name: key.slice(key.indexOf(":") + 1),
  key,
  envVar,
});

/** `pulumi config set [--secret] <key> <value>`, the command that changes a Pulumi config setting. */
const configSet = ({ key }: SettingNames, value = "<value>") =>
  `\`pulumi config set ${key.includes("token") ? "--secret " : ""}${key} ${value}\``;

/**
 * Where to change a setting, after a verb (`set`, `check`): only where its value came from, and for a
 * setting with no value every place it may come from. Without origins: the Pulumi config and env var.
 */
function whereToSet(
  verb: string,
  setting: SettingNames & { value: string },
  origins: SettingOrigins | undefined,
): string {
  const { name, key, envVar, value } = setting;
  switch (origins?.sources[name]) {
    case "option":
      return `${verb} the client option ${name}`;
    case "env":
      return `${verb} the ${envVar} environment variable`;
    case "config":
      if (origins?.provider !== undefined) return `${verb} the ${name} of provider "${origins.provider}"`;
      return `${verb} ${key} (${configSet(setting, value)})`;
  }
  if (origins?.provider !== undefined)
    return `${verb} the ${name} of provider "${origins.provider}" or the ${envVar} environment variable`;
  return origins?.pulumi === false
    ? `${verb} the client option ${name} or the ${envVar} environment variable`
    : `${verb} ${key} (${configSet(setting, value)}) or ${envVar}`;
}

const TOKEN = { ...settingNames("gamehost:token", "GAMEHOST_TOKEN"), value: "<token>" };
const BASE_URL = { ...settingNames("gamehost:baseUrl", "GAMEHOST_BASE_URL"), value: "<url>" };
const setToken = (origins: SettingOrigins | undefined) => whereToSet("set", TOKEN, origins);
const checkBaseUrl = (origins: SettingOrigins | undefined) => whereToSet("check", BASE_URL, origins);

/**
 * A setting named where a network error's reader changes it: a client built in code (`pulumi` false) by
 * its option or variable, never a Pulumi config key it does not read; a Pulumi client by key and variable.
 */
function networkSetting(
  setting: SettingNames,
  origins: SettingOrigins | undefined,
  pulumiForm: string,
): string {
  if (origins?.pulumi !== false) return pulumiForm;
  return origins.sources[setting.name] === "env"
    ? `the ${setting.envVar} environment variable`
    : origins.sources[setting.name] === "option"
      ? `the client option ${setting.name}`
      : `the client option ${setting.name} or the ${setting.envVar} environment variable`;
}
const REQUEST_TIMEOUT = settingNames("gamehost:requestTimeoutMs", "GAMEHOST_REQUEST_TIMEOUT_MS");
const timeoutSetting = (origins: SettingOrigins | undefined) =>
  networkSetting(REQUEST_TIMEOUT, origins, "gamehost:requestTimeoutMs (GAMEHOST_REQUEST_TIMEOUT_MS)");
const baseUrlSetting = (origins: SettingOrigins | undefined) =>
  networkSetting(BASE_URL, origins, "gamehost:baseUrl");

/**
 * What to do when a success answer is not JSON (the service always answers JSON): the base URL names
 * something else, typically a website answering its page for every path.
 */
export function notTheApiAdvice(baseUrl: string, origins: SettingOrigins | undefined): string {
  return `${baseUrl} is not the hosting API, which answers JSON: ${useTheApiRoot(origins)}`;
}

/** The fix of a base URL that names something other than the API's root (a path, another server). */
const useTheApiRoot = (origins: SettingOrigins | undefined) =>
  `${checkBaseUrl(origins)}; it must be the API's root (e.g. https://api.example.gg, no path, or the prefix a gateway serves it under, e.g. https://corp.example/gamehost).`;

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

/** Failures that show nothing answers at the base URL (as opposed to a slow or broken answer). */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/**
 * An https:// request answered in plain HTTP (the emulator, a local server): no retry can change it, so it is
 * named as the base URL's scheme, not as a failed connection to retry.
 */
const PLAIN_HTTP_ANSWER = "ERR_SSL_WRONG_VERSION_NUMBER";
/**
 * A certificate the TLS handshake refused (Node's X.509 verification codes, and the host name check): the
 * handshake ends before any byte of the request is written, and no retry changes the certificate.
 */
const CERTIFICATE_ERROR_CODES: ReadonlySet<string> = new Set([
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_DECRYPT_CERT_SIGNATURE",
  "UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "ERROR_IN_CERT_NOT_BEFORE_FIELD",
  "ERROR_IN_CERT_NOT_AFTER_FIELD",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_CHAIN_TOO_LONG",
  "CERT_REVOKED",
  "INVALID_CA",
  "PATH_LENGTH_EXCEEDED",
  "INVALID_PURPOSE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * TLS handshakes that failed before any byte of the request was written, and fail again on every attempt
 * until a setting or the service's certificate changes.
 */
export const HANDSHAKE_FAILURE_CODES: ReadonlySet<string> = new Set([
  ...CERTIFICATE_ERROR_CODES,
  PLAIN_HTTP_ANSWER,
]);
/** A certificate that is out of date: this machine's clock, or a certificate the service let lapse. */
const OUT_OF_DATE_CERTIFICATE = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);
/** A certificate for another host name than the base URL's. */
const OTHER_HOST_CERTIFICATE = new Set(["ERR_TLS_CERT_ALTNAME_INVALID", "HOSTNAME_MISMATCH"]);
const TIMED_OUT = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
]);

/**
 * What to do about a certificate the handshake refused. Retrying cannot help, and nothing was sent, so the
 * fix is never "retry" nor a lookup of what a POST may have made.
 */
function certificateFix(code: string, at: string, origins: SettingOrigins | undefined): string {
  if (OUT_OF_DATE_CERTIFICATE.has(code)) {
    return `The certificate of ${at} is out of date, so nothing was sent: check this machine's clock; if it is right, the service's certificate needs renewing.`;
  }
  if (OTHER_HOST_CERTIFICATE.has(code)) {
    return `The certificate of ${at} is for another host, so nothing was sent: ${checkBaseUrl(origins)}.`;
  }
  return `The certificate of ${at} is not trusted, so nothing was sent: ${checkBaseUrl(origins)}; for a service whose certificate comes from a private authority, give Node that authority's certificate (NODE_EXTRA_CA_CERTS=<file.pem> in the environment that runs pulumi).`;
}

/** The request never got an HTTP answer: connection refused or reset, or a timeout. */
export class GamehostNetworkError extends GamehostError {
  override name = "GamehostNetworkError";
  readonly method: string;
  readonly path: string;
  /** True when the request may have reached the service (sent, then no answer). */
  readonly mayHaveCommitted: boolean;
  /**
   * True when no attempt can succeed until a setting or the service's certificate changes: a certificate
   * the handshake refused, or an https:// base URL at a server without TLS.
   */
  readonly permanent: boolean;

  constructor(
    method: string,
    path: string,
    cause: unknown,
    mayHaveCommitted: boolean,
    baseUrl?: string,
    origins?: SettingOrigins,
    /** The client option that set the wait for headers, when not requestTimeoutMs (see TransportRequest). */
    headersTimeoutOption?: string,
    /** The proxy the request went through (from the proxy environment), if any. */
    proxy?: ProxyChoice,
  ) {
    const code = errorCode(cause);
    const atProxy = proxy ? proxyFailure(cause, proxy, baseUrl ?? "the base URL", origins) : undefined;
    const raise =
      // Only a client built in code has these options (gamehost's own commands build theirs from config).
      code === "UND_ERR_HEADERS_TIMEOUT" && headersTimeoutOption !== undefined && origins?.pulumi === false
        ? `the client option ${headersTimeoutOption}`
        : timeoutSetting(origins);
    // OpenSSL's reasons end with a newline: the message stays one line.
    const reason = (cause instanceof Error ? cause.message : String(cause)).trimEnd();
    const at = baseUrl ?? "the base URL";
    // A POST that may have run is never "just retry": sending a create again can make a second server.
    const lookUp = !(mayHaveCommitted && method === "POST")
      ? undefined
      : /\/servers$/.test(path)
        ? "find the server by its tags with listServers before creating another"
        : "look its result up before sending it again";
    const fix = atProxy
      ? atProxy
      : typeof code === "string" && UNREACHABLE.has(code)
        ? `Nothing answers at ${at}: ${checkBaseUrl(origins)}, and that the service is running.`
        : code === PLAIN_HTTP_ANSWER
          ? `${at} answers without TLS: ${checkBaseUrl(origins)}; a server without TLS, as the emulator, takes http://.`
          : typeof code === "string" && CERTIFICATE_ERROR_CODES.has(code)
            ? certificateFix(code, at, origins)
            : typeof code === "string" && TIMED_OUT.has(code)
              ? lookUp
                ? `The service did not answer in time, and the request may have taken effect: ${lookUp}. To wait longer, raise ${raise}.`
                : `The service did not answer in time: retry, or raise ${raise}.`
              : lookUp
                ? `The connection failed after the request was sent, and it may have taken effect: ${lookUp}. If it keeps failing, check the network and ${baseUrlSetting(origins)}.`
                : `The connection failed: retry; if it keeps failing, check the network and ${baseUrlSetting(origins)}.`;
    // Past the proxy, the failure is the service's (or the network's behind the proxy): still name the route.
    const route =
      proxy && !atProxy
        ? typeof code === "string" && CERTIFICATE_ERROR_CODES.has(code) && !OTHER_HOST_CERTIFICATE.has(code)
          ? ` The request went through the proxy ${proxy.shown} (from ${proxy.envVar}): a proxy that inspects TLS presents certificates of its own authority, and that authority's certificate is the one to give Node.`
          : ` The request went through the proxy ${proxy.shown} (from ${proxy.envVar}).`
        : "";
    super(`${fix}${route} [${method} ${path}: no answer, ${reason}]`, { cause });
    this.method = method;
    this.path = path;
    this.mayHaveCommitted = mayHaveCommitted;
    this.permanent = !atProxy && typeof code === "string" && HANDSHAKE_FAILURE_CODES.has(code);
  }
}

/** The codes of a connection that never opened: with a proxy set, the only connection the client opens is the proxy's. */
const PROXY_UNREACHABLE = new Set([...UNREACHABLE, "UND_ERR_CONNECT_TIMEOUT"]);

/** Set on an error of the CONNECT exchange with a proxy (see proxy.ts): the tunnel never opened. */
export const PROXY_TUNNEL_FAILURE = Symbol.for("pulumi-gamehost.proxyTunnelFailure");

/** The `code` of a Node or undici error, if it has one. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** Whether `cause` is a failure of the proxy itself (refused, unreachable, no tunnel): the request was not passed on. */
export function failedAtProxy(cause: unknown, proxy: ProxyChoice | undefined): boolean {
  return proxy !== undefined && proxyFailure(cause, proxy, "", undefined) !== undefined;
}

/**
 * What to do about a request the proxy failed, or `undefined` when the failure is past the proxy (the
 * service's). Never quotes the proxy's URL as given: it may carry a password.
 */
function proxyFailure(
  cause: unknown,
  proxy: ProxyChoice,
  at: string,
  origins: SettingOrigins | undefined,
): string | undefined {
  const code = errorCode(cause);
  const message = cause instanceof Error ? cause.message : "";
  const named = `The proxy ${proxy.shown} (from ${proxy.envVar})`;
  const bypass = `add the service's host to NO_PROXY if it is reachable without the proxy`;
  if (typeof code === "string" && PROXY_UNREACHABLE.has(code)) {
    const what =
      code === "ECONNREFUSED"
        ? "refused the connection"
        : code === "ENOTFOUND" || code === "EAI_AGAIN"
          ? "has a host name that does not resolve"
          : "cannot be reached";
    return `${named} ${what}, so nothing was sent to ${at}: check ${proxy.envVar} and that the proxy is running, or ${bypass}.`;
  }
  // undici: `Proxy response (407) !== 200 when HTTP Tunneling` (CONNECT), `Proxy Authentication Required (407)`.
  const status = Number(message.match(/^Proxy (?:response|Authentication Required) \((\d{3})\)/)?.[1]);
  if (status === 407) {
    return proxy.hasCredentials
      ? `${named} refused its user name and password (407 Proxy Authentication Required), so nothing was sent to ${at}: correct them in ${proxy.envVar} (http://<user>:<password>@<host>:<port>, special characters percent-encoded).`
      : `${named} requires a user name and password (407 Proxy Authentication Required), so nothing was sent to ${at}: give them in ${proxy.envVar} as http://<user>:<password>@<host>:<port> (special characters percent-encoded).`;
  }
  if (status === 403) {
    return `${named} refused to connect to ${at} (403), so nothing was sent: ask its administrators to allow that host and port, or ${bypass}.`;
  }
  if (status >= 500) {
    return `${named} could not reach ${at} (${status}), so nothing was sent to it: ${checkBaseUrl(origins)} and that the service is running (the proxy's own logs say why it failed).`;
  }
  if (Number.isInteger(status)) {
    return `${named} refused the connection to ${at} (${status}), so nothing was sent: check ${proxy.envVar}.`;
  }
  if ((cause as Record<symbol, unknown> | undefined)?.[PROXY_TUNNEL_FAILURE] === true) {
    // The TLS handshake with an https:// proxy (undici wraps a host name mismatch in an error of its own).
    const tlsCode =
      code !== undefined && CERTIFICATE_ERROR_CODES.has(code)
        ? code
        : errorCode((cause as { cause?: unknown }).cause);
    if (tlsCode !== undefined && CERTIFICATE_ERROR_CODES.has(tlsCode)) {
      const problem = OUT_OF_DATE_CERTIFICATE.has(tlsCode)
        ? "is out of date"
        : OTHER_HOST_CERTIFICATE.has(tlsCode)
          ? "is for another host"
          : "is not trusted";
      return `The certificate of the proxy ${proxy.shown} (from ${proxy.envVar}) ${problem}, so nothing was sent to ${at}: check the proxy's host name in ${proxy.envVar}; for a proxy whose certificate comes from a private authority, give Node that authority's certificate (NODE_EXTRA_CA_CERTS=<file.pem> in the environment that runs pulumi).`;
    }
    return typeof code === "string" && TIMED_OUT.has(code)
      ? `${named} accepted the connection but did not answer its CONNECT request in time, so nothing was sent to ${at}: check that the proxy is working, or ${bypass}.`
      : `${named} closed the connection before opening a tunnel to ${at}, so nothing was sent: check that the proxy is working, or ${bypass}.`;
  }
  return undefined;
}

/** A request or response that does not match the API's schema. */
export class GamehostValidationError extends GamehostError {
  override name = "GamehostValidationError";
  /** The fields at fault: the first 100 of {@link issueCount}. */
  readonly issues: readonly FieldIssue[];
  /** How many fields are at fault (found, for a value checked up to its first problem); the message lists a few. */
  readonly issueCount: number;
  /** Where the value was checked, e.g. `request body of POST /games/{game_id}/…`. */
  readonly where: string;

  /**
   * @param bounds `total`: how many fields are at fault, when `issues` holds only some; `stoppedEarly`:
   * the size (characters of its JSON text) of a value too large to check past its first problems (the message says so).
   */
  constructor(
    where: string,
    issues: readonly FieldIssue[],
    bounds: { total?: number; stoppedEarly?: number } = {},
  ) {
    const total = Math.max(bounds.total ?? 0, issues.length);
    const stopped =
      bounds.stoppedEarly !== undefined
        ? `; checking stopped at the first problem: the value has ${formatCount(bounds.stoppedEarly)} characters`
        : "";
    super(`Invalid ${where}: ${describeIssues(issues, total)}${stopped}`);
    this.where = where;
    this.issues = issues.slice(0, MAX_KEPT_ISSUES);
    this.issueCount = total;
  }
}

/**
 * Required configuration is missing or invalid. The message names the setting where its value came from
 * (`origins`): the client option and its value for a client built in code, the environment variable, or
 * the Pulumi config key with the `pulumi config set` that fixes it.
 */
export class GamehostConfigError extends GamehostError {
  override name = "GamehostConfigError";
  readonly key: string;
  readonly envVar: string;

  constructor(key: string, envVar: string, problem = "is not set", origins?: SettingOrigins) {
    const setting = settingNames(key, envVar);
    const source = origins?.sources[setting.name];
    const unset = problem === "is not set";
    const provider = origins?.provider;
    const message =
      provider !== undefined && source !== "env"
        ? unset
          ? `The ${setting.name} of provider "${provider}" is not set: give the provider a ${setting.name} (an explicit provider does not read the stack's ${key}) or set the ${envVar} environment variable.`
          : `The ${setting.name} of provider "${provider}" ${problem}: change it where the provider is declared.`
        : origins?.pulumiDo && source !== "env"
          ? unset
            ? `Configuration ${key} is not set: \`pulumi do\` reads no stack config: set the ${envVar} environment variable or pass \`--${flagOf(setting.name)} <value>\`.`
            : `Flag --${flagOf(setting.name)} ${problem}: change it on the \`pulumi do\` command line.`
          : source === "option"
            ? `Client option ${setting.name} ${problem}: pass ${unset ? "it" : "a valid one"} to new GamehostClient.`
            : source === "env"
              ? `Environment variable ${envVar} ${problem}: change or unset it.`
              : source === "config"
                ? `Configuration ${key} ${problem}: run ${configSet(setting)}.`
                : origins?.pulumi === false
                  ? `Client option ${setting.name} ${problem}: pass it to new GamehostClient or set the ${envVar} environment variable.`
                  : `Configuration ${key} ${problem}: run ${configSet(setting)} or set the ${envVar} environment variable.`;
    super(message);
    this.key = key;
    this.envVar = envVar;
  }
}

/**
 * A wait the service asked for (`Retry-After`) does not fit the operation: it says until when the
 * service refuses and how to proceed. Built by `retryAfterWait`.
 */
export class GamehostRetryAfterError extends GamehostError {
  override name = "GamehostRetryAfterError";
  /** Until when the service refuses (epoch ms); `undefined` when no date can hold it. */
  readonly until: number | undefined;

  constructor(message: string, until: number | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.until = until;
  }
}

/**
 * A call did not finish, retries and the answer's body included, within its total deadline
 * (`gamehost:callTimeoutMs`). Like any lost answer, a POST may have done its work.
 */
export class GamehostDeadlineError extends GamehostNetworkError {
  override name = "GamehostDeadlineError";
  /** The deadline that passed, in ms. */
  readonly deadlineMs: number;

  constructor(method: string, path: string, deadlineMs: number) {
    super(method, path, new Error(`no complete answer within ${deadlineMs} ms`), true);
    this.message = `The call did not finish within its deadline of ${deadlineMs} ms, retries and the answer's body included: retry, or raise gamehost:callTimeoutMs (GAMEHOST_CALL_TIMEOUT_MS). [${method} ${path}: no complete answer within ${deadlineMs} ms]`;
    this.deadlineMs = deadlineMs;
  }
}

/**
 * An answer larger than `gamehost:maxResponseBytes`, refused unread beyond the cap so a hostile or
 * broken service cannot exhaust memory. The call ran, so a POST may have done its work.
 */
export class GamehostResponseTooLargeError extends GamehostNetworkError {
  override name = "GamehostResponseTooLargeError";
  /** The cap that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(method: string, path: string, limitBytes: number) {
    super(method, path, new Error(`answer larger than ${limitBytes} bytes`), true);
    this.message = `The answer is larger than ${limitBytes} bytes, the cap on answers: raise gamehost:maxResponseBytes (GAMEHOST_MAX_RESPONSE_BYTES) if it is genuine. [${method} ${path}: answer over ${limitBytes} bytes]`;
    this.limitBytes = limitBytes;
  }
}
