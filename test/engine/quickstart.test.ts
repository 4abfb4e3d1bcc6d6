/**
 * Scenario 1 on `examples/quickstart`, unchanged, through the SDK's language and provider hosts: preview,
 * up, a no-op up, an out-of-band delete found by refresh and healed by up, destroy. Every run is also
 * checked for the token leaking into the checkpoint or the diagnostics (scenario 6).
 */
import { createHash } from "node:crypto";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { type RunResult, Stack, UNKNOWN } from "../../harness/src";
import type { RunningEmulator } from "../../src/emulator";
import { dist } from "../support/dist";
import { liveServers } from "../support/emulator";
import {
  EXPORT_TYPE,
  expectNoLeak,
  type FixtureIds,
  fixtureIds,
  IDEMPOTENCY_TAG,
  opsOf,
  QUICKSTART_DIR,
  QUICKSTART_READS,
  quickstartConfig,
  ROUTES,
  routesCalled,
  SERVER_TYPE,
  stateOf,
  useEngineEnvironment,
} from "./helpers";

const engine = useEngineEnvironment("quickstart");
let emulator: RunningEmulator;
let ids: FixtureIds;
let stack: Stack;
let token: string;
/** Outputs of the first up, compared with later runs. */
let firstUp: RunResult | undefined;

/** Runs one stack operation with a fresh request log, and checks the token stayed out of everything. */
async function run(op: "preview" | "up" | "refresh" | "destroy"): Promise<RunResult> {
  emulator.resetRequests();
  return expectNoLeak(token, stack, await stack[op]());
}

function output(result: RunResult, key: string) {
  return result.outputs[key]?.value;
}

beforeAll(() => {
  emulator = engine.emulator;
  ids = fixtureIds(emulator);
  token = emulator.tokens.user;
  stack = new Stack({
    programDir: QUICKSTART_DIR,
    config: quickstartConfig(emulator),
    checkpointFile: engine.checkpointFile("dev"),
  });
});

describe("examples/quickstart through the engine harness", () => {
  it("preview calls only the data sources, creates nothing and writes no state", async () => {
    const preview = await run("preview");

    expect(preview.error).toBeUndefined();
    expect(opsOf(preview.steps).sort()).toEqual(["lobby: create", "match: create", "yesterday: create"]);
    expect(preview.steps.every((s) => s.preview)).toBe(true);
    // Exactly the data-source reads: no server listing, create or export.
    expect(routesCalled(emulator)).toEqual(QUICKSTART_READS);
    expect(emulator.servers()).toEqual([]);
    expect(stack.checkpoint()).toBeUndefined();
    // Data sources resolve during preview; what the provider computes is unknown until apply.
    expect(output(preview, "gameName")).toBe(ids.gameName);
    expect(output(preview, "lobbyServerId")).toBe(UNKNOWN);
    expect(output(preview, "historyRows")).toBe(UNKNOWN);
  });

  it("up creates both servers and the export, and reports endpoints, game name and history rows", async () => {
    const up = await run("up");
    firstUp = up;

    expect(up.error).toBeUndefined();
    expect(opsOf(up.steps).sort()).toEqual(["lobby: create", "match: create", "yesterday: create"]);
    const calls = routesCalled(emulator);
    expect(calls.filter((r) => r === ROUTES.createServer)).toHaveLength(2);
    expect(calls.filter((r) => r === ROUTES.exportHistory)).toHaveLength(1);
    expect(calls).not.toContain(ROUTES.deleteServer);

    const live = liveServers(emulator);
    expect(live).toHaveLength(2);
    const lobbyId = output(up, "lobbyServerId");
    const matchId = output(up, "matchServerId");
    const lobby = live.find((s) => s.id === lobbyId);
    const match = live.find((s) => s.id === matchId);
    expect(lobby?.tags.role).toBe("lobby");
    expect(match?.tags.role).toBe("match");
    // Endpoints are the addresses the service assigned at placement.
    const web = lobby?.network.ports.web;
    const game = match?.network.ports.game;
    expect(output(up, "lobbyEndpoint")).toBe(`${web?.public_hostname}:${web?.public_port}`);
    expect(output(up, "matchEndpoint")).toBe(`${game?.public_hostname}:${game?.public_port}`);
    expect(output(up, "gameName")).toBe(ids.gameName);
    expect([...(output(up, "environments") as string[])].sort()).toEqual([...ids.environmentNames].sort());

    // The summary describes the CSV the export URL serves; the URL itself is a secret output.
    expect(up.outputs.historyUrl?.secret).toBe(true);
    const csv = Buffer.from(await (await fetch(String(output(up, "historyUrl")))).arrayBuffer());
    const rows = parse(csv, { relax_column_count: true }) as string[][];
    expect(rows.length).toBeGreaterThan(1);
    expect(output(up, "historyRows")).toBe(rows.length - 1);
    expect(output(up, "historySha256")).toBe(createHash("sha256").update(csv).digest("hex"));

    // The checkpoint records each server under its id, with the key the service holds as a tag.
    for (const [name, server] of [
      ["lobby", lobby],
      ["match", match],
    ] as const) {
      const state = stateOf(stack, name);
      expect(state?.type).toBe(SERVER_TYPE);
      expect(state?.id).toBe(server?.id);
      expect(server?.tags[IDEMPOTENCY_TAG]).toBe(state?.outputs.idempotencyKey);
    }
    expect(stateOf(stack, "yesterday")?.type).toBe(EXPORT_TYPE);
  });

  it("a second up is all `same` and only reads the data sources", async () => {
    const again = await run("up");

    expect(again.error).toBeUndefined();
    expect(opsOf(again.steps).sort()).toEqual(["lobby: same", "match: same", "yesterday: same"]);
    expect(routesCalled(emulator)).toEqual(QUICKSTART_READS);
    expect(again.outputs).toEqual(firstUp?.outputs);
    expect(liveServers(emulator)).toHaveLength(2);
  });

  it("refresh drops a server deleted out of band from the state, and up recreates it", async () => {
    const oldLobbyId = String(output(firstUp as RunResult, "lobbyServerId"));
    const matchId = output(firstUp as RunResult, "matchServerId");
    const client = new (dist.api().GamehostClient)({ baseUrl: emulator.url, token });
    await client.deleteServer(ids.gameId, ids.environmentId, oldLobbyId);

    const refresh = await run("refresh");

    expect(refresh.error).toBeUndefined();
    const lobbyStep = refresh.steps.find((s) => s.name === "lobby");
    expect(lobbyStep).toMatchObject({ op: "refresh", gone: true, oldId: oldLobbyId });
    expect(refresh.steps.find((s) => s.name === "match")).toMatchObject({ op: "refresh", id: matchId });
    expect(refresh.steps.find((s) => s.name === "match")?.gone).toBeUndefined();
    expect(stateOf(stack, "lobby")).toBeUndefined();
    expect(stateOf(stack, "match")?.id).toBe(matchId);

    const up = await run("up");

    expect(up.error).toBeUndefined();
    expect(opsOf(up.steps).sort()).toEqual(["lobby: create", "match: same", "yesterday: same"]);
    const newLobbyId = output(up, "lobbyServerId");
    expect(newLobbyId).not.toBe(oldLobbyId);
    expect(stateOf(stack, "lobby")?.id).toBe(newLobbyId);
    expect(
      liveServers(emulator)
        .map((s) => s.id)
        .sort(),
    ).toEqual([newLobbyId, matchId].sort());
    expect(routesCalled(emulator).filter((r) => r === ROUTES.createServer)).toHaveLength(1);
  });

  it("destroy deletes every server and leaves an empty state", async () => {
    const destroy = await run("destroy");

    expect(destroy.error).toBeUndefined();
    expect(opsOf(destroy.steps).sort()).toEqual(["lobby: delete", "match: delete", "yesterday: delete"]);
    expect(liveServers(emulator)).toEqual([]);
    expect(routesCalled(emulator).filter((r) => r === ROUTES.deleteServer)).toHaveLength(2);
    expect(stack.resources()).toEqual([]);
    // The match server's declared destroyKillTimeout reached the service as the kill override.
    const matchId = String(output(firstUp as RunResult, "matchServerId"));
    const deletedAt = emulator.servers().find((s) => s.id === matchId)?.destroyed_at;
    expect(deletedAt).toBeDefined();
    expect(emulator.killDeadline(matchId)).toBe((deletedAt ?? 0) + 5_000);
  });
});
