/**
 * Lobby-history exports, property-based: for lobbies placed on and around the edges of a span, the
 * emulator's CSV holds exactly the rows docs/service-contract.md §6 describes. The rule is written out here
 * from the facts, not taken from the emulator, so an emulator that drifts from them fails.
 */
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { LOBBY_HISTORY_COLUMNS } from "../../src/api/schemas/lobbies";
import { type FixtureInput, type RunningEmulator, startEmulator } from "../../src/emulator";
import { call, ids } from "./helpers";

type Fixture = RunningEmulator["fixture"];
type Lobby = Fixture["lobbies"][number];

/** An instant well clear of 0, so that "one before the span" is still a valid lobby time. */
const BASE = 1_000_000;

/**
 * §6: the span is `(query_start, query_end]`; a lobby is in when its create or stop time lies in
 * it, or when it is still running and was created at or before `query_end`; one created after
 * `query_end` or stopped at or before `query_start` never is. No range check: a span with
 * `query_start ≥ query_end`, or a negative value, gives an empty export.
 */
function included(lobby: Lobby, queryStart: number, queryEnd: number): boolean {
  if (queryStart >= queryEnd || queryStart < 0 || queryEnd < 0) return false;
  if (lobby.startTs > queryEnd) return false;
  if (lobby.stopTs !== undefined && lobby.stopTs <= queryStart) return false;
  const inSpan = (t: number) => queryStart < t && t <= queryEnd;
  const running = lobby.stopTs === undefined;
  return inSpan(lobby.startTs) || (!running && inSpan(lobby.stopTs as number)) || running;
}

/** §6 columns of an included lobby, as CSV text. */
function expectedRow(fixture: Fixture, lobby: Lobby, queryStart: number, queryEnd: number): string[] {
  const game = fixture.games.find((g) => g.id === lobby.gameId) as Fixture["games"][number];
  const end = lobby.stopTs ?? queryEnd;
  // The lobby lives over [startTs, end]; its part in the span is the overlap with (queryStart, queryEnd].
  const overlap = Math.max(0, Math.min(end, queryEnd) - Math.max(lobby.startTs, queryStart));
  return [
    lobby.id,
    lobby.environmentId,
    game.environments.find((e) => e.id === lobby.environmentId)?.nameId ?? "?",
    lobby.regionId,
    game.regions.find((r) => r.id === lobby.regionId)?.nameId ?? "?",
    lobby.tierName,
    lobby.versionId,
    game.versions.find((v) => v.id === lobby.versionId)?.displayName ?? "?",
    lobby.lobbyGroupId,
    lobby.lobbyGroupName,
    String(lobby.startTs),
    lobby.stopTs === undefined ? "" : String(lobby.stopTs),
    String(end - lobby.startTs),
    String(overlap),
  ];
}

/** A span: mostly forward, sometimes empty, backward or with a negative bound. */
const span = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.nat(20), fc.integer({ min: 1, max: 30 }))
      .map(([a, n]) => [BASE + a, BASE + a + n]),
  },
  { weight: 1, arbitrary: fc.nat(20).map((a) => [BASE + a, BASE + a]) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(20), fc.integer({ min: 1, max: 30 }))
      .map(([a, n]) => [BASE + a + n, BASE + a]),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: -BASE * 2, max: -1 }), fc.integer({ min: 1, max: BASE * 2 }))
      .map(([neg, n]) => [neg, neg + n]),
  },
) as fc.Arbitrary<[number, number]>;

/** An instant on or next to an edge of the span, or anywhere around it. */
function instantNear([queryStart, queryEnd]: [number, number]): fc.Arbitrary<number> {
  const edges = [queryStart - 1, queryStart, queryStart + 1, queryEnd - 1, queryEnd, queryEnd + 1].filter(
    (t) => t >= 0,
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(edges.length > 0 ? edges : [BASE])) },
    { weight: 1, arbitrary: fc.integer({ min: BASE - 10, max: BASE + 60 }) },
  );
}

interface Case {
  span: [number, number];
  lobbies: Array<{ startTs: number; stopTs?: number; env: number; region: number; version: number }>;
}

const caseOf: fc.Arbitrary<Case> = span.chain((s) => {
  const at = instantNear(s);
  // A stop at an instant (one before the start stops at the start itself), or a lifetime.
  const stop = fc.oneof(
    at.map((t) => ({ at: t })),
    fc.nat(40).map((lifetime) => ({ lifetime })),
  );
  const lobby = fc
    .record({
      startTs: at,
      stop: fc.option(stop, { nil: undefined, freq: 3 }),
      env: fc.nat(),
      region: fc.nat(),
      version: fc.nat(),
    })
    .map(({ startTs, stop, ...rest }) => {
      if (stop === undefined) return { startTs, ...rest };
      const stopTs = "at" in stop ? Math.max(stop.at, startTs) : startTs + stop.lifetime;
      return { startTs, stopTs, ...rest };
    });
  return fc.record({ span: fc.constant(s), lobbies: fc.array(lobby, { maxLength: 8 }) });
});

const pick = <T>(items: readonly T[], n: number): T => items[n % items.length] as T;
const idOf = (n: number) => `10bb${String(n).padStart(4, "0")}-0000-4000-8000-00000000e2e0`;

let base: Fixture;
beforeAll(async () => {
  const emu = await startEmulator();
  base = structuredClone(emu.fixture);
  await emu.stop();
});

/** The main game's lobbies of the case, on the default fixture's ids. */
function fixtureOf(c: Case): { fixture: FixtureInput; lobbies: Lobby[] } {
  const game = base.games.find((g) => g.nameId === "space-race") as Fixture["games"][number];
  const { stopTs: _stop, note: _note, ...template } = base.lobbies.find((l) => l.gameId === game.id) as Lobby;
  const lobbies = c.lobbies.map(
    (l, n): Lobby => ({
      ...template,
      id: idOf(n),
      environmentId: pick(game.environments, l.env).id,
      regionId: pick(game.regions, l.region).id,
      versionId: pick(game.versions, l.version).id,
      startTs: l.startTs,
      ...(l.stopTs !== undefined ? { stopTs: l.stopTs } : {}),
    }),
  );
  return { fixture: { ...structuredClone(base), lobbies, lobbyGenerators: [] }, lobbies };
}

/** Exports the span from an emulator serving `fixture`; the downloaded file as text. */
async function exported(fixture: FixtureInput, [queryStart, queryEnd]: [number, number]): Promise<string> {
  const emu = await startEmulator({ fixture });
  try {
    const res = await call(emu, "POST", `/cloud/games/${ids(emu).gameId}/matchmaker/lobbies/export-history`, {
      body: { query_start: queryStart, query_end: queryEnd },
    });
    expect(res.status, res.text).toBe(200);
    return await (await fetch((res.body as { url: string }).url)).text();
  } finally {
    await emu.stop();
  }
}

describe("lobby-history export span (docs/service-contract.md §6)", () => {
  it("holds exactly the lobbies and columns of the rule, newest first, for lobbies on the span's edges", async () => {
    await fc.assert(
      fc.asyncProperty(caseOf, async (c) => {
        const { fixture, lobbies } = fixtureOf(c);
        const [queryStart, queryEnd] = c.span;
        const text = await exported(fixture, c.span);
        const expected = lobbies.filter((l) => included(l, queryStart, queryEnd));
        if (expected.length === 0) {
          // No lobby, no header either: the header is written with the first row.
          expect(text).toBe("");
          return;
        }
        const [header, ...rows] = parse(text) as string[][];
        expect(header).toEqual([...LOBBY_HISTORY_COLUMNS]);
        const want = new Map(expected.map((l) => [l.id, expectedRow(base, l, queryStart, queryEnd)]));
        expect(new Map(rows.map((r) => [r[0], r]))).toEqual(want);
        expect(rows).toHaveLength(expected.length);
        const starts = rows.map((r) => Number(r[10]));
        expect(starts.every((s, i) => i === 0 || s <= (starts[i - 1] as number))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("decides each edge as the facts spell them out", async () => {
    const [queryStart, queryEnd] = [BASE, BASE + 100];
    const cases: Array<[string, { startTs: number; stopTs?: number }, boolean]> = [
      ["stopped exactly at query_start", { startTs: BASE - 50, stopTs: BASE }, false],
      ["created exactly at query_start, stopped at it", { startTs: BASE, stopTs: BASE }, false],
      ["created exactly at query_start, still running", { startTs: BASE }, true],
      ["created exactly at query_start, stopped inside", { startTs: BASE, stopTs: BASE + 1 }, true],
      ["stopped exactly at query_end", { startTs: BASE + 10, stopTs: BASE + 100 }, true],
      ["created exactly at query_end, still running", { startTs: BASE + 100 }, true],
      ["created exactly at query_end, stopped later", { startTs: BASE + 100, stopTs: BASE + 500 }, true],
      ["created just after query_end, still running", { startTs: BASE + 101 }, false],
      [
        "created before, stopped after: neither time inside",
        { startTs: BASE - 1, stopTs: BASE + 101 },
        false,
      ],
      ["created long before, still running", { startTs: 0 }, true],
    ];
    const c: Case = {
      span: [queryStart, queryEnd],
      lobbies: cases.map(([, times]) => ({ ...times, env: 0, region: 0, version: 0 })),
    };
    const { fixture, lobbies } = fixtureOf(c);
    const rows = (parse(await exported(fixture, c.span)) as string[][]).slice(1);
    const exportedIds = new Set(rows.map((r) => r[0]));
    cases.forEach(([name, , want], n) => {
      expect(exportedIds.has((lobbies[n] as Lobby).id), name).toBe(want);
      expect(included(lobbies[n] as Lobby, queryStart, queryEnd), `the test's own rule: ${name}`).toBe(want);
    });
    const row = (n: number) => rows.find((r) => r[0] === (lobbies[n] as Lobby).id) as string[];
    // Running, created at query_end: no uptime yet, none in the span.
    expect(row(5).slice(12)).toEqual(["0", "0"]);
    // Created at query_end, stopped later: its whole uptime, none of it in the span.
    expect(row(6).slice(12)).toEqual(["400", "0"]);
    // Running since long before: uptime up to query_end, all of the span.
    expect(row(9).slice(12)).toEqual([String(BASE + 100), "100"]);
  });
});
