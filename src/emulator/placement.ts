import { portNeverStarts, type Server } from "../api/schemas/servers";
import type { PlacementMode } from "./placementMode";
import { type PortAllocator, placeServer, type ServerRecord } from "./servers";
import type { Game } from "./world";

export type { PlacementMode } from "./placementMode";

/** What placement needs of the emulator around it. */
export interface PlacementHost {
  readonly ports: PortAllocator;
  readonly jobDomain: string;
  now(): number;
  warn(message: string): void;
  datacenterOf(server: Server): Game["datacenters"][number] | undefined;
  /** Every server, for those still waiting when placement is turned back on. */
  servers(): Iterable<ServerRecord>;
  /** A server placement changed: written with the next state write. */
  changed(record: ServerRecord): void;
  /** A server that must wait unplaced for now (its datacenter is in an outage). */
  held(server: Server): boolean;
  /** A server placement destroyed (it cannot start): pruned after the retention. */
  destroyed(record: ServerRecord): void;
  /** Writes what placement changed, in the background. */
  persist(): Promise<void>;
}

/**
 * Placement: each new server is placed after the same delay, by one timer for the whole queue
 * (servers in due order), unless placement is `never`.
 */
export class Placement {
  /** Servers waiting for placement, by id, in due order (the delay is the same for all). */
  private readonly queue = new Map<string, { record: ServerRecord; due: number }>();
  /** One timer for the whole queue, set for its first entry. */
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: PlacementHost,
    private mode: PlacementMode,
    private readonly delayMs: number,
  ) {}

  /** Queues a server for placement after the delay (not in `never` mode, and only once). */
  schedule(record: ServerRecord): void {
    if (this.mode === "never" || this.queue.has(record.server.id)) return;
    const due = performance.now() + this.delayMs;
    this.queue.set(record.server.id, { record, due });
    if (this.timer === undefined) this.arm(due);
  }

  /** A server that must not be placed any more (deleted). */
  forget(id: string): void {
    this.queue.delete(id);
  }

  /** The mode now. */
  get current(): PlacementMode {
    return this.mode;
  }

  /** `never` holds servers unplaced; back to `auto` schedules every server still waiting. */
  setMode(mode: PlacementMode): void {
    this.mode = mode;
    if (mode === "never") {
      this.cancel();
      return;
    }
    for (const record of this.host.servers()) {
      if (record.server.destroyed_at === undefined && record.server.started_at === undefined) {
        this.schedule(record);
      }
    }
  }

  /** Drops every pending placement and its timer. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.clear();
  }

  private arm(due: number): void {
    this.timer = setTimeout(() => this.placeDue(), Math.max(0, Math.ceil(due - performance.now())));
  }

  /** Places every server whose delay has passed (timers fire on whole milliseconds: 1 ms of slack). */
  private placeDue(): void {
    this.timer = undefined;
    const now = performance.now();
    let changed = 0;
    for (const { record, due } of this.queue.values()) {
      if (due > now + 1) {
        this.arm(due);
        break;
      }
      const id = record.server.id;
      this.queue.delete(id);
      // A timer callback that throws would take the whole emulator down: never let it.
      try {
        if (this.place(record)) changed++;
      } catch (err) {
        this.host.warn(`placing server ${id} failed: ${String(err)}`);
      }
    }
    if (changed === 0) return;
    this.host
      .persist()
      .catch((err: unknown) => this.host.warn(`cannot write the state file after placement: ${String(err)}`));
  }

  /**
   * Places a server after its delay; `true` when that changed it. A server that cannot start exits
   * without ever starting, as on the service (`destroyed_at`, no `started_at`, ports without public
   * addresses), and the emulator carries on: one with a game-guard port without `internal_port`,
   * which the API accepts (docs/service-contract.md §4), or one whose datacenter has no free public port left.
   */
  private place(record: ServerRecord): boolean {
    const { server } = record;
    if (
      this.mode === "never" ||
      server.destroyed_at !== undefined ||
      server.started_at !== undefined ||
      this.host.held(server)
    )
      return false;
    const unstartable = Object.keys(server.network.ports).find((name) =>
      portNeverStarts(server.network.ports[name] as Server["network"]["ports"][string]),
    );
    this.host.changed(record);
    if (unstartable !== undefined) {
      server.destroyed_at = this.host.now();
      this.host.destroyed(record);
      this.host.warn(
        `server ${server.id} never starts: its game-guard port ${JSON.stringify(unstartable)} has no internal_port.`,
      );
      return true;
    }
    const datacenter = this.host.datacenterOf(server);
    const placed = placeServer(server, this.host.ports, {
      nodeIp: datacenter?.nodeIp ?? "127.0.0.1",
      jobDomain: this.host.jobDomain,
      now: this.host.now(),
      hostPorts: datacenter?.hostPorts,
      gameGuardPorts: datacenter?.gameGuardPorts,
    });
    if (!placed) {
      server.destroyed_at = this.host.now();
      this.host.destroyed(record);
      this.host.warn(
        `server ${server.id} could not be placed: datacenter ${server.datacenter} has no free public port left; it exits without starting.`,
      );
    }
    return true;
  }
}
