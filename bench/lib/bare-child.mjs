// Baseline server: a bare `node:http` server in its own process. `fixed` answers each request with the
// bytes recorded from the emulator for its route (after reading the request body, as the emulator does);
// `hold` keeps every request open unanswered (the cheapest possible held long-poll).
import { createServer } from "node:http";

let server;
const held = new Set();

function memory() {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

const ops = {
  /** `{mode: "fixed", responses: [{method, pathPrefix, status, headers, body}]}` or `{mode: "hold"}`. */
  async start({ mode, responses = [] }) {
    const prepared = responses.map((r) => ({ ...r, body: Buffer.from(r.body) }));
    server = createServer((req, res) => {
      if (mode === "hold") {
        held.add(res);
        res.on("close", () => held.delete(res));
        return;
      }
      const match = prepared.find((r) => r.method === req.method && req.url.startsWith(r.pathPrefix));
      req.on("data", () => {});
      req.on("end", () => {
        if (!match) {
          res.writeHead(404, { "content-length": "0" });
          res.end();
          return;
        }
        res.writeHead(match.status, match.headers);
        res.end(match.body);
      });
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${server.address().port}` };
  },
  held: () => held.size,
  memory,
  /** CPU time used so far, µs (user, system). */
  cpu: () => process.cpuUsage(),
  async stop() {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    setImmediate(() => process.exit(0));
    return true;
  },
};

process.on("message", async ({ id, op, args }) => {
  try {
    process.send({ id, result: await ops[op](args) });
  } catch (err) {
    process.send({ id, error: err instanceof Error ? err.stack || err.message : String(err) });
  }
});
process.on("disconnect", () => process.exit(0));
