import type { Chaos } from "../chaos";
import type { EmulatorCore } from "../core";
import type { FaultQueue } from "../faults";
import type { ServerRecord } from "../servers";

/** A port of a server as the dashboard lists it. */
export interface PortView {
  protocol: string;
  internalPort?: number;
  /** `hostname:port` once placed. */
  endpoint?: string;
}

/**
 * A server as the dashboard's stream sends it: ids only (the page names them from the games it has), so
 * each of the many updates a burst of creates makes stays small.
 */
export interface ServerView {
  id: string;
  environment: string;
  datacenter: string;
  build: string;
  tags: Record<string, string>;
  ports: Record<string, PortView>;
  createdAt: number;
  startedAt?: number;
  destroyedAt?: number;
  /** When SIGKILL lands (or landed) after a delete; the instant of death for a crash. */
  killAt?: number;
  /** `crashed` or `outage` when it died that way rather than by a delete. */
  exit?: string;
}

/** Everything the page shows besides servers, exports and requests; sent again whenever it changes. */
export interface StatusView {
  placement: string;
  outages: string[];
  faults: unknown[];
  watchers: { keys: readonly string[]; since: number }[];
  watcherCount: number;
}

/** The longest list of held watches the page gets. */
const WATCHERS_SHOWN = 200;
/** The most fixture lobbies the page lists (generated ones are summed up, not listed). */
const LOBBIES_SHOWN = 200;

/** Builds what the page shows from the emulator's live state. */
export class LiveView {
  constructor(
    private readonly core: EmulatorCore,
    private readonly faults: FaultQueue,
    private readonly chaos: Chaos,
  ) {}

  server(record: ServerRecord): ServerView {
    const { server } = record;
    const ports: Record<string, PortView> = {};
    for (const [name, port] of Object.entries(server.network.ports)) {
      ports[name] = {
        protocol: port.protocol,
        ...(port.internal_port !== undefined ? { internalPort: port.internal_port } : {}),
        ...(port.public_hostname !== undefined
          ? { endpoint: `${port.public_hostname}:${port.public_port}` }
          : {}),
      };
    }
    const exit = this.chaos.exitOf(server.id);
    return {
      id: server.id,
      environment: server.environment,
      datacenter: server.datacenter,
      build: server.runtime.build,
      tags: server.tags,
      ports,
      createdAt: server.created_at,
      ...(server.started_at !== undefined ? { startedAt: server.started_at } : {}),
      ...(server.destroyed_at !== undefined ? { destroyedAt: server.destroyed_at } : {}),
      ...(record.killAt !== undefined ? { killAt: record.killAt } : {}),
      ...(exit !== undefined ? { exit } : {}),
    };
  }

  serverById(id: string): ServerView | { id: string; gone: true } {
    const record = this.core.servers.get(id);
    return record ? this.server(record) : { id, gone: true };
  }

  servers(): ServerView[] {
    return [...this.core.servers.values()].map((r) => this.server(r));
  }

  /** Games with their environments, versions and datacenters (which are down). */
  games(): unknown[] {
    const down = new Set(this.core.downDatacenters);
    return this.core.fixture.games.map((g) => ({
      id: g.id,
      nameId: g.nameId,
      displayName: g.displayName,
      totalPlayerCount: g.totalPlayerCount,
      versions: g.versions.map((v) => ({ id: v.id, displayName: v.displayName })),
      environments: g.environments.map((e) => ({
        id: e.id,
        nameId: e.nameId,
        displayName: e.displayName,
        versionId: e.versionId,
        builds: e.builds.map((b) => ({ id: b.id, name: b.name, tags: b.tags })),
      })),
      datacenters: g.datacenters.map((d) => ({ id: d.id, slug: d.slug, name: d.name, down: down.has(d.id) })),
    }));
  }

  /** Fixture lobbies (the newest few) and what the generators make, per game. */
  lobbies(): unknown {
    const listed = [...this.core.fixture.lobbies].sort((a, b) => b.startTs - a.startTs);
    return {
      total: listed.length,
      listed: listed.slice(0, LOBBIES_SHOWN).map((l) => ({
        id: l.id,
        game: l.gameId,
        environment: l.environmentId,
        tier: l.tierName,
        lobbyGroup: l.lobbyGroupName,
        startTs: l.startTs,
        ...(l.stopTs !== undefined ? { stopTs: l.stopTs } : {}),
      })),
      generated: this.core.fixture.lobbyGenerators.map((g) => ({
        game: g.gameId,
        count: g.count,
        endTs: g.endTs,
        intervalMs: g.intervalMs,
      })),
    };
  }

  /** Export records: never their URL, which is a credential. */
  exports(): unknown[] {
    return [...this.core.exports.values()].map((e) => this.exportOf(e.uploadId));
  }

  exportOf(uploadId: string): unknown {
    const e = this.core.exports.get(uploadId);
    if (!e) return { uploadId, gone: true };
    return {
      uploadId: e.uploadId,
      game: e.gameId,
      queryStart: e.queryStart,
      queryEnd: e.queryEnd,
      createdAt: e.createdAt,
      expiresAt: e.expiresAt,
      rows: e.rows,
    };
  }

  status(): StatusView {
    return {
      placement: this.core.placementMode(),
      outages: this.chaos.outages(),
      faults: this.faults.pending().map((f) => ({
        ...f,
        ...(f.path instanceof RegExp ? { path: undefined, pathRegex: f.path.source } : {}),
      })),
      watchers: this.core.watch.held(WATCHERS_SHOWN),
      watcherCount: this.core.watch.count,
    };
  }
}
