import { randomInt } from "node:crypto";
import { type CreateServerRequest, routingOf, SERVER_DEFAULTS, type Server } from "../api/schemas/servers";

/** A server as stored: its wire shape plus what only the emulator knows. */
export interface ServerRecord {
  server: Server;
  gameId: string;
  /** Creation order; ties of `created_at` are broken by it in the newest-first order (not by `cursor`). */
  seq: number;
  /** When SIGKILL would land after delete (epoch ms): destroyed_at + the effective kill timeout. */
  killAt?: number;
}

/** An inclusive range of public ports. */
export interface PortRange {
  readonly min: number;
  readonly max: number;
}

/** Public ports of game-guard ports other than http/https (docs/service-contract.md §4). */
export const GAME_GUARD_PORTS: PortRange = { min: 20_000, max: 31_999 };
/** Public ports of host-routed ports. */
export const HOST_PORTS: PortRange = { min: 26_000, max: 31_999 };

/** Hands out free ports per scope (a datacenter's game guard, or a node). */
export class PortAllocator {
  private readonly used = new Map<string, Set<number>>();

  private set(scope: string): Set<number> {
    let set = this.used.get(scope);
    if (!set) {
      set = new Set();
      this.used.set(scope, set);
    }
    return set;
  }

  /**
   * A free port in [min, max]: a random start, then the next free one, so choices do not cluster.
   * `undefined` when every port of the range is taken (placement fails; it must not throw).
   */
  take(scope: string, range: PortRange): number | undefined {
    const used = this.set(scope);
    const size = range.max - range.min + 1;
    const start = randomInt(size);
    for (let i = 0; i < size; i++) {
      const port = range.min + ((start + i) % size);
      if (!used.has(port)) {
        used.add(port);
        return port;
      }
    }
    return undefined;
  }

  mark(scope: string, port: number): void {
    this.set(scope).add(port);
  }

  release(scope: string, port: number): void {
    this.used.get(scope)?.delete(port);
  }
}

/** Where a placed port's public side lives, so its port can be freed again. */
function portScope(server: Server, routing: "game_guard" | "host", nodeIp: string): string {
  return routing === "host" ? `host:${nodeIp}` : `gg:${server.datacenter}`;
}

/**
 * The server exactly as the service answers a create: defaults echoed (`SERVER_DEFAULTS`), omitted
 * routing as game guard, and no placement fields yet.
 */
export function newServer(
  id: string,
  environmentId: string,
  body: CreateServerRequest,
  createdAt: number,
): Server {
  const ports: Server["network"]["ports"] = {};
  for (const [name, port] of Object.entries(body.network.ports)) {
    ports[name] = {
      protocol: port.protocol,
      ...(port.internal_port !== undefined ? { internal_port: port.internal_port } : {}),
      routing: { [routingOf(port)]: {} },
    };
  }
  return {
    id,
    environment: environmentId,
    datacenter: body.datacenter,
    created_at: createdAt,
    tags: { ...body.tags },
    resources: { cpu: body.resources.cpu, memory: body.resources.memory },
    lifecycle: { kill_timeout: body.lifecycle?.kill_timeout ?? SERVER_DEFAULTS.killTimeoutMs },
    network: { mode: body.network.mode ?? SERVER_DEFAULTS.networkMode, ports },
    runtime: {
      build: body.runtime.build,
      arguments: [...(body.runtime.arguments ?? SERVER_DEFAULTS.arguments)],
      environment: { ...(body.runtime.environment ?? SERVER_DEFAULTS.environment) },
    },
  };
}

/** Where placement draws public ports from: the datacenter's node and its port ranges. */
export interface PlacementTarget {
  nodeIp: string;
  jobDomain: string;
  now: number;
  /** Default {@link HOST_PORTS}. */
  hostPorts?: PortRange;
  /** Default {@link GAME_GUARD_PORTS}. */
  gameGuardPorts?: PortRange;
}

/**
 * Places a server: `started_at`, and a public hostname and port on every port. Game guard:
 * `{server_id}-{port_name}.lobby.{datacenter_id}.{job_domain}`, 80 for http, 443 for https, else a
 * free port in 20000–31999. Host: the node's IP and a free port in 26000–31999.
 *
 * All or nothing: when a range has no free port left, the ports taken so far are given back, the
 * server is left untouched (no `started_at`, no public addresses) and the answer is `false`.
 */
export function placeServer(server: Server, ports: PortAllocator, opts: PlacementTarget): boolean {
  const entries = Object.entries(server.network.ports);
  // Each entry's public port, in order, with the scope it was taken from (none for 80/443).
  const chosen: { scope: string | undefined; port: number }[] = [];
  for (const [, port] of entries) {
    if (port.routing.host === undefined && (port.protocol === "http" || port.protocol === "https")) {
      chosen.push({ scope: undefined, port: port.protocol === "http" ? 80 : 443 });
      continue;
    }
    const host = port.routing.host !== undefined;
    const scope = portScope(server, host ? "host" : "game_guard", opts.nodeIp);
    const free = ports.take(
      scope,
      host ? (opts.hostPorts ?? HOST_PORTS) : (opts.gameGuardPorts ?? GAME_GUARD_PORTS),
    );
    if (free === undefined) {
      for (const taken of chosen) if (taken.scope !== undefined) ports.release(taken.scope, taken.port);
      return false;
    }
    chosen.push({ scope, port: free });
  }
  entries.forEach(([name, port], i) => {
    port.public_hostname =
      port.routing.host !== undefined
        ? opts.nodeIp
        : `${server.id}-${name}.lobby.${server.datacenter}.${opts.jobDomain}`;
    port.public_port = (chosen[i] as { port: number }).port;
  });
  server.started_at = opts.now;
  return true;
}

/** Calls `fn` for each port that holds an allocated public port (not the fixed 80/443). */
function forAllocatedPorts(server: Server, nodeIp: string, fn: (scope: string, port: number) => void): void {
  for (const port of Object.values(server.network.ports)) {
    if (port.public_port === undefined) continue;
    if (port.routing.host !== undefined) fn(portScope(server, "host", nodeIp), port.public_port);
    else if (port.protocol !== "http" && port.protocol !== "https") {
      fn(portScope(server, "game_guard", nodeIp), port.public_port);
    }
  }
}

/** Frees a destroyed server's ports. */
export function releasePorts(server: Server, ports: PortAllocator, nodeIp: string): void {
  forAllocatedPorts(server, nodeIp, (scope, port) => ports.release(scope, port));
}

/** Re-reserves a live server's ports (after loading a state file). */
export function reservePorts(server: Server, ports: PortAllocator, nodeIp: string): void {
  forAllocatedPorts(server, nodeIp, (scope, port) => ports.mark(scope, port));
}

/** Every key/value of `filter` is present in `tags`. */
export function tagsContain(
  tags: Record<string, string>,
  filter: Record<string, string> | undefined,
): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, v]) => Object.hasOwn(tags, k) && tags[k] === v);
}

/** Newest first: by `created_at`, then creation order. */
export function newestFirst(a: ServerRecord, b: ServerRecord): number {
  return b.server.created_at - a.server.created_at || b.seq - a.seq;
}
