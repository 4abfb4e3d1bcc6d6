import { Client } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { startEmulator } from "../../src/emulator";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ placementDelayMs: 0 });
});
afterAll(async () => {
  await emu.stop();
});

async function getBootstrap(client: Client): Promise<number> {
  const res = await client.request({ method: "GET", path: "/cloud/bootstrap" });
  await res.body.text();
  return res.statusCode;
}

describe("connectionCount", () => {
  it("counts accepted TCP connections, not requests: a keep-alive client is one connection", async () => {
    const before = emu.connectionCount();
    const first = new Client(emu.url);
    for (let i = 0; i < 3; i++) expect(await getBootstrap(first)).toBe(200);
    expect(emu.connectionCount() - before).toBe(1);

    const second = new Client(emu.url);
    expect(await getBootstrap(second)).toBe(200);
    expect(emu.connectionCount() - before).toBe(2);
    await Promise.all([first.close(), second.close()]);
  });
});
