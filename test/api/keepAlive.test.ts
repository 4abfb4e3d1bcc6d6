import { afterAll, beforeAll, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { closeSharedDispatchers } from "../../src/api/transport";
import { type RunningEmulator, startEmulator } from "../../src/emulator";

let emulator: RunningEmulator;
beforeAll(async () => {
  await closeSharedDispatchers();
  emulator = await startEmulator({ placementDelayMs: 0 });
});
afterAll(async () => {
  await emulator.stop();
  await closeSharedDispatchers();
});

it("reuses keep-alive connections: N workers sending list-then-create back to back open N sockets", async () => {
  const game = emulator.fixture.games[0]!;
  const environment = game.environments[0]!;
  const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
  const workers = 8;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; i < 5; i++) {
        const tags = { worker: `${w}-${i}` };
        await client.listServers(game.id, environment.id, { tags });
        await client.createServer(game.id, environment.id, {
          datacenter: game.datacenters[0]!.id,
          tags,
          runtime: { build: environment.builds[0]!.id },
          network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
          resources: { cpu: 100, memory: 64 },
        });
      }
    }),
  );
  expect(emulator.requests).toHaveLength(workers * 10);
  expect(emulator.connectionCount()).toBeLessThanOrEqual(workers);
});
