/**
 * After a hard interruption (a double Ctrl-C during `pulumi up`), the servers the pending creates made are
 * the stack's: `gamehost repair` records them. `drift` must not count them as strays as well (each was
 * reported twice), and `sweep --delete --yes` must not delete them before `repair` can record them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { IDEMPOTENCY_TAG } from "../../src/kinds/server/tags";
import { findStrays, trackedBy } from "../../src/reconcile/drift";
import { type Deployment, SERVER_TYPES } from "../../src/reconcile/state";

const TAGS = { stack: "scale" };
const PENDING_KEY = "0b5e7c1a-0000-4000-8000-000000000001";
const STRAY_KEY = "0b5e7c1a-0000-4000-8000-000000000002";

describe("a pending create's server", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ placementDelayMs: 0 });
  });
  afterAll(() => emulator.stop());

  it.each([SERVER_TYPES.dynamic, SERVER_TYPES.plugin])("is no stray (%s)", async (type) => {
    const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
    const game = emulator.fixture.games[0]!;
    const environment = game.environments.find((e) => e.nameId === "prod")!;
    const scope = { gameId: game.id, environmentId: environment.id };
    const create = (key: string) =>
      client.createServer(scope.gameId, scope.environmentId, {
        datacenter: game.datacenters[0]!.id,
        tags: { ...TAGS, [IDEMPOTENCY_TAG]: `${type}-${key}` },
        runtime: { build: environment.builds[0]!.id },
        network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
        resources: { cpu: 250, memory: 256 },
      });
    const stray = await create(STRAY_KEY);
    // What `pulumi stack export` holds after the interruption: the create pending, its inputs recorded.
    const deployment: Deployment = {
      resources: [],
      pending_operations: [
        {
          type: "creating",
          resource: {
            urn: `urn:pulumi:dev::p::${type}::lobby-0`,
            type,
            custom: true,
            inputs: { ...scope, tags: TAGS, idempotencyKey: `${type}-${PENDING_KEY}` },
          },
        },
      ],
    };
    const pending = await create(PENDING_KEY);
    // `sweep` (madeHere) and `drift` alike.
    for (const madeHere of [true, false]) {
      const ids = (await findStrays(client, [scope], TAGS, trackedBy(deployment), madeHere)).map(
        (s) => s.serverId,
      );
      expect(ids).toContain(stray.id);
      expect(ids).not.toContain(pending.id);
    }
  });
});
