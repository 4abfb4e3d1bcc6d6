import { randomBytes } from "node:crypto";
import { rm, rmdir } from "node:fs/promises";
import * as path from "node:path";
import type { Server } from "../api/schemas/servers";
import { authenticate } from "./auth";
import { ChangeFeed } from "./changeFeed";
import { type ExportRecord, ExportSigner } from "./exports";
import { type Fixture, jobDomainOf } from "./fixture";
import type { JsonReply, Reply } from "./http";
import { Placement, type PlacementMode } from "./placement";
import { PortAllocator, releasePorts, reservePorts, type ServerRecord } from "./servers";
import { exportChange, type PersistedState, serverChange } from "./stateFormat";
import { StateKeeping } from "./stateKeeping";
import { byUtf8 } from "./stringOrder";
import { WatchHub } from "./watch";
import { type WatchedView, WatchViews } from "./watchViews";
import { type Game, type Principal, World } from "./world";

export type { PlacementMode } from "./placement";
export type { WatchedView } from "./watchViews";

/** Options after defaults. */
export interface CoreOptions {
  watchHoldMs: number;
  watchMaxIndexAgeMs: number;
  placementDelayMs: number;
  placement: PlacementMode;
  bodyLimitBytes: number;
  exportDir: string;
  stateFile: string | undefined;
  /** Destroyed servers are dropped this long after their `destroyed_at`. */
  destroyedRetentionMs: number;
  now: () => number;
  /** Where the emulator's warnings go (see `EmulatorOptions.onWarning`). */
  warn: (message: string) => void;
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
  /** Reads the body (size-limited): empty as `{}`, else JSON; 400 `API_BAD_BODY` / 413 otherwise. */
  json(): Promise<unknown>;
}

/** A route handler; `undefined` means nobody is left to answer (the client went away). */
export type Handler = (
  core: EmulatorCore,
  ctx: RequestContext,
) => Promise<Reply | undefined> | Reply | undefined;

/**
 * The emulator's data and the rules shared by its routes: the servers and export records (their
 * changes kept by {@link StateKeeping}, placed by {@link Placement}, dropped after their retention
 * here), and watchable answers ({@link WatchViews}).
 */
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
  /** Every change to servers, exports and fixture data, as it happens (the dashboard listens). */
  readonly feed = new ChangeFeed();
  /** Datacenters in an outage: their servers wait unplaced until it ends (see `Chaos`). */
  readonly downDatacenters = new Set<string>();
  private readonly secret: string;
  private seq = 0;
  private readonly views: WatchViews;
  private readonly placement: Placement;
  private readonly keeping: StateKeeping;
  /** Deletes waiting for their state write, by server id. */
  private readonly pendingDeletes = new Map<string, Promise<void>>();
  /** Destroyed servers by id, oldest `destroyed_at` first: the order they are pruned in. */
  private readonly destroyed = new Map<string, number>();

  constructor(
    readonly fixture: Fixture,
    readonly options: CoreOptions,
  ) {
    this.world = new World(fixture);
    this.watch = new WatchHub(options.now, options.now());
    this.views = new WatchViews(this.watch, options);
    this.jobDomain = jobDomainOf(fixture);
    this.placement = new Placement(
      {
        ports: this.ports,
        jobDomain: this.jobDomain,
        now: () => this.now(),
        warn: options.warn,
        datacenterOf: (server) => this.datacenterOf(server),
        servers: () => this.servers.values(),
        changed: (record) => this.serverChanged(record.server.id),
        held: (server) => this.downDatacenters.has(server.datacenter),
        destroyed: (record) => this.markDestroyed(record),
        persist: () => this.persist(),
      },
      options.placement,
      options.placementDelayMs,
    );
    this.keeping = new StateKeeping(
      options.stateFile,
      { servers: this.servers, exports: this.exports, secret: () => this.secret },
      options.warn,
    );
    try {
      const saved = this.keeping.load();
      this.secret = saved?.secret ?? randomBytes(32).toString("hex");
      this.signer = new ExportSigner(this.secret);
      if (saved) this.restore(saved);
      this.prune();
      // Written once before listening: a state file that cannot be written refuses the start.
      this.keeping.writeNow();
    } catch (err) {
      this.shutdown();
      this.close();
      throw err;
    }
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
        if (record.server.started_at === undefined) this.placement.schedule(record);
      }
    }
    const destroyed = saved.servers.filter((r) => r.server.destroyed_at !== undefined);
    destroyed.sort((a, b) => (a.server.destroyed_at ?? 0) - (b.server.destroyed_at ?? 0));
    for (const { server } of destroyed) this.destroyed.set(server.id, server.destroyed_at ?? 0);
    for (const record of saved.exports) this.exports.set(record.uploadId, record);
    this.warnOfOtherFixture(saved.servers);
  }

  /**
   * A state file made with another fixture (or one since edited) holds servers of environments this one
   * lacks: they are kept, for that fixture's next start, but no route reaches them, so the user is told
   * rather than left wondering why the dashboard shows servers the API does not.
   */
  private warnOfOtherFixture(servers: readonly ServerRecord[]): void {
    const orphans = servers.filter((r) => !this.world.environments.has(r.server.environment));
    if (orphans.length === 0) return;
    const environments = [...new Set(orphans.map((r) => r.server.environment))].sort(byUtf8);
    this.options.warn(
      `the state file ${this.options.stateFile} holds ${orphans.length} server${orphans.length === 1 ? "" : "s"} of environments the fixture does not have (${environments.join(", ")}): was it made with another fixture? No route reaches them; start with that fixture, or pass another state file (--state).`,
    );
  }

  /**
   * Records the emulator's own changes (placement): drops what is past retention, then writes the
   * changes to the state file's journal when there is one. They are in effect at once; a failed
   * write is tried again with the next one (see {@link StateKeeping.save}).
   */
  persist(): Promise<void> {
    this.prune();
    return this.keeping.save();
  }

  /** A request's change, in effect once written (see {@link StateKeeping.commit}); prunes first. */
  private commit(changes: () => string[], apply: () => void): Promise<void> {
    this.prune();
    return this.keeping.commit(changes, apply);
  }

  /** Resolves when every state write started so far has ended (stop waits for it). */
  settled(): Promise<void> {
    return this.keeping.settled();
  }

  /** Releases the state file (its lock) once the emulator has stopped; after {@link settled}. */
  close(): void {
    this.keeping.close();
  }

  /** Adds an export record, in effect once it is on disk (see {@link commit}). */
  addExport(record: ExportRecord): Promise<void> {
    return this.commit(
      () => [exportChange(record)],
      () => {
        this.exports.set(record.uploadId, record);
        this.feed.export(record.uploadId);
      },
    );
  }

  /** A server was changed or dropped by the emulator itself: written with the next state write. */
  private serverChanged(id: string): void {
    this.keeping.serverChanged(id);
    this.feed.server(id);
  }

  /** An export record was dropped by the emulator itself: written with the next state write. */
  private exportChanged(uploadId: string): void {
    this.keeping.exportChanged(uploadId);
    this.feed.export(uploadId);
  }

  private markDestroyed(record: ServerRecord): void {
    this.serverChanged(record.server.id);
    this.destroyed.set(record.server.id, record.server.destroyed_at ?? this.now());
  }

  /**
   * Drops destroyed servers whose `destroyed_at` is older than the retention, and export records
   * whose URL has expired (no download can use them any more) with their CSV files.
   */
  private prune(): void {
    const cutoff = this.now() - this.options.destroyedRetentionMs;
    for (const [id, destroyedAt] of this.destroyed) {
      if (destroyedAt > cutoff) break;
      this.destroyed.delete(id);
      this.servers.delete(id);
      this.serverChanged(id);
    }
    const now = this.now();
    for (const record of this.exports.values()) {
      if (record.expiresAt > now) continue;
      this.exports.delete(record.uploadId);
      this.exportChanged(record.uploadId);
      // The file, then its directory if that is now empty: never a recursive removal of a path
      // read from the state file.
      rm(record.file, { force: true })
        .then(() => rmdir(path.dirname(record.file)).catch(() => undefined))
        .catch((err: unknown) =>
          this.options.warn(`cannot remove the expired export ${record.file}: ${String(err)}`),
        );
    }
  }

  /** The token of a request as a principal; see {@link authenticate}. */
  principal(ctx: RequestContext): Principal;
  principal(ctx: RequestContext, optional: true): Principal | undefined;
  principal(ctx: RequestContext, optional = false): Principal | undefined {
    return authenticate(this.world, ctx.authorization, this.now(), optional);
  }

  nodeIpOf(server: Server): string {
    return this.datacenterOf(server)?.nodeIp ?? "127.0.0.1";
  }

  private datacenterOf(server: Server): Game["datacenters"][number] | undefined {
    const hit = this.world.environments.get(server.environment);
    return hit?.game.datacenters.find((d) => d.id === server.datacenter);
  }

  /**
   * Adds a new server, listed and placed only once it is on disk (see {@link commit}): a create
   * answered with an error never shows, and is never written later.
   */
  addServer(server: Server, gameId: string): Promise<void> {
    const record: ServerRecord = { server, gameId, seq: ++this.seq };
    let text: string | undefined;
    return this.commit(
      () => {
        text = JSON.stringify(record);
        return [serverChange(text)];
      },
      () => {
        this.servers.set(server.id, record);
        this.keeping.written(server.id, text);
        this.placement.schedule(record);
        this.feed.server(server.id);
      },
    );
  }

  /** `never` holds servers unplaced; back to `auto` schedules every server still waiting. */
  setPlacement(mode: PlacementMode): void {
    this.placement.setMode(mode);
  }

  /** Whether new servers get placed now. */
  placementMode(): PlacementMode {
    return this.placement.current;
  }

  /**
   * Delete: `destroyed_at` now, SIGKILL due after the override or the stored kill timeout, in effect
   * (ports freed, the server shown destroyed) once that is on disk (see {@link commit}). A second
   * delete meanwhile waits for the first, as its answer says the server is gone; one of a server
   * already destroyed waits for what is still being written.
   */
  destroyServer(record: ServerRecord, overrideKillTimeout: number | undefined): Promise<void> {
    const { server } = record;
    if (server.destroyed_at !== undefined) return this.persist();
    const pending = this.pendingDeletes.get(server.id);
    if (pending) return pending;
    // Stamped when the write starts (or at once without a state file), so `destroyed_at` is the
    // instant the delete is written.
    let stamped: { destroyedAt: number; killAt: number } | undefined;
    const stamp = () => {
      if (stamped === undefined) {
        const destroyedAt = this.now();
        stamped = {
          destroyedAt,
          killAt: destroyedAt + (overrideKillTimeout ?? server.lifecycle.kill_timeout ?? 0),
        };
      }
      return stamped;
    };
    const deleted = this.commit(
      () => {
        const { destroyedAt, killAt } = stamp();
        const written: ServerRecord = { ...record, killAt, server: { ...server, destroyed_at: destroyedAt } };
        return [serverChange(JSON.stringify(written))];
      },
      () => {
        if (server.destroyed_at !== undefined) return;
        const { destroyedAt, killAt } = stamp();
        server.destroyed_at = destroyedAt;
        record.killAt = killAt;
        releasePorts(server, this.ports, this.nodeIpOf(server));
        this.placement.forget(server.id);
        // Its journal line holds it already: marked stale for snapshots, not written again.
        this.keeping.written(server.id, undefined);
        this.destroyed.set(server.id, destroyedAt);
        this.feed.server(server.id);
      },
    ).finally(() => this.pendingDeletes.delete(server.id));
    this.pendingDeletes.set(server.id, deleted);
    return deleted;
  }

  nextUploadId(): string {
    return crypto.randomUUID();
  }

  /** Records a change to the data the routes show (see {@link WatchViews.changed}). */
  changed(wakes: readonly string[] = []): void {
    this.views.changed(wakes);
    this.feed.data();
  }

  /** The request's `watch_index`, checked early (see {@link WatchViews.indexOf}). */
  watchIndexOf(ctx: RequestContext): number | undefined {
    return this.views.indexOf(ctx);
  }

  /** A watchable answer, held or at once (see {@link WatchViews.answerOf}). */
  watchable(
    ctx: RequestContext,
    since: number | undefined,
    view: WatchedView,
  ): JsonReply | Promise<JsonReply | undefined> {
    return this.views.answerOf(ctx, since, view);
  }

  /** Frees timers and held watches. */
  shutdown(): void {
    this.placement.cancel();
    this.watch.releaseAll();
  }
}
