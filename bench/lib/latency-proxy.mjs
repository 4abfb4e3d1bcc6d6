// A TCP proxy on 127.0.0.1 that holds every client→server chunk for `delayMs` before passing it on: each
// HTTP request then takes one simulated network round trip more, as against a remote service.
// Answers flow back at once. Order is kept: equal-delay timers fire in the order they were set.
import net from "node:net";

/** Starts the proxy in front of `upstreamPort`; resolves `{port, close()}`. */
export async function startLatencyProxy(upstreamPort, delayMs) {
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, "127.0.0.1");
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);
    client.on("data", (chunk) => {
      setTimeout(() => {
        if (!upstream.destroyed) upstream.write(chunk);
      }, delayMs);
    });
    client.on("end", () => setTimeout(() => upstream.end(), delayMs));
    upstream.on("data", (chunk) => {
      if (!client.destroyed) client.write(chunk);
    });
    upstream.on("end", () => client.end());
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(resolve);
      }),
  };
}
