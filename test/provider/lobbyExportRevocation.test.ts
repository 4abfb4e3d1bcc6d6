/**
 * Deleting a LobbyHistoryExport (`pulumi destroy`, a replace) removes it from the stack only: the service
 * has no call that revokes a presigned URL, so the CSV stays readable by whoever holds the URL until it
 * expires. An analytics engineer who destroys an export after its URL leaked must learn that from the
 * `url` output's documentation, not from a download that still works (found by a trial, 2026-11-27).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  check,
  configure,
  create,
  delete as deleteExport,
} from "../../src/dynamic/generated/host/lobbyHistoryExport";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { lobbyHistoryExportKind } from "../../src/kinds/lobbyHistoryExport/implementation";
import { ExportComputedOutputs } from "../../src/kinds/lobbyHistoryExport/spec";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({});
});
afterAll(async () => {
  await emulator.stop();
});

describe("a deleted export's URL", () => {
  it("still downloads until it expires, and the url output says so", async () => {
    configure({
      config: {
        get: (key) => ({ "gamehost:baseUrl": emulator.url, "gamehost:token": emulator.tokens.user })[key],
      },
    });
    const gameId = emulator.fixture.games[0]?.id as string;
    const { inputs, failures } = await check(
      {},
      { gameId, queryStart: "2024-08-16T00:00:00Z", queryEnd: "2024-08-17T00:00:00Z" },
    );
    expect(failures).toEqual([]);
    const { id, outs } = await create(inputs);
    await deleteExport(id, outs);
    const download = await fetch(outs.url as string);
    expect(download.status).toBe(200);
    await download.arrayBuffer();
    const described = ExportComputedOutputs.shape.url.description ?? "";
    expect(described).toMatch(/does not revoke/);
    expect(described).toContain("expiresAt");
  });
});

describe("an expired URL", () => {
  it("is kept by refresh and up, and the resource's description says how to export again", () => {
    // The service keeps no record of an export, so `read` returns the state as it is: a URL an hour old
    // stays in the stack, dead. The reference page (this description) is where a user looks first.
    const description = lobbyHistoryExportKind.description;
    expect(description).toContain("pulumi refresh");
    expect(description).toContain("pulumi up --replace");
    expect(description).toContain("triggers");
  });
});

describe("a bound past the largest safe integer", () => {
  it("gets one reason, the range, not 'must be an integer'", async () => {
    // 2 ** 63 (a Java Long.MAX_VALUE-like "end of time" an analytics tool may pass) is an integer; zod's
    // int check fails it as too big, and the message it was given said "must be an integer".
    const { failures } = await check(
      {},
      { gameId: "9a000000-0000-4000-8000-000000000001", queryStart: 0, queryEnd: 2 ** 63 },
    );
    expect(failures).toEqual([{ property: "queryEnd", reason: `must be ≤ ${Number.MAX_SAFE_INTEGER}` }]);
  });

  it("gets one reason below the safe range too", async () => {
    // zod's int check fails -(2 ** 63) as too small, and min(0) does again: one reason is enough.
    const { failures } = await check(
      {},
      { gameId: "9a000000-0000-4000-8000-000000000001", queryStart: -(2 ** 63), queryEnd: 1 },
    );
    expect(failures).toEqual([{ property: "queryStart", reason: "must be ≥ 0" }]);
  });
});
