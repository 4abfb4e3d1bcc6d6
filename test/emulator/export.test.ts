import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOBBY_HISTORY_COLUMNS } from "../../src/api/schemas/lobbies";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { call, codeOf, ids, start } from "./helpers";

// The sample span documented in fixtures/default.json: 2024-08-16T00:00Z to 2024-08-17T00:00Z.
const QUERY_START = Date.UTC(2024, 7, 16);
const QUERY_END = Date.UTC(2024, 7, 17);

let clock = Date.now();
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ now: () => clock });
});
afterAll(() => emu.stop());

const exportPath = (gameId: string) => `/cloud/games/${gameId}/matchmaker/lobbies/export-history`;

async function exportUrl(
  span = { query_start: QUERY_START, query_end: QUERY_END },
  gameId = ids(emu).gameId,
) {
  const res = await call(emu, "POST", exportPath(gameId), { body: span });
  expect(res.status, res.text).toBe(200);
  return (res.body as { url: string }).url;
}

describe("lobby history export", () => {
  it("writes a CSV of the span's lobbies of every environment, newest first, with uptime maths", async () => {
    const url = await exportUrl();
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("rvt-ray-id")).toBeTruthy();
    const text = await res.text();
    const [header, ...rows] = parse(text) as string[][];
    expect(header).toEqual([...LOBBY_HISTORY_COLUMNS]);

    const { game } = ids(emu);
    const lobbies = emu.fixture.lobbies.filter((l) => l.gameId === game.id);
    // docs/service-contract.md §6: (query_start, query_end]; created or stopped in it, or running and created by its end.
    const inside = (t: number) => t > QUERY_START && t <= QUERY_END;
    const expected = lobbies
      .filter((l) =>
        l.stopTs === undefined ? l.startTs <= QUERY_END : inside(l.startTs) || inside(l.stopTs),
      )
      .sort((a, b) => b.startTs - a.startTs);
    expect(rows.map((r) => r[0])).toEqual(expected.map((l) => l.id));
    // The default fixture covers every case: running, stopped, and lobbies outside the span.
    expect(expected.length).toBeGreaterThan(5);
    expect(expected.length).toBeLessThan(lobbies.length);
    expect(new Set(expected.map((l) => l.environmentId)).size).toBe(2);
    // Its edge lobbies, by their notes: the span is open at its start and closed at its end.
    const noted = (words: string) => lobbies.find((l) => l.note?.startsWith(words))?.id;
    const exportedIds = rows.map((r) => r[0]);
    expect(exportedIds).not.toContain(noted("stopped exactly at query_start"));
    expect(exportedIds).toContain(noted("created exactly at query_start"));
    expect(exportedIds).toContain(noted("stopped exactly at query_end"));
    expect(exportedIds).toContain(noted("running, created exactly at query_end"));

    const col = (name: (typeof LOBBY_HISTORY_COLUMNS)[number]) => LOBBY_HISTORY_COLUMNS.indexOf(name);
    for (const [i, lobby] of expected.entries()) {
      const row = rows[i] as string[];
      const until = lobby.stopTs ?? QUERY_END;
      const env = game.environments.find((e) => e.id === lobby.environmentId);
      const region = game.regions.find((r) => r.id === lobby.regionId);
      expect(row[col("namespace_id")]).toBe(lobby.environmentId);
      // Name ids (`prod`, `us-east`), not display names.
      expect(row[col("namespace_name")]).toBe(env?.nameId);
      expect(row[col("region_name")]).toBe(region?.nameId);
      expect(env?.nameId).not.toBe(env?.displayName);
      expect(row[col("lobby_group_name")]).toBe(lobby.lobbyGroupName);
      expect(row[col("start_ts")]).toBe(String(lobby.startTs));
      expect(row[col("stop_ts")]).toBe(lobby.stopTs === undefined ? "" : String(lobby.stopTs));
      expect(Number(row[col("total_uptime_ms")])).toBe(until - lobby.startTs);
      const overlap = Math.min(until, QUERY_END) - Math.max(lobby.startTs, QUERY_START);
      expect(Number(row[col("query_uptime_ms")])).toBe(Math.max(0, overlap));
    }
  });

  it("writes an empty file, without even a header, when no lobby is in the span", async () => {
    const url = await exportUrl({ query_start: 1_000, query_end: 2_000 });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe("0");
    expect(await res.text()).toBe("");
  });

  it("lets a cloud token of the game export, and no other game's token", async () => {
    const { gameId, otherGame } = ids(emu);
    const span = { query_start: QUERY_START, query_end: QUERY_END };
    const mine = await call(emu, "POST", exportPath(gameId), { body: span, token: emu.tokens.cloud[gameId] });
    expect(mine.status).toBe(200);
    const theirs = await call(emu, "POST", exportPath(gameId), {
      body: span,
      token: emu.tokens.cloud[otherGame.id],
    });
    expect(codeOf(theirs)).toBe("CLAIMS_MISSING_ENTITLEMENT");
  });

  it("checks no range: a backward, empty or negative span is accepted and exports nothing", async () => {
    const spans = [
      { query_start: QUERY_END, query_end: QUERY_START },
      { query_start: QUERY_START, query_end: QUERY_START },
      { query_start: -1, query_end: QUERY_END },
      { query_start: -QUERY_END, query_end: -1 },
    ];
    for (const span of spans) {
      const text = await (await fetch(await exportUrl(span))).text();
      expect(text, JSON.stringify(span)).toBe("");
    }
  });

  it("ignores unknown fields, and refuses a bound that is missing or not an integer naming it", async () => {
    const span = { query_start: QUERY_START, query_end: QUERY_END };
    expect(
      parse(await (await fetch(await exportUrl({ ...span, format: "csv" } as typeof span))).text()).length,
    ).toBeGreaterThan(1);
    const cases: Array<[unknown, string]> = [
      [{ query_start: "yesterday", query_end: QUERY_END }, "query_start"],
      [{ query_start: QUERY_START }, "query_end"],
      [{ query_start: QUERY_START, query_end: 1.5 }, "query_end"],
      [{}, "query_start"],
    ];
    for (const [body, field] of cases) {
      const res = await call(emu, "POST", exportPath(ids(emu).gameId), { body });
      expect([res.status, codeOf(res)]).toEqual([400, "API_BAD_BODY"]);
      expect((res.body as { message: string }).message).toContain(field);
    }
    const missing = await call(emu, "POST", exportPath("00000000-0000-4000-8000-000000000000"), {
      body: { query_start: 1, query_end: 2 },
    });
    expect(codeOf(missing)).toBe("GAME_NOT_FOUND");
  });

  it("refuses a tampered URL and an expired one with 403, without needing a token", async () => {
    const url = new URL(await exportUrl());
    const expires = Number(url.searchParams.get("expires"));
    expect(expires).toBe(clock + 3_600_000);

    const longer = new URL(url);
    longer.searchParams.set("expires", String(expires + 1_000));
    const tampered = await fetch(longer);
    expect(tampered.status).toBe(403);
    expect(((await tampered.json()) as { code: string }).code).toBe("API_FORBIDDEN");

    const badSig = new URL(url);
    badSig.searchParams.set("signature", "0".repeat(64));
    expect((await fetch(badSig)).status).toBe(403);
    const noSig = new URL(url);
    noSig.searchParams.delete("signature");
    expect((await fetch(noSig)).status).toBe(403);

    clock += 3_600_001;
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { message: string }).message).toContain("expired");
    clock -= 3_600_001;
    expect((await fetch(url)).status).toBe(200);
  });

  it("streams a generated export, newest first and deterministic", async () => {
    const base = structuredClone(emu.fixture);
    const gameId = ids(emu).gameId;
    const endTs = QUERY_END;
    const big = await startEmulator({
      fixture: {
        ...base,
        lobbies: [],
        lobbyGenerators: [
          { gameId, count: 200_000, seed: 42, endTs, intervalMs: 1_000, maxDurationMs: 600_000 },
        ],
      },
    });
    try {
      const span = { query_start: endTs - 100_000_000, query_end: endTs - 50_000_000 };
      const res = await call(big, "POST", exportPath(gameId), { body: span });
      const text = await (await fetch((res.body as { url: string }).url)).text();
      const rows = (parse(text) as string[][]).slice(1);
      // One lobby per second: roughly one row per second of the span, plus those stopping inside it.
      expect(rows.length).toBeGreaterThan(49_000);
      expect(rows.length).toBeLessThan(52_000);
      const starts = rows.map((r) => Number(r[10]));
      expect(starts.every((s, i) => i === 0 || s <= (starts[i - 1] as number))).toBe(true);
      // Deterministic: the same seed gives the same file.
      const again = await call(big, "POST", exportPath(gameId), { body: span });
      expect(await (await fetch((again.body as { url: string }).url)).text()).toBe(text);
    } finally {
      await big.stop();
    }
  });
});
