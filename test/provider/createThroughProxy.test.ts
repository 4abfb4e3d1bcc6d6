/**
 * A Server create through a corporate proxy (HTTP_PROXY): a proxy that drops the connection after passing the
 * POST on leaves the create ambiguous, and the create adopts the one server it made instead of making a
 * second (the failures of a proxy that is down or refuses are test/api/proxy.test.ts's).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { closeSharedDispatchers } from "../../src/api/transport";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { serverKind } from "../../src/kinds/server/implementation";
import { type ProxyMode, startProxy } from "../api/helpers/forwardProxy";
import { serverArgs, serverTarget } from "../support/emulator";

describe("a Server create through a proxy", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ placementDelayMs: 0 });
  });
  afterAll(() => emulator.stop());
  afterEach(async () => {
    vi.unstubAllEnvs();
    await closeSharedDispatchers();
  });

  const create = async (proxyUrl: string, role: string) => {
    for (const name of ["HTTPS_PROXY", "https_proxy", "http_proxy", "NO_PROXY", "no_proxy"])
      vi.stubEnv(name, "");
    vi.stubEnv("HTTP_PROXY", proxyUrl);
    // A host name only the proxy resolves: every call goes through it.
    const baseUrl = emulator.url.replace("127.0.0.1", "gamehost.test");
    const client = new GamehostClient({ baseUrl, token: emulator.tokens.user, maxRetries: 0 });
    const { inputs, failures } = serverKind.check(
      {},
      serverArgs(emulator, { tags: { role }, waitForReady: false }),
      {},
    );
    expect(failures).toEqual([]);
    const outcome = await serverKind.create({ client: () => client }, inputs).then(
      () => "created",
      (e: unknown) => (e as Error).message,
    );
    const direct = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
    const { gameId, environmentId } = serverTarget(emulator);
    const servers = await direct.listServers(gameId, environmentId, { tags: { role } });
    return { outcome, servers };
  };

  it("adopts the one server a POST the proxy dropped after passing it on made", async () => {
    const mode: ProxyMode = "drop-first-post";
    const proxy = await startProxy(mode);
    try {
      const { outcome, servers } = await create(proxy.url, "dropped-by-proxy");
      expect(outcome).toBe("created");
      expect(proxy.seen.filter((r) => r.method === "POST")).toHaveLength(1);
      expect(servers).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
