/**
 * A replacement's create is asked about before the engine acts on the diff: with `deleteBeforeReplace` the
 * engine deletes the old server (or a fleet's servers) first, so a build or datacenter the service refuses
 * lost them. Both faces' diff asks the kind's `checkReplacement` when the diff replaces.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GamehostClient } from "../../src/api/client";
import * as serverHost from "../../src/dynamic/generated/host/server";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { UNKNOWN } from "../../src/kinds/checks";
import { fleetKind } from "../../src/kinds/fleet/implementation";
import type { FleetInputs, FleetOutputs } from "../../src/kinds/fleet/spec";
import type { OperationContext } from "../../src/kinds/kind";
import { serverKind } from "../../src/kinds/server/implementation";
import type { ServerInputs, ServerOutputs } from "../../src/kinds/server/spec";
import { SAMPLE_ID } from "../support/serverInputs";

const NO_SUCH = "0b0b0b0b-0000-4000-8000-00000000dead";

let emulator: RunningEmulator;
let ctx: OperationContext;
let server: ServerInputs;
beforeAll(async () => {
  emulator = await startEmulator({ placementDelayMs: 0 });
  const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
  ctx = { client: () => client };
  const game = emulator.fixture.games[0]!;
  const environment = game.environments.find((e) => e.nameId === "prod")!;
  server = {
    gameId: game.id,
    environmentId: environment.id,
    datacenter: game.datacenters[0]!.id,
    tags: { role: "lobby" },
    runtime: { build: environment.builds[0]!.id },
    network: { ports: { web: { protocol: "http", internalPort: 8080 } } },
    resources: { cpu: 250, memory: 256 },
    idempotencyKey: SAMPLE_ID,
  };
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.resetRequests());

const recorded = (inputs: ServerInputs): ServerOutputs => ({
  ...inputs,
  serverId: SAMPLE_ID,
  createdAt: 1,
  startedAt: 2,
  ports: {},
  endpoints: {},
});
const asked = () => emulator.requests.map((r) => r.route).sort();

describe("a Server's replacement", () => {
  it("to a build the environment lacks fails naming runtime.build, with nothing changed", async () => {
    const news = { ...server, runtime: { build: NO_SUCH } };
    await expect(serverKind.checkReplacement!(ctx, recorded(server), news)).rejects.toThrow(
      `Invalid replacement of a Server: runtime.build: ${NO_SUCH} is not a build of environment ${server.environmentId}: give one of its builds (getBuilds lists them); nothing was changed, and the server it would replace keeps running`,
    );
  });

  it("to a datacenter the cluster lacks fails naming datacenter and the datacenters there are", async () => {
    const news = { ...server, datacenter: NO_SUCH };
    const failure = serverKind.checkReplacement!(ctx, recorded(server), news);
    await expect(failure).rejects.toThrow(`datacenter: ${NO_SUCH} is not a datacenter of the game's cluster`);
    const slug = emulator.fixture.games[0]!.datacenters[0]!.slug;
    await expect(failure).rejects.toThrow(`${slug} (${server.datacenter})`);
  });

  it("to a build and datacenter that exist asks once for each, together", async () => {
    await serverKind.checkReplacement!(ctx, recorded(server), { ...server, tags: { role: "web" } });
    expect(asked()).toEqual([
      "GET /games/:game/environments/:env/builds",
      "GET /games/:game/environments/:env/datacenters",
    ]);
  });

  it("asks nothing about values a preview does not know yet, nor for an adoption", async () => {
    await serverKind.checkReplacement!(ctx, recorded(server), { ...server, runtime: { build: UNKNOWN } });
    expect(asked()).toEqual(["GET /games/:game/environments/:env/datacenters"]);
    emulator.resetRequests();
    await serverKind.checkReplacement!(ctx, recorded(server), { ...server, environmentId: UNKNOWN });
    // A whole object another resource's output gives: `runtime` itself unknown.
    const runtimeUnknown = { ...server, runtime: UNKNOWN, datacenter: UNKNOWN } as unknown as ServerInputs;
    await serverKind.checkReplacement!(ctx, recorded(server), runtimeUnknown);
    await serverKind.checkReplacement!(ctx, recorded(server), {
      ...server,
      runtime: { build: NO_SUCH },
      adoptServerId: SAMPLE_ID,
    });
    expect(asked()).toEqual([]);
  });

  it("is asked by the dynamic face's diff only when the diff replaces", async () => {
    vi.stubEnv("GAMEHOST_BASE_URL", emulator.url);
    vi.stubEnv("GAMEHOST_TOKEN", emulator.tokens.user);
    try {
      const olds = recorded(server);
      await expect(
        serverHost.diff(SAMPLE_ID, olds, { ...server, runtime: { build: NO_SUCH } }),
      ).rejects.toThrow(`runtime.build: ${NO_SUCH} is not a build of environment`);
      emulator.resetRequests();
      const update = await serverHost.diff(SAMPLE_ID, olds, { ...server, readyTimeoutSeconds: 9 });
      expect(update).toMatchObject({ changes: true, replaces: [] });
      expect(asked()).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("a Fleet's replacement (another game environment)", () => {
  const fleet = (): FleetInputs => ({
    gameId: server.gameId,
    environmentId: server.environmentId,
    template: {
      tags: server.tags,
      runtime: server.runtime,
      network: server.network,
      resources: server.resources,
    },
    datacenters: { [server.datacenter]: 2 },
    fleetKey: SAMPLE_ID,
  });
  const outputs = (inputs: FleetInputs) =>
    ({ ...inputs, status: {}, generation: 1 }) as unknown as FleetOutputs;

  it("fails naming template.runtime.build when the new environment lacks the build", async () => {
    const staging = emulator.fixture.games[0]!.environments.find((e) => e.nameId !== "prod")!;
    const news = { ...fleet(), environmentId: staging.id };
    if (staging.builds.some((b) => b.id === server.runtime.build)) throw new Error("fixture: builds overlap");
    await expect(fleetKind.checkReplacement!(ctx, outputs(fleet()), news)).rejects.toThrow(
      `template.runtime.build: ${server.runtime.build} is not a build of environment ${staging.id}`,
    );
  });

  it("fails naming the datacenter key the cluster lacks", async () => {
    const news = { ...fleet(), datacenters: { [NO_SUCH]: 1 } };
    await expect(fleetKind.checkReplacement!(ctx, outputs(fleet()), news)).rejects.toThrow(
      `datacenters.${NO_SUCH}: is not a datacenter of the game's cluster`,
    );
  });
});
