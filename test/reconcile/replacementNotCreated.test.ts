/**
 * A replacement with `deleteBeforeReplace` (or the engine's own delete-first replacement) deletes the old
 * server, then creates the new one. When that create fails (a build the environment does not have, an
 * adoption refused), the state keeps the resource marked `pendingReplacement`: its server is deleted, and
 * `pulumi refresh` does not read such a resource (the engine skips it: no request reaches the service).
 * `gamehost drift` therefore said `no drift` for a stack whose declared server exists nowhere, and
 * `reconcile --remediate` never ran the `up` that makes it. Seen through the real CLI (v3.274.1): a
 * dynamic Server with deleteBeforeReplace, its replacement's create failing, `drift` exit 0.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { drift, driftLines, hasDrift } from "../../src/reconcile/drift";
import { type Deployment, SERVER_TYPES } from "../../src/reconcile/state";

describe("a server deleted for a replacement whose create did not finish", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ placementDelayMs: 0 });
  });
  afterAll(() => emulator.stop());

  it.each([SERVER_TYPES.dynamic, SERVER_TYPES.plugin])(
    "is drift: gone, made by the next up (%s)",
    async (type) => {
      const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
      const game = emulator.fixture.games[0]!;
      const environment = game.environments.find((e) => e.nameId === "prod")!;
      const scope = { gameId: game.id, environmentId: environment.id };
      const old = await client.createServer(scope.gameId, scope.environmentId, {
        datacenter: game.datacenters[0]!.id,
        tags: { role: "lobby" },
        runtime: { build: environment.builds[0]!.id },
        network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
        resources: { cpu: 250, memory: 256 },
      });
      await client.deleteServer(scope.gameId, scope.environmentId, old.id);
      const urn = `urn:pulumi:prod::game::${type}::lobby`;
      // What `pulumi stack export` holds after the failed create: the deleted server, marked.
      const deployment: Deployment = {
        resources: [
          {
            urn,
            type,
            custom: true,
            id: old.id,
            inputs: { ...scope, tags: { role: "lobby" } },
            outputs: { ...scope, serverId: old.id, tags: { role: "lobby" } },
            pendingReplacement: true,
          },
        ],
      };
      // The refresh preview reports nothing for it: the engine does not refresh a resource pending replacement.
      const stack = { name: "prod", previewRefresh: async () => ({}) } as unknown as Stack;
      const report = await drift(stack, client, [], deployment);
      expect(hasDrift(report)).toBe(true);
      expect(report.drifted).toEqual([
        expect.objectContaining({ urn, kind: "gone", replacementNotCreated: true }),
      ]);
      expect(driftLines(report)).toEqual([
        `gone     lobby (${type}): deleted for its replacement, whose create did not finish (the next \`pulumi up\` creates it)`,
        "prod: drift: 1 gone, 0 changed, 0 strays, 0 pending creates",
      ]);
    },
  );
});
