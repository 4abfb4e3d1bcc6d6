import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { internalError, writeError } from "./http";

/** How long an idle keep-alive connection stays open (the `Keep-Alive: timeout=` hint, in ms). */
export const KEEP_ALIVE_MS = 65_000;

/** An HTTP server listening on 127.0.0.1. */
export interface Listening {
  server: Server;
  port: number;
  /** TCP connections accepted so far. */
  connections(): number;
}

/**
 * Serves `handle` on 127.0.0.1:`port` (0: a free one). Nothing a request does can crash the
 * process: a handler's throw is a 500 (and a warning), a malformed request a 400, an accept failure
 * a warning. Throws naming the address when it cannot listen.
 */
export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  warn: (err: unknown) => void,
): Promise<Listening> {
  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (err) {
      // Last line of defence: never a crash or a stack trace to the client.
      warn(err);
      try {
        writeError(res, randomUUID(), internalError());
      } catch {
        res.destroy();
      }
    }
  });
  // Idle keep-alive connections are kept longer than clients keep them (undici: the server's hint less 2 s;
  // browsers and load balancers: 60 s or less), so the client closes first. With Node's 5 s, a request sent
  // just as the server timed the connection out (a busy event loop runs due timers before it reads sockets)
  // can meet ECONNRESET: the likely cause of a reset once seen in test/emulator/export.test.ts.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  let connections = 0;
  server.on("connection", () => {
    connections++;
  });
  server.on("clientError", (_err, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    else socket.destroy();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    // A second emulator (or anything) on the port is the usual cause: say what to do, not only what failed.
    const code = (err as NodeJS.ErrnoException).code;
    const hint =
      code === "EADDRINUSE"
        ? ` (port ${port} is taken: pass --port 0 for a free one, or another --port)`
        : code === "EACCES"
          ? ` (ports below 1024 need privileges this user lacks: pass --port 0 for a free one, or one from 1024)`
          : "";
    throw new Error(`Cannot start the emulator on 127.0.0.1:${port}: ${(err as Error).message}${hint}`);
  }
  // Accept failures (e.g. out of file descriptors) are emitted here; unheard, they would crash.
  server.on("error", warn);
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}
