import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_CODES } from "../api/errors";
import type { Server } from "../api/generated/wire";
import { adminRefusal, newAdminToken } from "./adminAccess";
import { bearerToken, missingToken } from "./auth";
import { Chaos } from "./chaos";
import { EmulatorCore, type Handler } from "./core";
import { DASHBOARD_PATH, Dashboard } from "./dashboard/index";
import { Exchange, type ExchangeHost, parseTarget, type Target } from "./exchange";
import { FaultQueue } from "./faults";
import { DEFAULT_RETRY_AFTER_MS, type FaultController, type PendingFault } from "./faultTypes";
import { type Fixture, loadFixture } from "./fixture";
import { internalError, methodNotAllowed, notFoundRoute, ServiceError, writeError } from "./http";
import { type Listening, listen } from "./listener";
import { mutationsOf } from "./mutations";
import type { Mutations } from "./mutationTypes";
import type { EmulatorOptions } from "./options";
import type { PlacementMode } from "./placementMode";
import { RateLimiter } from "./rateLimit";
import type { RequestLogEntry } from "./requestLog";
import { adminRouter } from "./routes/admin";
import { addChaosRoutes } from "./routes/chaos";
import { accessOf, apiRouter } from "./routes/index";
import { checkOptions, DEFAULTS, removeTempExportDir, settingsOf } from "./settings";
import { TimeCap } from "./timeCap";

export type { EmulatorOptions } from "./options";
export type { RequestLogEntry } from "./requestLog";

/** Tokens of the fixture, by their role in tests: `""` for a role the fixture gives no token. */
export interface EmulatorTokens {
  /** The main user (member of the main game's group). */
  user: string;
  /** A user who is not in the main game's group. */
  otherUser: string;
  /** A cloud token per game id. */
  cloud: Record<string, string>;
  /** A token that has expired. */
  expired: string;
}

/** A started emulator. */
export interface RunningEmulator {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  tokens: EmulatorTokens;
  /** The parsed fixture (tests read ids from it). */
  fixture: Fixture;
  faults: FaultController;
  /**
   * With `admin: true`, the token every `/__admin` request must send as `Authorization: Bearer …`
   * (random per start, printed by the CLI); absent otherwise.
   */
  adminToken?: string;
  /** With `dashboard: true`, the dashboard's URL (sign in with {@link adminToken}); absent otherwise. */
  dashboardUrl?: string;
  setPlacement(mode: PlacementMode): void;
  /** Every server including destroyed ones, in wire shape. */
  servers(): Server[];
  /** When SIGKILL would land for a deleted server (epoch ms), from the override or stored kill timeout. */
  killDeadline(serverId: string): number | undefined;
  /** Requests so far (the newest 100 000). */
  readonly requests: ReadonlyArray<RequestLogEntry>;
  resetRequests(): void;
  /** Watch requests currently held. */
  watcherCount(): number;
  /** TCP connections accepted since start: shows whether clients reuse keep-alive sockets. */
  connectionCount(): number;
  /** Changes to the served data: game updates wake watches, the others show at the next answer. */
  mutate: Mutations;
  /** Closes the server, ends held watches, frees timers, removes a temporary export dir. */
  stop(): Promise<void>;
}

const REQUEST_LOG_LIMIT = 100_000;

function tokensOf(fixture: Fixture, now: number): EmulatorTokens {
  const live = (t: Fixture["tokens"][number]) => t.role !== "expired" && (t.expiresAt ?? Infinity) > now;
  const byRole = (role: string) => fixture.tokens.find((t) => t.role === role)?.token;
  const cloud: Record<string, string> = {};
  for (const t of fixture.tokens) {
    if (t.kind === "cloud" && live(t) && cloud[t.gameId] === undefined) cloud[t.gameId] = t.token;
  }
  return {
    user: byRole("user") ?? fixture.tokens.find((t) => t.kind === "user" && live(t))?.token ?? "",
    otherUser: byRole("otherUser") ?? "",
    cloud,
    expired: byRole("expired") ?? fixture.tokens.find((t) => !live(t))?.token ?? "",
  };
}

/**
 * A token handed to tests as a live user's (`user`, `otherUser`) that has expired already is a fixture
 * mistake, most often an `expiresAt` written in seconds: said at start, not met as a 401 on every request.
 */
function warnOfExpiredRoles(fixture: Fixture, now: number, warn: (message: string) => void): void {
  for (const t of fixture.tokens) {
    if ((t.role !== "user" && t.role !== "otherUser") || t.expiresAt === undefined || t.expiresAt > now)
      continue;
    // Before 1973 in milliseconds, after it in seconds: nobody means a token that expired in 1970.
    const inSeconds = t.expiresAt < 100_000_000_000;
    warn(
      `the fixture's ${t.role} token ${t.token} expired at ${new Date(t.expiresAt).toISOString()} (expiresAt ${t.expiresAt})${
        inSeconds ? ": expiresAt is in epoch milliseconds, not seconds" : ""
      }`,
    );
  }
}

/** The default warning sink: a process warning, which Node prints to stderr. */
function emitEmulatorWarning(message: string): void {
  process.emitWarning(`gamehost emulator: ${message}`, "GamehostEmulatorWarning");
}

/**
 * Starts the emulator of the hosting service on 127.0.0.1. It answers as docs/service-contract.md
 * describes: same routes, auth rules, errors, watch semantics and placement.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkOptions(options);
  const onWarning = options.onWarning ?? emitEmulatorWarning;
  const fixture = loadFixture(options.fixture);
  const settings = settingsOf(options, onWarning);
  const { now } = settings.core;
  warnOfExpiredRoles(fixture, now(), onWarning);
  let core: EmulatorCore;
  try {
    core = new EmulatorCore(fixture, settings.core);
  } catch (err) {
    removeTempExportDir(settings);
    throw err;
  }
  const faults = new FaultQueue();
  const limiter = options.rateLimit ? new RateLimiter() : undefined;
  const mutations = mutationsOf(core);
  let requests: RequestLogEntry[] = [];
  const api = apiRouter();
  const adminOn = options.admin === true || options.dashboard === true;
  const adminToken = adminOn ? newAdminToken() : undefined;
  const chaos = new Chaos(core);
  const admin = adminOn
    ? adminRouter({
        faults,
        mutations,
        clock: settings.clock,
        requests: () => requests,
        resetRequests: () => {
          requests = [];
        },
      })
    : undefined;
  if (admin) addChaosRoutes(admin, chaos);
  let dashboard: Dashboard | undefined;
  try {
    dashboard = options.dashboard ? new Dashboard({ core, faults, chaos }) : undefined;
  } catch (err) {
    core.shutdown();
    core.close();
    removeTempExportDir(settings);
    throw err;
  }
  if (admin && dashboard) dashboard.addRoutes(admin);
  const warn = (err: unknown) => onWarning(String(err));
  const host: ExchangeHost = {
    core,
    caps: new TimeCap(settings.requestTimeCapMs, warn),
    log(entry, exchange) {
      if (requests.length >= REQUEST_LOG_LIMIT) requests = requests.slice(REQUEST_LOG_LIMIT / 2);
      requests.push(entry);
      dashboard?.record(entry, exchange);
    },
  };

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const rayId = randomUUID();
    // The Date header is the service's clock, as the instants it names are (a 429's retry-after): with a
    // `now` of its own the emulator stands for a service whose clock is off the client's, which a client
    // corrects by this header (src/api/wait.ts, serviceClockOffset). Node's own would be this machine's.
    res.setHeader("date", new Date(now()).toUTCString());
    const method = req.method ?? "GET";
    const target = parseTarget(req.url ?? "/");
    if (target && dashboard?.handles(method, target.pathname, req.headers.accept)) {
      dashboard.serve(req, res, target.pathname);
    } else if (!target) {
      host.log({ method, route: `${method} <unknown>`, path: req.url ?? "", status: 404 });
      writeError(res, rayId, notFoundRoute());
    } else if (admin && adminToken && target.pathname.startsWith("/__admin/")) {
      const refusal = adminRefusal(req, adminToken);
      const match = refusal ? undefined : admin.match(method, target.pathname);
      if (refusal) writeError(res, rayId, refusal);
      else if (match)
        new Exchange(host, req, res, target, match.params, rayId, match.name, false).run(match.route.handler);
      else
        writeError(
          res,
          rayId,
          admin.servesPath(target.pathname) ? methodNotAllowed(method) : notFoundRoute(),
        );
    } else {
      serveApi(req, res, method, target, rayId);
    }
  }

  /**
   * The 404 of a dashboard or admin path while that part is off: it names the flag, since a person who
   * opens the dashboard's URL of an emulator started without `--dashboard` sees only this answer.
   */
  function switchedOff(pathname: string): ServiceError | undefined {
    if (!dashboard && (pathname === DASHBOARD_PATH.replace(/\/$/, "") || pathname.startsWith(DASHBOARD_PATH)))
      return new ServiceError(
        404,
        ERROR_CODES.notFound,
        "The dashboard is off: start the emulator with --dashboard (startEmulator({ dashboard: true })).",
      );
    if (!adminOn && pathname.startsWith("/__admin/"))
      return new ServiceError(
        404,
        ERROR_CODES.notFound,
        "The admin routes are off: start the emulator with --admin or --dashboard (startEmulator({ admin: true })).",
      );
    return undefined;
  }

  function serveApi(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    target: Target,
    rayId: string,
  ) {
    const match = api.match(method, target.pathname);
    const route = match?.name ?? `${method} <unknown>`;
    const exchange = new Exchange(host, req, res, target, match?.params, rayId, route, true);
    if (!match) {
      exchange.answerError(
        switchedOff(target.pathname) ??
          (api.servesPath(target.pathname) ? methodNotAllowed(method) : notFoundRoute()),
      );
      return;
    }
    const fault = faults.take(method, target.pathname, match.route.pattern);
    if (fault?.kind === "latency") {
      // Then served as usual, unless the client left or the time cap answered meanwhile.
      setTimeout(() => {
        if (!exchange.finished) serveMatched(req, exchange, match.route, route, undefined);
      }, fault.latencyMs ?? 0);
      return;
    }
    serveMatched(req, exchange, match.route, route, fault);
  }

  function serveMatched(
    req: IncomingMessage,
    exchange: Exchange,
    matched: { pattern: string; handler: Handler },
    route: string,
    fault: PendingFault | undefined,
  ) {
    if (fault?.kind === "reset") exchange.reset();
    else if (fault?.kind === "hang") {
      // Only the time cap (or the client leaving) ends it.
    } else {
      const refusal = refusalOf(fault, req, matched.pattern, route);
      if (refusal) exchange.answerError(refusal);
      else exchange.run(matched.handler, fault);
    }
  }

  /**
   * The error a request gets before its handler runs: an injected fault, else the service's first
   * checks in its order (docs/service-contract.md §1): a bearer token present (so a tokenless request is 401
   * even when rate limited), then the rate limit. The handler goes on with the token's validity,
   * then the body.
   */
  function refusalOf(
    fault: PendingFault | undefined,
    req: IncomingMessage,
    pattern: string,
    route: string,
  ): ServiceError | undefined {
    if (fault?.kind === "rate_limit") return rateLimitFault(fault, now());
    if (fault?.kind === "error_500") return internalError();
    if (fault?.kind === "error_status") return statusFault(fault.status ?? 503);
    const access = accessOf(pattern);
    if (access === "token" && bearerToken(req.headers.authorization) === undefined) return missingToken();
    if (limiter && access !== "presigned") {
      const until = limiter.hit(req.socket.remoteAddress ?? "?", route, now());
      if (until !== undefined) return rateLimited(until);
    }
    return undefined;
  }

  let listening: Listening;
  try {
    listening = await listen(handle, options.port ?? DEFAULTS.port, warn);
  } catch (err) {
    core.shutdown();
    core.close();
    removeTempExportDir(settings);
    throw err;
  }
  const { server, port } = listening;
  const url = `http://127.0.0.1:${port}`;
  core.baseUrl = url;

  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    tokens: tokensOf(fixture, now()),
    fixture,
    faults,
    ...(adminToken !== undefined ? { adminToken } : {}),
    ...(dashboard !== undefined ? { dashboardUrl: `${url}${DASHBOARD_PATH}` } : {}),
    setPlacement: (mode) => core.setPlacement(mode),
    servers: () => [...core.servers.values()].map((r) => structuredClone(r.server)),
    killDeadline: (id) => core.servers.get(id)?.killAt,
    get requests() {
      return requests;
    },
    resetRequests: () => {
      requests = [];
    },
    watcherCount: () => core.watch.count,
    connectionCount: () => listening.connections(),
    mutate: mutations,
    stop() {
      stopped ??= (async () => {
        dashboard?.close();
        core.shutdown();
        // Let released watches write their answers before the sockets go.
        await new Promise((resolve) => setImmediate(resolve));
        host.caps.clear();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Answers waiting for their state write go out before the connections close.
        await core.settled();
        core.close();
        server.closeAllConnections();
        await closed;
        removeTempExportDir(settings);
      })();
      return stopped;
    },
  };
}

/** What an `error_status` fault answers: the service's internal error for 500, a gateway's failure otherwise. */
function statusFault(status: number): ServiceError {
  if (status === 500) return internalError();
  const what = status === 502 ? "Bad gateway" : status === 504 ? "Gateway timeout" : "Service unavailable";
  return new ServiceError(
    status,
    ERROR_CODES.internal,
    `${what}: the service could not answer. Try again later.`,
  );
}

const RATE_LIMIT_MESSAGE = "Rate limit exceeded for this endpoint: retry after the time in retry-after.";

/**
 * 429 `API_RATE_LIMIT` until `until` (epoch ms, a whole second), as the service words it
 * (docs/service-contract.md §8): `retry-after` is that instant as an HTTP date, and `metadata` is the same
 * instant in ms, a bare number. `retryAfter` replaces the header (injected faults in seconds style).
 */
function rateLimited(until: number, retryAfter = new Date(until).toUTCString()): ServiceError {
  return new ServiceError(429, ERROR_CODES.rateLimit, RATE_LIMIT_MESSAGE, until, {
    "retry-after": retryAfter,
  });
}

/**
 * 429 of an injected fault: the instant rounded up to a whole second, as an HTTP date can only say
 * that; `retry-after` as that date (the service's form) or, when asked, in seconds.
 */
function rateLimitFault(fault: PendingFault, now: number): ServiceError {
  const aheadMs = fault.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  const until = Math.ceil((now + aheadMs) / 1000) * 1000;
  return fault.retryAfter === "seconds"
    ? rateLimited(until, String(Math.ceil(aheadMs / 1000)))
    : rateLimited(until);
}
