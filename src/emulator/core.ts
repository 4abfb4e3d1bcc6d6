import { randomBytes } from "node:crypto";
import { ERROR_CODES } from "../api/errors";
import type { Server } from "../api/schemas/servers";
import { authenticate } from "./auth";
import { type ExportRecord, ExportSigner } from "./exports";
import { type Fixture, jobDomainOf } from "./fixture";
import { type JsonReply, ok, type Reply, ServiceError } from "./http";
import { PortAllocator, placeServer, releasePorts, reservePorts, type ServerRecord } from "./servers";
import { loadState, type PersistedState, saveState } from "./stateFile";
import { WatchHub } from "./watch";
import { type Principal, World } from "./world";

/** Whether new servers get placed. */
export type PlacementMode = "auto" | "never";

/** Options after defaults. */
export interface CoreOptions {
  watchHoldMs: number;
  watchMaxIndexAgeMs: number;
  placementDelayMs: number;
  placement: PlacementMode;
  bodyLimitBytes: number;
  exportDir: string;
  stateFile: string | undefined;
  now: () => number;
}

/** What a route handler sees of its request. */
export interface RequestContext {
  readonly method: string;
  readonly pathname: string;
  readonly query: URLSearchParams;
  /** The route's id segments, e.g. `game`, `env`, `server`. */
  readonly params: Readonly<Record<string, string>>;
  readonly rayId: string;
  readonly authorization: string | undefined;
  /** Aborts when the client goes away or the request runs past the time cap. */
  readonly signal: AbortSignal;
  /** Reads the body (size-limited) and parses it as JSON: 400 `API_BAD_BODY` / 413 otherwise. */
  json(): Promise<unknown>;
}

/** A route handler; `undefined` means nobody is left to answer (the client went away). */
export type Handler = (
  core: EmulatorCore,
  ctx: RequestContext,
) => Promise<Reply | undefined> | Reply | undefined;

/** The emulator's state and the rules shared by its routes. */
export class EmulatorCore {
  readonly world: World;
  readonly watch: WatchHub;
  readonly servers = new Map<string, ServerRecord>();
  readonly exports = new Map<string, ExportRecord>();
  readonly ports = new PortAllocator();
  readonly signer: ExportSigner;
  readonly jobDomain: string;
  /** Set once the HTTP server listens. */
  baseUrl = "";
  placement: PlacementMode;
  private readonly secret: string;
  private seq = 0;
  private readonly placementTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    readonly fixture: Fixture,
    readonly options: CoreOptions,
  ) {
    this.world = new World(fixture);
    this.watch = new WatchHub(options.now, options.now());
    this.jobDomain = jobDomainOf(fixture);
    this.placement = options.placement;
    const saved = options.stateFile ? loadState(options.stateFile) : undefined;
    this.secret = saved?.secret ?? randomBytes(32).toString("hex");
    this.signer = new ExportSigner(this.secret);
    if (saved) this.restore(saved);
  }

  now(): number {
    return this.options.now();
  }

  private restore(saved: PersistedState): void {
    for (const record of saved.servers) {
      this.servers.set(record.server.id, record);
      this.seq = Math.max(this.seq, record.seq);
      if (record.server.destroyed_at === undefined) {
        reservePorts(record.server, this.ports, this.nodeIpOf(record.server));
        if (record.server.started_at === undefined) this.schedulePlacement(record);
      }
    }
    for (const record of saved.exports) this.exports.set(record.uploadId, record);
  }

  /** Writes the state file (when there is one) after a mutation. */
  persist(): void {
    if (!this.options.stateFile) return;
    saveState(this.options.stateFile, {
      version: 1,
      secret: this.secret,
      servers: [...this.servers.values()],
      exports: [...this.exports.values()],
    });
  }

  /** The token of a request as a principal; see {@link authenticate}. */
  principal(ctx: RequestContext): Principal;
  principal(ctx: RequestContext, optional: true): Principal | undefined;
  principal(ctx: RequestContext, optional = false): Principal | undefined {
    return authenticate(this.world, ctx.authorization, this.now(), optional);
  }

  nodeIpOf(server: Server): string {
    const hit = this.world.environments.get(server.environment);
    return hit?.game.datacenters.find((d) => d.id === server.datacenter)?.nodeIp ?? "127.0.0.1";
  }

  addServer(server: Server, gameId: string): ServerRecord {
    const record: ServerRecord = { server, gameId, seq: ++this.seq };
    this.servers.set(server.id, record);
    this.persist();
    this.schedulePlacement(record);
    return record;
  }

  private schedulePlacement(record: ServerRecord): void {
    if (this.placement === "never" || this.placementTimers.has(record.server.id)) return;
    const timer = setTimeout(() => {
      this.placementTimers.delete(record.server.id);
      this.place(record);
    }, this.options.placementDelayMs);
    this.placementTimers.set(record.server.id, timer);
  }

  private place(record: ServerRecord): void {
    const { server } = record;
    if (this.placement === "never" || server.destroyed_at !== undefined || server.started_at !== undefined)
      return;
    placeServer(server, this.ports, {
      nodeIp: this.nodeIpOf(server),
      jobDomain: this.jobDomain,
      now: this.now(),
    });
    this.persist();
  }

  /** `never` holds servers unplaced; back to `auto` schedules every server still waiting. */
  setPlacement(mode: PlacementMode): void {
    this.placement = mode;
    if (mode === "never") {
      for (const timer of this.placementTimers.values()) clearTimeout(timer);
      this.placementTimers.clear();
      return;
    }
    for (const record of this.servers.values()) {
      if (record.server.destroyed_at === undefined && record.server.started_at === undefined) {
        this.schedulePlacement(record);
      }
    }
  }

  /** Delete: `destroyed_at` now, SIGKILL due after the override or the stored kill timeout. */
  destroyServer(record: ServerRecord, overrideKillTimeout: number | undefined): void {
    const { server } = record;
    if (server.destroyed_at === undefined) {
      const now = this.now();
      server.destroyed_at = now;
      record.killAt = now + (overrideKillTimeout ?? server.lifecycle.kill_timeout ?? 0);
      releasePorts(server, this.ports, this.nodeIpOf(server));
      const timer = this.placementTimers.get(server.id);
      if (timer) clearTimeout(timer);
      this.placementTimers.delete(server.id);
    }
    this.persist();
  }

  nextUploadId(): string {
    return crypto.randomUUID();
  }

  /**
   * The request's `watch_index`, checked early (validation comes before existence): a decimal
   * string as an earlier `watch.index` was, else 400 `API_BAD_QUERY_PARAMETER`.
   */
  watchIndexOf(ctx: RequestContext): number | undefined {
    const raw = ctx.query.get("watch_index");
    if (raw === null) return undefined;
    if (!/^\d{1,16}$/.test(raw)) {
      throw new ServiceError(
        400,
        ERROR_CODES.badQueryParameter,
        `Invalid query parameter: watch_index: must be a decimal string of at most 16 digits (a watch.index from an earlier answer), got ${JSON.stringify(raw)}`,
      );
    }
    return Number(raw);
  }

  /**
   * A watchable answer (service-facts §5): at once without `watch_index`, when the data changed
   * after it, or when it is too old; otherwise held until the next change or `watchHoldMs`.
   */
  async watchable(
    ctx: RequestContext,
    since: number | undefined,
    keys: readonly string[],
    render: () => Record<string, unknown>,
  ): Promise<JsonReply | undefined> {
    const answer = (index: number) => ok({ ...render(), watch: { index: String(index) } });
    if (since === undefined) return answer(this.watch.index(keys));
    const current = this.watch.index(keys);
    if (current > since) return answer(current);
    if (this.now() - (since - 1) > this.options.watchMaxIndexAgeMs)
      return answer(this.watch.freshIndex(keys));
    const reason = await this.watch.wait(keys, this.options.watchHoldMs, ctx.signal);
    if (reason === "aborted") return undefined;
    return reason === "changed" ? answer(this.watch.index(keys)) : answer(this.watch.freshIndex(keys));
  }

  /** Frees timers and held watches. */
  shutdown(): void {
    for (const timer of this.placementTimers.values()) clearTimeout(timer);
    this.placementTimers.clear();
    this.watch.releaseAll();
  }
}
