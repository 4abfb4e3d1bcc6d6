import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../version";
import {
  type ClientOptions,
  type ExportOptions,
  negativeNumberIssues,
  type RequestOptions,
  unknownOptionIssues,
  type WatchableOptions,
  type WatchOptions,
} from "./clientOptions";
import { noteClientOrigins } from "./clientOrigins";
import {
  checkBaseUrl,
  checkToken,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  originsOf,
  readSettings,
} from "./config";
import {
  GamehostApiError,
  GamehostDeadlineError,
  GamehostError,
  GamehostValidationError,
  notTheApiAdvice,
  type SettingOrigins,
} from "./errors";
// The public signatures use the generated plain declarations, never the schemas' `z.infer` types, so a
// program's type check of this module does not reach zod's typings.
import type * as wire from "./generated/wire";
import type { FieldIssue } from "./issues";
import { type ProxyEnvironment, proxyEnvironment } from "./proxy";
import { redactError, secretsOfUrl } from "./redact";
import { parseRetryAfter, type ResolvedRetryPolicy, resolveRetryPolicy, withRetries } from "./retry";
import {
  Bootstrap,
  CreatePaymentPortalSessionRequest,
  CreatePaymentPortalSessionResponse,
  GetGameResponse,
  GetGroupBillingResponse,
  ListGamesResponse,
} from "./schemas/cloud";
import { EmptyResponse, ErrorBody, UUID_RULE, Uuid, WatchIndex } from "./schemas/common";
import { ExportLobbyHistoryRequest, ExportLobbyHistoryResponse } from "./schemas/lobbies";
import {
  CreateServerRequest,
  DeleteServerQuery,
  ListBuildsQuery,
  ListBuildsResponse,
  ListDatacentersResponse,
  ListServersQuery,
  ListServersResponse,
  ServerResponse,
} from "./schemas/servers";
import {
  type ClientEvent,
  type ResolvedTimeouts,
  readText,
  resolveTimeouts,
  send,
  sharedDispatcher,
  type TransportResponse,
} from "./transport";
import { parseWith } from "./validate";
import { MAX_TIMER_MS, serviceClockOffset } from "./wait";
import { watchVersions } from "./watch";

export type {
  ClientOptions,
  ExportOptions,
  RequestOptions,
  WatchableOptions,
  WatchOptions,
} from "./clientOptions";
export type { RetryPolicy } from "./retry";
export type { ClientEvent, Timeouts } from "./transport";
export type { WatchPacing } from "./watch";

/** The longest the service holds a watch call before answering (docs/service-contract.md §5), in ms. */
export const WATCH_HOLD_MS = 40_000;

/** Counters of a client's traffic, for fault campaigns and metrics. */
export interface ClientStats {
  /** Calls sent (each counted once, however many attempts it took). */
  requests: number;
  /** Extra attempts made by retries. */
  retries: number;
}

type Method = "GET" | "POST" | "DELETE";
type QueryValue = string | number | boolean | undefined;

/** One endpoint call, described once and run by {@link GamehostClient.call}. */
interface Call<S extends z.ZodType> {
  method: Method;
  /** Path template as documented, e.g. `/cloud/games/{game_id}`: named in validation errors. */
  template: string;
  /** Path parameters (all UUIDs), by their template names. */
  ids?: Record<string, string>;
  /** Ids inside the body (`datacenter`, `build`), named by a not-found error. */
  bodyIds?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  response: S;
  /** Long-poll: headers may take up to the service's hold. */
  watch?: boolean;
  options?: RequestOptions | undefined;
}

/** One request as {@link GamehostClient} hands it to the transport. */
interface Exchange {
  method: Method;
  url: URL;
  /** Path for errors and events (no query). */
  path: string;
  body?: string | undefined;
  /** A call of the hosting API (token, JSON); false for the export download. */
  api: boolean;
  /** Long-poll: allow the longer headers timeout. */
  watch?: boolean;
  signal: AbortSignal | undefined;
  /** Epoch ms by which the call must end (retries included). */
  deadline?: number | undefined;
}

/** The signal and deadline of one call: the caller's signal, or the call's deadline passing. */
interface CallScope {
  signal: AbortSignal;
  deadline: number | undefined;
  /** Stops the deadline's timer only (the caller's signal still aborts). */
  stopDeadline(): void;
  /** Stops the deadline's timer and lets go of the caller's signal. */
  done(): void;
}

/**
 * Path ids are checked before anything is sent (a non-UUID would only meet a 404), each bad one named;
 * any form the service parses is accepted and sent in its canonical form.
 */
function canonicalIds(method: Method, template: string, ids: Record<string, string>): Record<string, string> {
  const issues: FieldIssue[] = [];
  const canonical: Record<string, string> = {};
  for (const [name, value] of Object.entries(ids)) {
    const result = Uuid.safeParse(value);
    if (result.success) canonical[name] = result.data;
    else issues.push({ path: name, message: UUID_RULE });
  }
  if (issues.length > 0) throw new GamehostValidationError(`path of ${method} ${template}`, issues);
  return canonical;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The instant (epoch ms) a 429 names: the precise one in `metadata` if present, else `Retry-After`. Both are
 * in the service's clock, moved into this machine's by the answer's `Date` header when they differ.
 */
function retryAfterOf(headers: IncomingHttpHeaders, metadata: unknown, now: number): number | undefined {
  const offset = serviceClockOffset(headers.date, now);
  const fromMetadata = epochFromMetadata(metadata);
  if (fromMetadata !== undefined) return fromMetadata + offset;
  return parseRetryAfter(headers["retry-after"], now, offset);
}

// Plausible epoch-ms range (2001–2286): tells a timestamp apart from counts and limits in metadata.
const isEpochMs = (n: unknown): n is number => typeof n === "number" && n > 1e12 && n < 1e13;

function epochFromMetadata(metadata: unknown): number | undefined {
  if (isEpochMs(metadata)) return metadata;
  if (typeof metadata !== "object" || metadata === null) return undefined;
  for (const [key, value] of Object.entries(metadata)) {
    if (/retry|reset|until|window|end/i.test(key) && isEpochMs(value)) return value;
  }
  return undefined;
}

function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * Typed client of the hosting API. Requests are validated strictly before sending, answers
 * tolerantly after; idempotent calls are retried by undici's retry interceptor; failures are
 * {@link GamehostApiError} (the service said no), {@link GamehostNetworkError} (no answer) or
 * {@link GamehostValidationError} (bad input, or an answer missing required fields).
 */
export class GamehostClient {
  /** Base URL, without trailing slash. */
  readonly baseUrl: string;
  /** Traffic counters. */
  readonly stats: ClientStats = { requests: 0, retries: 0 };

  /** How far this machine's clock reads ahead of the service's, by the last answer's `Date` header. */
  #clockOffsetMs = 0;

  /**
   * The service's clock now (epoch ms), as its last answer's `Date` header showed it: this machine's clock
   * when the two agree within 2 s or nothing was asked yet. Ages of what the service made (`created_at`)
   * are counted from it, so a clock minutes off neither shows a new server as 0 s old nor as minutes old.
   */
  serviceNow(): number {
    return Date.now() - this.#clockOffsetMs;
  }

  readonly #token: string | undefined;
  readonly #retry: ResolvedRetryPolicy;
  readonly #timeouts: ResolvedTimeouts;
  /** `timeouts.headersMs` when given (it wins over requestTimeoutMs): a timeout of a call names it. */
  readonly #headersTimeoutOption: "timeouts.headersMs" | undefined;
  readonly #callTimeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #userAgent: string;
  readonly #dispatcher: Dispatcher;
  /** The proxy environment the shared dispatcher follows; none with a dispatcher given in code. */
  readonly #proxies: ProxyEnvironment | undefined;
  readonly #onEvent: ((event: ClientEvent) => void) | undefined;
  /** Where the settings came from: errors say where to fix the token or base URL. */
  readonly #origins: SettingOrigins;

  /**
   * @param options explicit settings; each missing one is read from `GAMEHOST_*` environment
   * variables. The base URL is required (a {@link GamehostConfigError} names the option `baseUrl`
   * and `GAMEHOST_BASE_URL`); without a token no `Authorization` header is sent. An explicit
   * empty `token` means "no token" even when `GAMEHOST_TOKEN` is set.
   */
  constructor(options: ClientOptions = {}) {
    // First: `{ baseURL }` is named as the misspelling it is, not reported as a missing baseUrl.
    const unknown = unknownOptionIssues(options);
    if (unknown.length > 0) throw new GamehostValidationError("client options", unknown);
    const env = readSettings();
    this.#origins = originsOf(options, env);
    noteClientOrigins(this, this.#origins);
    this.baseUrl = checkBaseUrl(options.baseUrl ?? env.baseUrl, this.#origins);
    this.#token = checkToken(
      options.token !== undefined ? options.token || undefined : env.token,
      this.#origins,
    );

    const negative = negativeNumberIssues(options);
    if (negative.length > 0) throw new GamehostValidationError("client options", negative);

    this.#retry = resolveRetryPolicy(options.retry, options.maxRetries ?? env.maxRetries);
    this.#timeouts = resolveTimeouts(options.timeouts, options.requestTimeoutMs ?? env.requestTimeoutMs);
    this.#headersTimeoutOption = options.timeouts?.headersMs !== undefined ? "timeouts.headersMs" : undefined;
    // 0 turns a bound off, as it does for undici's timeouts.
    this.#callTimeoutMs = options.callTimeoutMs ?? env.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.#maxResponseBytes = options.maxResponseBytes ?? env.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const suffix = options.userAgent?.trim();
    this.#userAgent = `${PACKAGE_NAME}/${PACKAGE_VERSION}${suffix ? ` ${suffix}` : ""}`;
    // A dispatcher given in code is the caller's whole choice of route; the shared one follows the proxy
    // environment, read once here so that an error names the proxy a request went through.
    this.#proxies = options.dispatcher ? undefined : proxyEnvironment();
    this.#dispatcher = options.dispatcher
      ? withRetries(options.dispatcher)
      : sharedDispatcher(this.#timeouts.connectMs, this.#proxies);
    this.#onEvent = options.onEvent;
  }

  /** `GET /cloud/bootstrap`: what a client needs to know about this deployment. */
  async getBootstrap(o?: RequestOptions): Promise<wire.Bootstrap> {
    return this.call({ method: "GET", template: "/cloud/bootstrap", response: Bootstrap, options: o });
  }

  /** `GET /cloud/games`: the games of the identity's groups, and those groups. */
  async listGames(o?: WatchableOptions): Promise<wire.ListGamesResponse> {
    return this.call({
      method: "GET",
      template: "/cloud/games",
      query: { watch_index: o?.watchIndex },
      watch: o?.watchIndex !== undefined,
      response: ListGamesResponse,
      options: o,
    });
  }

  /** `GET /cloud/games/{game_id}`: one game with its regions, namespaces (environments) and versions. */
  async getGame(gameId: string, o?: WatchableOptions): Promise<wire.GetGameResponse> {
    return this.call({
      method: "GET",
      template: "/cloud/games/{game_id}",
      ids: { game_id: gameId },
      query: { watch_index: o?.watchIndex },
      watch: o?.watchIndex !== undefined,
      response: GetGameResponse,
      options: o,
    });
  }

  /**
   * `POST …/servers`: creates a dynamic server. Never retried: after a lost answer
   * ({@link GamehostNetworkError} with `mayHaveCommitted`) the server may exist; look it up by tags.
   */
  async createServer(
    gameId: string,
    environmentId: string,
    body: wire.CreateServerRequest,
    o?: RequestOptions,
  ): Promise<wire.Server> {
    const template = "/games/{game_id}/environments/{environment_id}/servers";
    const checked = parseWith(CreateServerRequest, body, `request body of POST ${template}`);
    const answer = await this.call({
      method: "POST",
      template,
      ids: { game_id: gameId, environment_id: environmentId },
      bodyIds: { datacenter: checked.datacenter, build: checked.runtime.build },
      body: checked,
      response: ServerResponse,
      options: o,
    });
    return answer.server;
  }

  /** `GET …/servers/{server_id}`: a server, destroyed ones included (with `destroyed_at`). */
  async getServer(
    gameId: string,
    environmentId: string,
    serverId: string,
    o?: RequestOptions,
  ): Promise<wire.Server> {
    const answer = await this.call({
      method: "GET",
      template: "/games/{game_id}/environments/{environment_id}/servers/{server_id}",
      ids: { game_id: gameId, environment_id: environmentId, server_id: serverId },
      response: ServerResponse,
      options: o,
    });
    return answer.server;
  }

  /** `DELETE …/servers/{server_id}`: destroys a server, optionally with a shorter kill timeout. */
  async deleteServer(
    gameId: string,
    environmentId: string,
    serverId: string,
    query?: wire.DeleteServerQuery,
    o?: RequestOptions,
  ): Promise<void> {
    const template = "/games/{game_id}/environments/{environment_id}/servers/{server_id}";
    const q = parseWith(DeleteServerQuery, query ?? {}, `query of DELETE ${template}`);
    await this.call({
      method: "DELETE",
      template,
      ids: { game_id: gameId, environment_id: environmentId, server_id: serverId },
      query: { override_kill_timeout: q.override_kill_timeout },
      response: EmptyResponse,
      options: o,
    });
  }

  /** `GET …/servers`: servers newest first, filtered by tag containment; destroyed ones on request. */
  async listServers(
    gameId: string,
    environmentId: string,
    query?: wire.ListServersQuery,
    o?: RequestOptions,
  ): Promise<wire.Server[]> {
    const template = "/games/{game_id}/environments/{environment_id}/servers";
    const q = parseWith(ListServersQuery, query ?? {}, `query of GET ${template}`);
    const answer = await this.call({
      method: "GET",
      template,
      ids: { game_id: gameId, environment_id: environmentId },
      query: {
        tags_json: q.tags !== undefined ? JSON.stringify(q.tags) : undefined,
        include_destroyed: q.include_destroyed,
        cursor: q.cursor,
      },
      response: ListServersResponse,
      options: o,
    });
    return answer.servers;
  }

  /** `GET …/datacenters`: datacenters of the game's cluster, sorted by slug. */
  async listDatacenters(
    gameId: string,
    environmentId: string,
    o?: RequestOptions,
  ): Promise<wire.Datacenter[]> {
    const answer = await this.call({
      method: "GET",
      template: "/games/{game_id}/environments/{environment_id}/datacenters",
      ids: { game_id: gameId, environment_id: environmentId },
      response: ListDatacentersResponse,
      options: o,
    });
    return answer.datacenters;
  }

  /** `GET …/builds`: builds of the environment, filtered by tag containment. */
  async listBuilds(
    gameId: string,
    environmentId: string,
    query?: wire.ListBuildsQuery,
    o?: RequestOptions,
  ): Promise<wire.Build[]> {
    const template = "/games/{game_id}/environments/{environment_id}/builds";
    const q = parseWith(ListBuildsQuery, query ?? {}, `query of GET ${template}`);
    const answer = await this.call({
      method: "GET",
      template,
      ids: { game_id: gameId, environment_id: environmentId },
      query: { tags_json: q.tags !== undefined ? JSON.stringify(q.tags) : undefined },
      response: ListBuildsResponse,
      options: o,
    });
    return answer.builds;
  }

  /**
   * `POST /cloud/games/{game_id}/matchmaker/lobbies/export-history`: exports the lobby history of a
   * span (epoch ms) as CSV. The answer's `url` is a presigned secret valid for one hour.
   */
  async exportLobbyHistory(
    gameId: string,
    body: wire.ExportLobbyHistoryRequest,
    o?: RequestOptions,
  ): Promise<wire.ExportLobbyHistoryResponse> {
    const template = "/cloud/games/{game_id}/matchmaker/lobbies/export-history";
    return this.call({
      method: "POST",
      template,
      ids: { game_id: gameId },
      body: parseWith(ExportLobbyHistoryRequest, body, `request body of POST ${template}`),
      response: ExportLobbyHistoryResponse,
      options: o,
    });
  }

  /** `GET /cloud/groups/{group_id}/billing`: billing timestamps of a group. */
  async getGroupBilling(groupId: string, o?: WatchableOptions): Promise<wire.GetGroupBillingResponse> {
    return this.call({
      method: "GET",
      template: "/cloud/groups/{group_id}/billing",
      ids: { group_id: groupId },
      query: { watch_index: o?.watchIndex },
      watch: o?.watchIndex !== undefined,
      response: GetGroupBillingResponse,
      options: o,
    });
  }

  /** `POST /cloud/groups/{group_id}/billing/payment-portal-session`: a short-lived, personal portal URL. */
  async createPaymentPortalSession(
    groupId: string,
    body: wire.CreatePaymentPortalSessionRequest,
    o?: RequestOptions,
  ): Promise<wire.CreatePaymentPortalSessionResponse> {
    const template = "/cloud/groups/{group_id}/billing/payment-portal-session";
    return this.call({
      method: "POST",
      template,
      ids: { group_id: groupId },
      body: parseWith(CreatePaymentPortalSessionRequest, body, `request body of POST ${template}`),
      response: CreatePaymentPortalSessionResponse,
      options: o,
    });
  }

  /**
   * Each new version of the game list, until `o.signal` fires (see {@link watchVersions}). Calls are
   * paced: answers that come back faster than `o.minIntervalMs` make the loop back off.
   */
  watchGames(o?: WatchOptions): AsyncIterableIterator<wire.ListGamesResponse> {
    return watchVersions(
      (watchIndex, signal) => this.listGames({ ...(signal ? { signal } : {}), ...indexOption(watchIndex) }),
      o?.signal,
      o,
    );
  }

  /** Each new version of one game, until `o.signal` fires (paced as {@link watchGames}). */
  watchGame(gameId: string, o?: WatchOptions): AsyncIterableIterator<wire.GetGameResponse> {
    return watchVersions(
      (watchIndex, signal) =>
        this.getGame(gameId, { ...(signal ? { signal } : {}), ...indexOption(watchIndex) }),
      o?.signal,
      o,
    );
  }

  /** Each new version of a group's billing, until `o.signal` fires (paced as {@link watchGames}). */
  watchGroupBilling(groupId: string, o?: WatchOptions): AsyncIterableIterator<wire.GetGroupBillingResponse> {
    return watchVersions(
      (watchIndex, signal) =>
        this.getGroupBilling(groupId, { ...(signal ? { signal } : {}), ...indexOption(watchIndex) }),
      o?.signal,
      o,
    );
  }

  /**
   * GETs a presigned export URL (absolute; sent WITHOUT the `Authorization` header, since it is
   * another origin in production) and returns the body as a byte stream, which the caller must
   * consume or destroy. Errors and events name only the URL's path: its query is the secret.
   */
  async openExport(url: string, o?: ExportOptions): Promise<Readable> {
    try {
      return await this.downloadExport(url, o);
    } catch (error) {
      // The URL's query is its signature: a download host that echoes the request must not leak it.
      throw this.redacted(error, secretsOfUrl(url));
    }
  }

  private async downloadExport(url: string, o?: ExportOptions): Promise<Readable> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new GamehostValidationError("export URL", [{ path: "url", message: "must be an absolute URL" }]);
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      throw new GamehostValidationError("export URL", [{ path: "url", message: "must be an http(s) URL" }]);
    }
    const path = target.pathname;
    // The deadline covers getting the answer; the CSV itself then streams at the caller's pace,
    // uncapped, each pause bounded by the body timeout (and the whole of it by the deadline, `wholeBody`).
    const scope = this.scope("GET", path, o?.signal, false);
    try {
      const res = await this.exchange({
        method: "GET",
        url: target,
        path,
        api: false,
        signal: scope.signal,
        deadline: scope.deadline,
      });
      if (res.status >= 200 && res.status < 300) {
        // The stream is the caller's now: no deadline unless asked, but the caller's signal still ends it.
        if (!o?.wholeBody) scope.stopDeadline();
        res.body.once("close", scope.done);
        return res.body;
      }
      const text = await readText(res, "GET", path, scope.signal, this.#maxResponseBytes || undefined);
      throw this.apiError("GET", path, res, text);
    } catch (err) {
      scope.done();
      throw err;
    }
  }

  /**
   * The signal of one call: it fires when the caller's does (with its reason) or when the call's
   * total deadline passes (with a {@link GamehostDeadlineError}). A watch call gets the service's
   * hold on top of the deadline.
   */
  private scope(method: Method, path: string, outer: AbortSignal | undefined, watch: boolean): CallScope {
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener("abort", onOuterAbort, { once: true });
    const totalMs = this.#callTimeoutMs > 0 ? this.#callTimeoutMs + (watch ? WATCH_HOLD_MS : 0) : 0;
    const timer =
      totalMs > 0
        ? setTimeout(
            () => controller.abort(new GamehostDeadlineError(method, path, totalMs)),
            Math.min(totalMs, MAX_TIMER_MS),
          )
        : undefined;
    return {
      signal: controller.signal,
      deadline: totalMs > 0 ? Date.now() + totalMs : undefined,
      stopDeadline: () => clearTimeout(timer),
      done: () => {
        clearTimeout(timer);
        outer?.removeEventListener("abort", onOuterAbort);
      },
    };
  }

  /** Runs one call; whatever it throws leaves with the token redacted. */
  private async call<S extends z.ZodType>(spec: Call<S>): Promise<z.output<S>> {
    try {
      return await this.runCall(spec);
    } catch (error) {
      throw this.redacted(error);
    }
  }

  /** Validates, sends, reads and validates one call. */
  private async runCall<S extends z.ZodType>(spec: Call<S>): Promise<z.output<S>> {
    const { method, template } = spec;
    const signal = spec.options?.signal;
    const ids = spec.ids ? canonicalIds(method, template, spec.ids) : {};
    const watchIndex = spec.query?.watch_index;
    if (watchIndex !== undefined) parseWith(WatchIndex, watchIndex, `watch_index of ${method} ${template}`);

    let path = template;
    for (const [name, value] of Object.entries(ids)) {
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    }
    const url = new URL(`${this.baseUrl}${path}${encodeQuery(spec.query)}`);
    const body = spec.body !== undefined ? JSON.stringify(spec.body) : undefined;
    const scope = this.scope(method, path, signal, spec.watch === true);
    let res: TransportResponse;
    let text: string;
    try {
      res = await this.exchange({
        method,
        url,
        path,
        body,
        api: true,
        watch: spec.watch === true,
        signal: scope.signal,
        deadline: scope.deadline,
      });
      text = await readText(res, method, path, scope.signal, this.#maxResponseBytes || undefined);
    } finally {
      scope.done();
    }
    if (res.status < 200 || res.status >= 300)
      throw this.apiError(method, path, res, text, { ...ids, ...spec.bodyIds });

    const where = `response of ${method} ${template}`;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new GamehostValidationError(where, [
        { path: "", message: `is not valid JSON: ${notTheApiAdvice(this.baseUrl, this.#origins)}` },
      ]);
    }
    return parseWith(spec.response, json, where, text.length);
  }

  /** Sends one call and emits its events; the body of the answer is left to the caller. */
  private async exchange(call: Exchange): Promise<TransportResponse> {
    const { method, url, path, body, signal } = call;
    // The export download goes to another origin (object storage): no token, no JSON expectations.
    const headers: Record<string, string> = {
      "user-agent": this.#userAgent,
      accept: call.api ? "application/json" : "*/*",
    };
    if (call.api && this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (body !== undefined) headers["content-type"] = "application/json";

    this.stats.requests += 1;
    this.emit({ type: "request", method, path });
    const res = await send(this.#dispatcher, {
      method,
      url,
      path,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal,
      headersTimeoutMs: call.watch ? this.#timeouts.watchHeadersMs : this.#timeouts.headersMs,
      headersTimeoutOption: call.watch ? "timeouts.watchHeadersMs" : this.#headersTimeoutOption,
      bodyTimeoutMs: this.#timeouts.bodyMs,
      retry: this.#retry,
      deadline: call.deadline,
      origins: this.#origins,
      proxy: this.#proxies?.proxyFor(url),
      onRetry: (notice) => {
        this.stats.retries += 1;
        this.emit({ type: "retry", method, path, ...notice });
      },
    });
    this.emit({ type: "response", method, path, status: res.status, attempt: res.attempts });
    // The API's answers only: a download comes from another origin (object storage), with its own clock.
    if (call.api) this.#clockOffsetMs = serviceClockOffset(res.headers.date);
    return res;
  }

  /** The service's error answer as a {@link GamehostApiError}, whatever its body looks like. */
  private apiError(
    method: Method,
    path: string,
    res: TransportResponse,
    text: string,
    ids: Record<string, string> = {},
  ): GamehostApiError {
    let parsed: ErrorBody | undefined;
    try {
      const result = ErrorBody.safeParse(JSON.parse(text));
      if (result.success) parsed = result.data;
    } catch {
      // Not JSON (a proxy's HTML page, an object store's XML…): described below from the status.
    }
    const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
    const rayId = parsed?.ray_id ?? header(res.headers, "rvt-ray-id");
    const retryAfterMs =
      res.status === 429 ? retryAfterOf(res.headers, parsed?.metadata, Date.now()) : undefined;
    return new GamehostApiError({
      method,
      path,
      status: res.status,
      code: parsed?.code ?? `HTTP_${res.status}`,
      message: parsed?.message ?? (snippet || `HTTP ${res.status} without a body`),
      ...(rayId !== undefined ? { rayId } : {}),
      ...(parsed?.documentation !== undefined ? { documentation: parsed.documentation } : {}),
      ...(parsed?.metadata !== undefined ? { metadata: parsed.metadata } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ids,
      baseUrl: this.baseUrl,
      origins: this.#origins,
      fromService: parsed !== undefined,
      proxy: res.proxy,
      redirect: redirectOf(res, `${this.baseUrl}${path}`, path),
    });
  }

  /**
   * A service or proxy that echoes the request must not leak the token (nor a presigned URL's query,
   * `secrets`) through an error: every error of this package leaves the client through here (the
   * caller's own abort reason untouched).
   */
  private redacted(error: unknown, secrets: readonly string[] = []): unknown {
    if (!(error instanceof GamehostError)) return error;
    // A proxy's page may echo the request's Proxy-Authorization, or its credentials, too.
    const proxySecrets = [...(this.#proxies?.http?.secrets ?? []), ...(this.#proxies?.https?.secrets ?? [])];
    const all = [...(this.#token ? [this.#token] : []), ...proxySecrets, ...secrets];
    return redactError(error, all);
  }

  private emit(event: ClientEvent): void {
    if (!this.#onEvent) return;
    try {
      this.#onEvent(event);
    } catch {
      // A failing listener must not fail the call it observes.
    }
  }
}

/** A 3xx answer's target, as {@link ApiErrorInit.redirect} has it; `undefined` for any other answer. */
function redirectOf(
  res: TransportResponse,
  requestUrl: string,
  path: string,
): { to: string; base?: string } | undefined {
  const location = header(res.headers, "location");
  if (res.status < 300 || res.status > 399 || location === undefined) return undefined;
  let target: URL;
  try {
    target = new URL(location, requestUrl);
  } catch {
    return undefined;
  }
  const to = `${target.origin}${target.pathname}`;
  const base = target.pathname.endsWith(path)
    ? `${target.origin}${target.pathname.slice(0, -path.length)}`
    : undefined;
  return base !== undefined ? { to, base } : { to };
}

function indexOption(watchIndex: string | undefined): { watchIndex?: string } {
  return watchIndex !== undefined ? { watchIndex } : {};
}
