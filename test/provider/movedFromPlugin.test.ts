/**
 * A resource moved from the plugin's face to the dynamic one by an alias of its type keeps its recorded
 * state, which holds no serialized provider: the dynamic provider host deserializes the provider from the
 * recorded outputs to refresh or delete, and failed ("code must be a string, not undefined"). The diff
 * of the first `up` after the move has the host record one: an update for a kind with an update of its
 * own, a replacement for the others (the host's update would record no outputs but the provider).
 */
import { describe, expect, it } from "vitest";
import * as fleetHost from "../../src/dynamic/generated/host/fleet";
import * as exportHost from "../../src/dynamic/generated/host/lobbyHistoryExport";
import * as serverHost from "../../src/dynamic/generated/host/server";
import type { ServerInputs, ServerOutputs } from "../../src/kinds/server/spec";
import { SAMPLE_ID, SAMPLE_SERVER_INPUTS } from "../support/serverInputs";

const SHIM = "exports.handler = __f0; /* the program's serialized provider */";
const GAME = "22222222-2222-4222-8222-222222222222";

const server: ServerInputs = { ...structuredClone(SAMPLE_SERVER_INPUTS), idempotencyKey: SAMPLE_ID };
const serverOutputs: ServerOutputs = {
  ...server,
  serverId: SAMPLE_ID,
  createdAt: 1,
  startedAt: 2,
  ports: {},
  endpoints: {},
};

describe("the dynamic face's diff of state another face recorded", () => {
  it("updates a Server whose recorded outputs hold no serialized provider, replacing nothing", async () => {
    const news = { ...server, __provider: SHIM } as ServerInputs;
    expect(await serverHost.diff(SAMPLE_ID, serverOutputs, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    // Recorded by this face (the provider in its outputs): no change, as before.
    const recorded = { ...serverOutputs, __provider: "an earlier shim" } as ServerOutputs;
    expect((await serverHost.diff(SAMPLE_ID, recorded, news)).changes).toBe(false);
  });

  it("replaces a LobbyHistoryExport (no update of its own) whose recorded outputs hold no provider", async () => {
    const inputs = { gameId: GAME, queryStart: 1000, queryEnd: 2000 };
    const outputs = { ...inputs, exportedAt: 3, url: "https://x.example/e.csv", expiresAt: 4 };
    const moved = await exportHost.diff("id", outputs as never, { ...inputs, __provider: SHIM } as never);
    expect(moved.changes).toBe(true);
    expect(moved.replaces).toEqual(["__provider"]);
    const recorded = await exportHost.diff(
      "id",
      { ...outputs, __provider: "an earlier shim" } as never,
      { ...inputs, __provider: SHIM } as never,
    );
    expect(recorded.changes).toBe(false);
  });

  it("updates a Fleet (it has an update) whose recorded outputs hold no provider", async () => {
    const inputs = {
      gameId: GAME,
      environmentId: GAME,
      template: SAMPLE_SERVER_INPUTS,
      datacenters: {},
      fleetKey: SAMPLE_ID,
    };
    const outputs = { ...inputs, status: {}, generation: 1 };
    const moved = await fleetHost.diff("id", outputs as never, { ...inputs, __provider: SHIM } as never);
    expect(moved.changes).toBe(true);
    expect(moved.replaces).toEqual([]);
    const recorded = await fleetHost.diff(
      "id",
      { ...outputs, __provider: "an earlier shim" } as never,
      { ...inputs, __provider: SHIM } as never,
    );
    expect(recorded.changes).toBe(false);
  });
});
