/**
 * `gamehost drift` and `sweep` give each stray server's age: how long ago the service made it, by the
 * service's clock (`created_at` is in it), whatever this machine's clock reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { findStrays } from "../../src/reconcile/drift";

const FIVE_MINUTES = 5 * 60_000;
const TAGS = { sweep: "clock" };

describe.each([
  ["ahead of", -FIVE_MINUTES],
  ["behind", FIVE_MINUTES],
])("a stray's age when this machine's clock is 5 minutes %s the service's", (_, skewMs) => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ placementDelayMs: 0, now: () => Date.now() + skewMs });
  });
  afterAll(() => emulator.stop());

  it("is the seconds since the service made it, not 0 nor 300 off", async () => {
    const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
    const game = emulator.fixture.games[0]!;
    const environment = game.environments.find((e) => e.nameId === "prod")!;
    const scope = { gameId: game.id, environmentId: environment.id };
    await client.createServer(scope.gameId, scope.environmentId, {
      datacenter: game.datacenters[0]!.id,
      tags: TAGS,
      runtime: { build: environment.builds[0]!.id },
      network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
      resources: { cpu: 250, memory: 256 },
    });
    const strays = await findStrays(client, [scope], TAGS, {
      ids: new Set(),
      fleetKeys: new Set(),
      pendingKeys: new Set(),
    });
    expect(strays).toHaveLength(1);
    // Made within the last few seconds on the service's clock.
    expect(strays[0]!.ageSeconds).toBeLessThanOrEqual(5);
    expect(strays[0]!.ageSeconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(strays[0]!.createdAt)).toBeLessThanOrEqual(Date.now() + skewMs);
  });
});
