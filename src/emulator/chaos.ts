import { ERROR_CODES } from "../api/errors";
import type { EmulatorCore } from "./core";
import { ServiceError } from "./http";

/** How a server ended, as only the emulator knows it (the wire shape says `destroyed_at` either way). */
export type ServerExit = "crashed" | "outage";

/**
 * Failures of the platform rather than of a request: a server's process dying (a crash) and a datacenter
 * going down. The admin routes and the dashboard both act through here, so a test and a click do the same.
 */
export class Chaos {
  /** Servers that died by a crash or an outage (not by a delete), with how. */
  private readonly exits = new Map<string, ServerExit>();

  constructor(private readonly core: EmulatorCore) {}

  /**
   * A server's process exits by itself, as a crash does on the service (docs/service-contract.md §4): it
   * gets `destroyed_at` now and its ports are freed; no SIGTERM or kill timeout, the process is already
   * gone. 400 `SERVERS_SERVER_NOT_FOUND` for an unknown id; a server already destroyed stays as it is.
   * Resolves once the change is on disk.
   */
  async kill(serverId: string, exit: ServerExit = "crashed"): Promise<void> {
    const record = this.core.servers.get(serverId);
    if (!record) throw new ServiceError(400, ERROR_CODES.serverNotFound, `Server ${serverId} was not found.`);
    if (record.server.destroyed_at !== undefined) return;
    this.exits.set(serverId, exit);
    await this.core.destroyServer(record, 0);
  }

  /** How a server died, when it was not deleted. */
  exitOf(serverId: string): ServerExit | undefined {
    return this.exits.get(serverId);
  }

  /**
   * A datacenter goes down: every live server in it dies, and servers created in it wait unplaced until
   * it is back ({@link restore}). 400 `CLUSTER_DATACENTER_NOT_FOUND` for a datacenter no game has.
   */
  async outage(datacenterId: string): Promise<number> {
    this.checkDatacenter(datacenterId);
    this.core.downDatacenters.add(datacenterId);
    const live = [...this.core.servers.values()].filter(
      (r) => r.server.datacenter === datacenterId && r.server.destroyed_at === undefined,
    );
    // Only placed servers were running: one still waiting for placement just keeps waiting.
    const running = live.filter((r) => r.server.started_at !== undefined);
    for (const record of running) this.exits.set(record.server.id, "outage");
    await Promise.all(running.map((record) => this.core.destroyServer(record, 0)));
    this.core.feed.data();
    return running.length;
  }

  /** The datacenter is back: servers waiting in it get placed after the usual delay. */
  restore(datacenterId: string): void {
    this.checkDatacenter(datacenterId);
    this.core.downDatacenters.delete(datacenterId);
    this.core.setPlacement(this.core.placementMode());
    this.core.feed.data();
  }

  /** Datacenters down now. */
  outages(): string[] {
    return [...this.core.downDatacenters];
  }

  private checkDatacenter(datacenterId: string): void {
    const known = this.core.fixture.games.some((g) => g.datacenters.some((d) => d.id === datacenterId));
    if (!known)
      throw new ServiceError(
        400,
        ERROR_CODES.datacenterNotFound,
        `Datacenter ${datacenterId} is not a datacenter of any game.`,
      );
  }
}
