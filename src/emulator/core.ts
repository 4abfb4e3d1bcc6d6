import { randomBytes } from "node:crypto";
import { rm, rmdir } from "node:fs/promises";
import * as path from "node:path";
import { z } from "zod";
import { ERROR_CODES } from "../api/errors";
import { WatchIndex } from "../api/schemas/common";
import { portNeverStarts, type Server } from "../api/schemas/servers";
import { authenticate } from "./auth";
import { type ExportRecord, ExportSigner } from "./exports";
import { type Fixture, jobDomainOf } from "./fixture";
import { type JsonReply, type Reply, ServiceError } from "./http";
import { PortAllocator, placeServer, releasePorts, reservePorts, type ServerRecord } from "./servers";
import { StateFile, StateWriteError } from "./stateFile";
import {
  dropExportChange,
  dropServerChange,
  exportChange,
  type PersistedState,
  type StateText,
  serverChange,
  snapshotText,
} from "./stateFormat";
import { parseQuery } from "./validation";
import { WatchHub } from "./watch";
import { type Game, type Principal, World } from "./world";

/** The `watch_index` query parameter, by the shared rule. */
const WatchIndexQuery = z.object({ watch_index: WatchIndex });

/**
 * 503 `EMULATOR_STATE_NOT_SAVED`: the state file could not be written (a full disk, a read-only
 * mount), so the request changed nothing; worth another try (docs/service-contract.md §2).
 */
function notSaved(err: unknown): never {
  if (!(err instanceof StateWriteError)) throw err;
  throw new ServiceError(
    503,
    ERROR_CODES.stateNotSaved,
    `The emulator could not write this change to its state file (${err.code ?? "write failed"}), so it made none: try again later.`,
    undefined,
    { "retry-after": "1" },
  );
}

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
 * Watchable data as one route shows it to one caller. Whatever `keys` and `render` return must
 * depend only on the emulator's data (every change to it goes through {@link EmulatorCore.changed})
 * and on what `cacheKey` names.
 */
export interface WatchedView {
  /** Names the view, e.g. `games:user:<identity id>`: equal keys must render equal answers. */
  cacheKey: string;
  /** The watch keys of the game updates that wake a watch of the view (docs/service-contract.md §5). */
  keys(): readonly string[];
  /** The answer without its `watch` field. */
  render(): Record<string, unknown>;
}

/** A view at one data version: its watch keys, and what was rendered of it so far. */
interface RenderedView {
  version: number;
  keys: readonly string[];
  /** `render()`'s result, and its JSON up to where the `watch` field goes. */
  data?: Record<string, unknown>;
  head?: string;
  /** The last answer, for the index it carries. */
  index?: number;
  reply?: JsonReply;
}

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
  /** Servers waiting for placement, by id, in due order (the delay is the same for all). */
  private readonly placementQueue = new Map<string, { record: ServerRecord; due: number }>();
  /** One timer for the whole queue, set for its first entry. */
  private placementTimer: NodeJS.Timeout | undefined;
  private readonly views = new Map<string, RenderedView>();
  /** Where the state is kept, with `--state`. */
  private readonly stateFile: StateFile | undefined;
  /** Each server's JSON in the state file, kept until the server changes (see {@link touch}). */
  private readonly serverText = new Map<string, string>();
  /** Servers and exports changed since the last journal write, by id (only with a state file). */
  private readonly dirtyServers = new Set<string>();
  private readonly dirtyExports = new Set<string>();
  /** Deletes waiting for their state write, by server id. */
  private readonly pendingDeletes = new Map<string, Promise<void>>();
  /** Destroyed servers by id, oldest `destroyed_at` first: the order they are pruned in. */
  private readonly destroyed = new Map<string, number>();
  /** Counts changes of any data: rendered views stay valid until the next one. */
  private dataVersion = 0;

  constructor(
    readonly fixture: Fixture,
    readonly options: CoreOptions,
  ) {
    this.world = new World(fixture);
    this.watch = new WatchHub(options.now, options.now());
    this.jobDomain = jobDomainOf(fixture);
    this.placement = options.placement;
    this.stateFile = options.stateFile
      ? new StateFile(
          options.stateFile,
          { changes: () => this.takeChanges(), snapshot: (generation) => this.snapshot(generation) },
          options.warn,
        )
      : undefined;
    try {
      const saved = this.stateFile?.load();
      this.secret = saved?.secret ?? randomBytes(32).toString("hex");
      this.signer = new ExportSigner(this.secret);
      if (saved) this.restore(saved);
      this.prune();
      // Written once before listening: a state file that cannot be written refuses the start.
      this.stateFile?.writeNow();
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
        if (record.server.started_at === undefined) this.schedulePlacement(record);
      }
    }
    const destroyed = saved.servers.filter((r) => r.server.destroyed_at !== undefined);
    destroyed.sort((a, b) => (a.server.destroyed_at ?? 0) - (b.server.destroyed_at ?? 0));
    for (const { server } of destroyed) this.destroyed.set(server.id, server.destroyed_at ?? 0);
    for (const record of saved.exports) this.exports.set(record.uploadId, record);
  }

  /**
   * Records the emulator's own changes (placement; each changed record was marked by {@link touch}):
   * drops what is past retention, then writes the changes to the state file's journal when there is
   * one. They are in effect at once; a failed write is tried again with the next one (see
   * {@link StateFile}). Resolves once they are on disk; rejects with a 503 when that write fails.
   */
  persist(): Promise<void> {
    this.prune();
    return this.stateFile?.save().catch(notSaved) ?? Promise.resolve();
  }

  /**
   * A request's change: `apply` puts it in effect once `changes` (its journal changes, taken when
   * the write starts) are on disk, so nobody sees it before it is kept; at once without a state
   * file. When the write fails nothing is applied or written later, and the promise rejects with
   * 503 `EMULATOR_STATE_NOT_SAVED`.
   */
  private commit(changes: () => string[], apply: () => void): Promise<void> {
    this.prune();
    if (!this.stateFile) {
      apply();
      return Promise.resolve();
    }
    return this.stateFile.commit({ changes, apply }).catch(notSaved);
  }

  /** Resolves when every state write started so far has ended (stop waits for it). */
  settled(): Promise<void> {
    return this.stateFile?.idle() ?? Promise.resolve();
  }

  /** Releases the state file (its lock) once the emulator has stopped; after {@link settled}. */
  close(): void {
    this.stateFile?.close();
  }

  /** Marks a server as changed: the next write journals it, serialized again. */
  private touch(record: ServerRecord): void {
    this.serverChanged(record.server.id);
  }

  /** A server was added, changed or dropped: its old JSON is stale and its id goes into the next write. */
  private serverChanged(id: string): void {
    this.serverText.delete(id);
    if (this.stateFile) this.dirtyServers.add(id);
  }

  /** An export record was added or dropped: its id goes into the next write. */
  private exportChanged(uploadId: string): void {
    if (this.stateFile) this.dirtyExports.add(uploadId);
  }

  /** Adds an export record, in effect once it is on disk (see {@link commit}). */
  addExport(record: ExportRecord): Promise<void> {
    return this.commit(
      () => [exportChange(record)],
      () => {
        this.exports.set(record.uploadId, record);
      },
    );
  }

  private markDestroyed(record: ServerRecord): void {
    this.touch(record);
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

  /** A server's JSON, serialized once per change (journal writes and snapshots share it). */
  private textOf(record: ServerRecord): string {
    let text = this.serverText.get(record.server.id);
    if (text === undefined) {
      text = JSON.stringify(record);
      this.serverText.set(record.server.id, text);
    }
    return text;
  }

  /** The changes since the last call, as journal changes: each changed record as it is now. */
  private takeChanges(): string[] {
    const changes: string[] = [];
    for (const id of this.dirtyServers) {
      const record = this.servers.get(id);
      changes.push(record ? serverChange(this.textOf(record)) : dropServerChange(id));
    }
    for (const id of this.dirtyExports) {
      const record = this.exports.get(id);
      changes.push(record ? exportChange(record) : dropExportChange(id));
    }
    this.dirtyServers.clear();
    this.dirtyExports.clear();
    return changes;
  }

  /** A snapshot of the state: unchanged servers reuse their JSON from earlier writes. */
  private snapshot(generation: number): StateText {
    const textOf = (record: ServerRecord) => this.textOf(record);
    function* servers(records: Iterable<ServerRecord>): Generator<string> {
      for (const record of records) yield textOf(record);
    }
    return snapshotText(this.secret, generation, servers(this.servers.values()), [...this.exports.values()]);
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
        if (text !== undefined) this.serverText.set(server.id, text);
        this.schedulePlacement(record);
      },
    );
  }

  private schedulePlacement(record: ServerRecord): void {
    if (this.placement === "never" || this.placementQueue.has(record.server.id)) return;
    const due = performance.now() + this.options.placementDelayMs;
    this.placementQueue.set(record.server.id, { record, due });
    if (this.placementTimer === undefined) this.armPlacement(due);
  }

  private armPlacement(due: number): void {
    this.placementTimer = setTimeout(() => this.placeDue(), Math.max(0, Math.ceil(due - performance.now())));
  }

  /** Places every server whose delay has passed (timers fire on whole milliseconds: 1 ms of slack). */
  private placeDue(): void {
    this.placementTimer = undefined;
    const now = performance.now();
    let changed = 0;
    for (const { record, due } of this.placementQueue.values()) {
      if (due > now + 1) {
        this.armPlacement(due);
        break;
      }
      const id = record.server.id;
      this.placementQueue.delete(id);
      // A timer callback that throws would take the whole emulator down: never let it.
      try {
        if (this.place(record)) changed++;
      } catch (err) {
        this.options.warn(`placing server ${id} failed: ${String(err)}`);
      }
    }
    if (changed === 0) return;
    this.persist().catch((err: unknown) =>
      this.options.warn(`cannot write the state file after placement: ${String(err)}`),
    );
  }

  private cancelPlacements(): void {
    clearTimeout(this.placementTimer);
    this.placementTimer = undefined;
    this.placementQueue.clear();
  }

  /**
   * Places a server after its delay; `true` when that changed it. A server that cannot start exits
   * without ever starting, as on the service (`destroyed_at`, no `started_at`, ports without public
   * addresses), and the emulator carries on: one with a game-guard port without `internal_port`,
   * which the API accepts (docs/service-contract.md §4), or one whose datacenter has no free public port left.
   */
  private place(record: ServerRecord): boolean {
    const { server } = record;
    if (this.placement === "never" || server.destroyed_at !== undefined || server.started_at !== undefined)
      return false;
    const unstartable = Object.keys(server.network.ports).find((name) =>
      portNeverStarts(server.network.ports[name] as Server["network"]["ports"][string]),
    );
    this.touch(record);
    if (unstartable !== undefined) {
      server.destroyed_at = this.now();
      this.markDestroyed(record);
      this.options.warn(
        `server ${server.id} never starts: its game-guard port ${JSON.stringify(unstartable)} has no internal_port.`,
      );
      return true;
    }
    const datacenter = this.datacenterOf(server);
    const placed = placeServer(server, this.ports, {
      nodeIp: datacenter?.nodeIp ?? "127.0.0.1",
      jobDomain: this.jobDomain,
      now: this.now(),
      hostPorts: datacenter?.hostPorts,
      gameGuardPorts: datacenter?.gameGuardPorts,
    });
    if (!placed) {
      server.destroyed_at = this.now();
      this.markDestroyed(record);
      this.options.warn(
        `server ${server.id} could not be placed: datacenter ${server.datacenter} has no free public port left; it exits without starting.`,
      );
    }
    return true;
  }

  /** `never` holds servers unplaced; back to `auto` schedules every server still waiting. */
  setPlacement(mode: PlacementMode): void {
    this.placement = mode;
    if (mode === "never") {
      this.cancelPlacements();
      return;
    }
    for (const record of this.servers.values()) {
      if (record.server.destroyed_at === undefined && record.server.started_at === undefined) {
        this.schedulePlacement(record);
      }
    }
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
        this.placementQueue.delete(server.id);
        // Its journal line holds it already: marked stale for snapshots, not written again.
        this.serverText.delete(server.id);
        this.destroyed.set(server.id, destroyedAt);
      },
    ).finally(() => this.pendingDeletes.delete(server.id));
    this.pendingDeletes.set(server.id, deleted);
    return deleted;
  }

  nextUploadId(): string {
    return crypto.randomUUID();
  }

  /**
   * Records a change to the data the routes show. The next answer of every view shows it; only
   * game updates (`wakes`: their watch keys) also wake held watches and move the index a watch
   * compares with (docs/service-contract.md §5). Player counts, display names, group membership and billing
   * wake nothing: they show at the next answer, at the latest when a held watch times out.
   */
  changed(wakes: readonly string[] = []): void {
    this.dataVersion++;
    if (wakes.length > 0) this.watch.bump(wakes);
  }

  /**
   * The request's `watch_index`, checked early (validation comes before existence): the shared
   * `WatchIndex` rule, else 400 `API_BAD_QUERY_PARAMETER`.
   */
  watchIndexOf(ctx: RequestContext): number | undefined {
    const raw = ctx.query.get("watch_index");
    if (raw === null) return undefined;
    return Number(parseQuery(WatchIndexQuery, { watch_index: raw }).watch_index);
  }

  /**
   * A watchable answer (docs/service-contract.md §5): at once without `watch_index` (its index is the
   * answer's time plus one), when a game update came after the index, or when the index is too
   * old; otherwise held until the next game update or `watchHoldMs`, then answered with the
   * current data and a fresh index. Answered synchronously unless it is held.
   */
  watchable(
    ctx: RequestContext,
    since: number | undefined,
    view: WatchedView,
  ): JsonReply | Promise<JsonReply | undefined> {
    const keys = this.viewOf(view).keys;
    if (since === undefined) return this.answer(view, this.watch.freshIndex(keys));
    const current = this.watch.index(keys);
    if (current > since) return this.answer(view, current);
    if (this.now() - (since - 1) > this.options.watchMaxIndexAgeMs)
      return this.answer(view, this.watch.freshIndex(keys));
    return this.held(ctx, view, keys);
  }

  private async held(
    ctx: RequestContext,
    view: WatchedView,
    keys: readonly string[],
  ): Promise<JsonReply | undefined> {
    const reason = await this.watch.wait(keys, this.options.watchHoldMs, ctx.signal);
    if (reason === "aborted") return undefined;
    // The index comes from the keys the request waited on, even if a change altered the view's keys.
    return this.answer(view, reason === "changed" ? this.watch.index(keys) : this.watch.freshIndex(keys));
  }

  /**
   * The view's answer at `index`. What a view renders is kept, serialized, until the data changes,
   * so answers that differ only in their index (every one without `watch_index` carries its own
   * time) do not render and serialize it again; watchers woken together by one change share the
   * very same bytes.
   */
  private answer(view: WatchedView, index: number): JsonReply {
    const cached = this.viewOf(view);
    if (cached.reply !== undefined && cached.index === index) return cached.reply;
    if (cached.data === undefined || cached.head === undefined) {
      cached.data = view.render();
      const json = JSON.stringify(cached.data);
      cached.head = json === "{}" ? "{" : `${json.slice(0, -1)},`;
    }
    const watch = { index: String(index) };
    const body = { ...cached.data, watch };
    const text = Buffer.from(`${cached.head}"watch":${JSON.stringify(watch)}}`);
    const reply: JsonReply = { kind: "json", status: 200, body, text };
    cached.index = index;
    cached.reply = reply;
    return reply;
  }

  /** The view at the current data version: its watch keys, and what was rendered of it. */
  private viewOf(view: WatchedView): RenderedView {
    let cached = this.views.get(view.cacheKey);
    if (cached === undefined || cached.version !== this.dataVersion) {
      cached = { version: this.dataVersion, keys: view.keys() };
      this.views.set(view.cacheKey, cached);
    }
    return cached;
  }

  /** Frees timers and held watches. */
  shutdown(): void {
    this.cancelPlacements();
    this.watch.releaseAll();
  }
}
