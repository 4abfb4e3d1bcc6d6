import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, vi } from "vitest";
import { closeSharedDispatchers } from "../../../src/api/transport";

/** A request as the scripted server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** `Date.now()` when the request had been read. */
  at: number;
  /** Client port: the same port on two requests means the connection was reused. */
  remotePort: number;
}

/** Answers request number `n` (0-based). */
export type Script = (req: SeenRequest, res: ServerResponse, n: number) => void | Promise<void>;

/** A throwaway HTTP server on 127.0.0.1 that answers by script and records what it got. */
export interface ScriptedServer {
  url: string;
  seen: SeenRequest[];
  /** Connections opened so far, answered or not (an https:// client's handshake sends no request). */
  connections(): number;
  close(): Promise<void>;
}

export async function startScripted(script: Script): Promise<ScriptedServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        remotePort: req.socket.remotePort ?? 0,
      };
      seen.push(entry);
      void Promise.resolve(script(entry, res, seen.length - 1)).catch(() => res.destroy());
    });
  });
  let connections = 0;
  server.on("connection", () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(text.length),
    ...headers,
  });
  res.end(text);
}

/** A free port with nothing listening (bound, read, closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Ids of the calls sent to scripted servers (any UUIDs: a script answers whatever it is sent). */
export const GAME = "00000000-0000-4000-8000-000000000003";
export const ENV = "00000000-0000-4000-8000-000000000005";

/** A create body the client's own checks accept. */
export const SERVER_BODY = {
  datacenter: "00000000-0000-4000-8000-000000000007",
  network: { ports: { game: { protocol: "udp" as const } } },
  resources: { cpu: 100, memory: 128 },
  runtime: { build: "00000000-0000-4000-8000-000000000009" },
  tags: { t: "1" },
};

export const BOOTSTRAP = {
  cluster: "oss",
  access: "private",
  origins: { hub: "http://localhost:5080" },
  captcha: {},
  login_methods: { access_token: true, email: false },
};

/**
 * A file's scripted servers: each one started by the returned function is closed after its test, the
 * stubbed env vars are restored, and the client's shared dispatchers close after the file.
 */
export function useScriptedServers(): (script: Script) => Promise<ScriptedServer> {
  let servers: ScriptedServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
    vi.unstubAllEnvs();
  });
  afterAll(() => closeSharedDispatchers());
  return async (script) => {
    const server = await startScripted(script);
    servers.push(server);
    return server;
  };
}
