import { createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/** What a forward proxy saw: absolute-form requests and CONNECT targets, with their Proxy-Authorization. */
export interface SeenByProxy {
  method: string;
  target: string;
  auth: string | undefined;
}

export type ProxyMode =
  | "forward"
  | { status: number; page?: string }
  | "hang"
  /** Passes every request on, and drops each connection once the service has answered, unanswered. */
  | "drop-after-forward"
  /** As drop-after-forward for the first POST only; forwards the rest. */
  | "drop-first-post";

/**
 * A small forward proxy on 127.0.0.1. It resolves every host name to 127.0.0.1, so a base URL such as
 * http://gamehost.test:<port> reaches a local scripted server only through it.
 */
export async function startProxy(
  mode: ProxyMode = "forward",
): Promise<{ url: string; seen: SeenByProxy[]; close(): Promise<void> }> {
  const seen: SeenByProxy[] = [];
  let droppedPost = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", target: req.url ?? "", auth: req.headers["proxy-authorization"] });
    if (mode === "hang") return;
    if (typeof mode === "object") {
      res.writeHead(mode.status, { "content-type": "text/html" });
      res.end(mode.page ?? `<html><body>proxy says ${mode.status}</body></html>`);
      return;
    }
    const target = new URL(req.url ?? "");
    const upstream = httpRequest(
      {
        host: "127.0.0.1",
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        if (
          mode === "drop-after-forward" ||
          (mode === "drop-first-post" && req.method === "POST" && !droppedPost)
        ) {
          droppedPost = true;
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>bad gateway</html>");
    });
    req.pipe(upstream);
  });
  server.on("connection", (s) => sockets.add(s));
  server.on("connect", (req, socket: Socket) => {
    seen.push({ method: "CONNECT", target: req.url ?? "", auth: req.headers["proxy-authorization"] });
    if (mode === "hang") return;
    if (typeof mode === "object") {
      socket.end(`HTTP/1.1 ${mode.status} No\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const port = Number((req.url ?? "").split(":").pop());
    const upstream = connect(port, "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection established\r\n\r\n");
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
