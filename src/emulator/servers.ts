import { randomInt } from "node:crypto";
import type { CreateServerRequest, Server } from "../api/schemas/servers";

/** A server as stored: its wire shape plus what only the emulator knows. */
export interface ServerRecord {
  server: Server;
  gameId: string;
  /** Creation order; ties of `created_at` are broken by it (newest first, cursor "strictly older"). */
  seq: number;
  /** When SIGKILL would land after delete (epoch ms): destroyed_at + the effective kill timeout. */
  killAt?: number;
}

/** Public ports of game-guard ports other than http/https (service-facts §4). */
export const GAME_GUARD_PORTS = { min: 20_000, max: 31_999 } as const;
/** Public ports of host-routed ports. */
export const HOST_PORTS = { min: 26_000, max: 31_999 } as const;

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

  /** A free port in [min, max]: a random start, then the next free one, so choices do not cluster. */
  take(scope: string, range: { min: number; max: number }): number {
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
    throw new Error(`no free port left in ${range.min}-${range.max} for ${scope}`);
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
 * The server exactly as the service answers a create: defaults echoed (`network.mode` bridge,
 * `runtime.arguments` [], `runtime.environment` {}, `lifecycle.kill_timeout` 0), omitted routing as
 * game guard, and no placement fields yet.
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
      routing: port.routing?.host !== undefined ? { host: {} } : { game_guard: {} },
    };
  }
  return {
    id,
    environment: environmentId,
    datacenter: body.datacenter,
    created_at: createdAt,
    tags: { ...body.tags },
    resources: { cpu: body.resources.cpu, memory: body.resources.memory },
    lifecycle: { kill_timeout: body.lifecycle?.kill_timeout ?? 0 },
    network: { mode: body.network.mode ?? "bridge", ports },
    runtime: {
      build: body.runtime.build,
      arguments: [...(body.runtime.arguments ?? [])],
      environment: { ...(body.runtime.environment ?? {}) },
    },
  };
}

/**
 * Places a server: `started_at`, and a public hostname and port on every port. Game guard:
 * `{server_id}-{port_name}.lobby.{datacenter_id}.{job_domain}`, 80 for http, 443 for https, else a
 * free port in 20000–31999. Host: the node's IP and a free port in 26000–31999.
 */
export function placeServer(
  server: Server,
  ports: PortAllocator,
  opts: { nodeIp: string; jobDomain: string; now: number },
): void {
  for (const [name, port] of Object.entries(server.network.ports)) {
    if (port.routing.host !== undefined) {
      port.public_hostname = opts.nodeIp;
      port.public_port = ports.take(portScope(server, "host", opts.nodeIp), HOST_PORTS);
    } else {
      port.public_hostname = `${server.id}-${name}.lobby.${server.datacenter}.${opts.jobDomain}`;
      port.public_port =
        port.protocol === "http"
          ? 80
          : port.protocol === "https"
            ? 443
            : ports.take(portScope(server, "game_guard", opts.nodeIp), GAME_GUARD_PORTS);
    }
  }
  server.started_at = opts.now;
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
