import * as net from "node:net";
import { expect, it } from "vitest";
import { ephemeralRange, freePort } from "./freePort";

it("gives ports outside the range the OS hands out to listen(0) and outgoing connections, free to listen on", async () => {
  const [low, high] = ephemeralRange();
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const text of ports) {
    const port = Number(text);
    expect(port < low || port > high, `${port} against ${low}–${high}`).toBe(true);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  }
});
