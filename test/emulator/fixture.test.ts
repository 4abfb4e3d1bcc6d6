import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_FIXTURE_PATH, type FixtureInput, loadFixture, startEmulator } from "../../src/emulator";
import { generateLobbies, inSpan, lobbiesOf } from "../../src/emulator/lobbies";

const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-fixture-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("default fixture", () => {
  const fixture = loadFixture(DEFAULT_FIXTURE_PATH);
  const user = fixture.tokens.find((t) => t.role === "user");
  const identity = user?.kind === "user" ? user.identityId : "";

  it("has what the tests and users rely on", () => {
    expect(fixture.groups.length).toBeGreaterThanOrEqual(2);
    expect(fixture.games.length).toBeGreaterThanOrEqual(3);
    const foreign = fixture.games.filter(
      (g) => !fixture.groups.find((gr) => gr.id === g.developerGroupId)?.members.includes(identity),
    );
    expect(foreign.length).toBeGreaterThanOrEqual(1);
    const main = fixture.games[0];
    expect(main?.environments.length).toBeGreaterThanOrEqual(2);
    expect(main?.datacenters.length).toBeGreaterThanOrEqual(2);
    expect(main?.environments.flatMap((e) => e.builds).length).toBeGreaterThanOrEqual(2);
    expect(fixture.lobbies.length).toBeGreaterThanOrEqual(18);
    expect(fixture.lobbies.some((l) => l.stopTs === undefined)).toBe(true);
    for (const role of ["user", "otherUser", "expired"]) {
      expect(fixture.tokens.some((t) => t.role === role)).toBe(true);
    }
    for (const game of fixture.games)
      expect(fixture.tokens.some((t) => t.kind === "cloud" && t.gameId === game.id)).toBe(true);
  });
});

describe("loadFixture", () => {
  it("names the file and the fields at fault", () => {
    const file = path.join(dir, "bad.json");
    const fixture = structuredClone(loadFixture());
    (fixture.games[0] as { developerGroupId: string }).developerGroupId =
      "00000000-0000-4000-8000-000000000000";
    (fixture.tokens[0] as { token: string }).token = "";
    writeFileSync(file, JSON.stringify(fixture));
    expect(() => loadFixture(file)).toThrow(/bad\.json.*games\.0\.developerGroupId.*unknown group/s);
    expect(() => loadFixture(file)).toThrow(/tokens\.0\.token/);
  });

  it("refuses a token no client could send: a control character (a terminal escape) or a space at an end", () => {
    const file = path.join(dir, "tokens.json");
    const fixture = structuredClone(loadFixture());
    (fixture.tokens[0] as { token: string }).token = "emu\u001b[2Jtoken";
    (fixture.tokens[1] as { token: string }).token = "emu_token ";
    writeFileSync(file, JSON.stringify(fixture));
    expect(() => loadFixture(file)).toThrow(/tokens\.0\.token.*no control character/s);
    expect(() => loadFixture(file)).toThrow(/tokens\.1\.token.*start or end with a space/s);
  });

  it("reports unreadable and non-JSON files", () => {
    expect(() => loadFixture(path.join(dir, "missing.json"))).toThrow(/Cannot read fixture file/);
    const file = path.join(dir, "text.json");
    writeFileSync(file, "not json");
    expect(() => loadFixture(file)).toThrow(/not JSON/);
  });

  it("reads a file an editor saved with a byte order mark, and names the line and column of a JSON mistake", () => {
    const text = readFileSync(DEFAULT_FIXTURE_PATH, "utf8");
    const bom = path.join(dir, "bom.json");
    // Notepad and other Windows editors save UTF-8 with a BOM; before, the fixture was "not JSON (Unexpected token '﻿'…".
    writeFileSync(bom, `\uFEFF${text}`);
    expect(loadFixture(bom).games[0]?.nameId).toBe("space-race");
    const trailing = path.join(dir, "trailing.json");
    writeFileSync(trailing, '{\n  "games": [],\n}\n');
    // Before: "at position 20" (Node 20), which no editor shows.
    expect(() => loadFixture(trailing)).toThrow(
      /Invalid fixture file .*trailing\.json: not JSON at line 3, column 1 \(/,
    );
  });

  it("rejects unknown keys and lobbies that stop before they start", () => {
    const fixture = structuredClone(loadFixture()) as Record<string, unknown> &
      ReturnType<typeof loadFixture>;
    const lobby = fixture.lobbies[0];
    if (lobby) lobby.stopTs = lobby.startTs - 1;
    expect(() => loadFixture({ ...fixture, surprise: 1 } as never)).toThrow(/surprise/);
    expect(() => loadFixture(fixture)).toThrow(/lobbies\.0\.stopTs/);
  });

  it("takes only the values the service sends for publicity, cluster and access (docs/service-contract.md §3)", () => {
    const fixture = structuredClone(loadFixture());
    (fixture.groups[0] as { publicity: string }).publicity = "secret";
    fixture.bootstrap.cluster = "k8s";
    fixture.bootstrap.access = "invite-only";
    const error = (() => {
      try {
        loadFixture(fixture);
      } catch (err) {
        return String(err);
      }
      return "loaded";
    })();
    expect(error).toMatch(/groups\.0\.publicity: must be open or closed/);
    expect(error).toMatch(/bootstrap\.cluster: must be enterprise or oss/);
    expect(error).toMatch(/bootstrap\.access: must be public or private/);
  });

  it("refuses two of what the service keeps unique: an environment id used twice leaves one game's environment unusable, a second name shadows the first", () => {
    const issuesOf = (edit: (f: FixtureInput) => void): string => {
      const fixture = structuredClone(loadFixture()) as FixtureInput;
      edit(fixture);
      try {
        loadFixture(fixture);
      } catch (err) {
        return String(err);
      }
      return "loaded";
    };
    const game = (f: FixtureInput, n: number) =>
      f.games[n] as ReturnType<typeof loadFixture>["games"][number];
    // A game block copied for a second game, its environment id kept: the emulator's servers routes
    // found that environment in the second game only, and the first answered GAME_ENVIRONMENT_NOT_FOUND.
    expect(
      issuesOf((f) => {
        const [space, puzzle] = [game(f, 0), game(f, 1)];
        const copied = puzzle.environments[0];
        if (copied) copied.id = space.environments[1]?.id ?? "";
        f.lobbies = [];
      }),
    ).toMatch(/games\.1\.environments\.0\.id: duplicate environment id e1000000-0000-4000-8000-000000000001/);
    expect(
      issuesOf((f) => {
        const env = game(f, 0).environments[0];
        if (env) env.nameId = "prod";
      }),
    ).toMatch(/games\.0\.environments\.1\.nameId: duplicate environment nameId prod/);
    expect(
      issuesOf((f) => {
        const dc = game(f, 0).datacenters[1];
        if (dc) dc.slug = "us-east-atl";
      }),
    ).toMatch(/games\.0\.datacenters\.1\.slug: duplicate datacenter slug us-east-atl/);
    expect(
      issuesOf((f) => {
        const dc = game(f, 0).datacenters[1];
        if (dc) dc.id = game(f, 0).datacenters[0]?.id ?? "";
      }),
    ).toMatch(/games\.0\.datacenters\.1\.id: duplicate datacenter id/);
    expect(
      issuesOf((f) => {
        const builds = game(f, 0).environments[1]?.builds ?? [];
        if (builds[1] && builds[0]) builds[1].id = builds[0].id;
      }),
    ).toMatch(/games\.0\.environments\.1\.builds\.1\.id: duplicate build id/);
    expect(
      issuesOf((f) => {
        game(f, 1).nameId = "space-race";
      }),
    ).toMatch(/games\.1\.nameId: duplicate game nameId space-race/);
    expect(
      issuesOf((f) => {
        const [a, b] = game(f, 0).versions;
        if (a && b) b.id = a.id;
      }),
    ).toMatch(/games\.0\.versions\.1\.id: duplicate version id/);
    expect(
      issuesOf((f) => {
        const [a, b] = game(f, 0).regions;
        if (a && b) b.nameId = a.nameId;
      }),
    ).toMatch(/games\.0\.regions\.1\.nameId: duplicate region nameId us-east/);
    expect(
      issuesOf((f) => {
        const [a, b] = f.lobbies as { id: string }[];
        if (a && b) b.id = a.id;
      }),
    ).toMatch(/lobbies\.1\.id: duplicate lobby id/);
  });

  it("gives a group without a bio the service's default, the empty string (docs/service-contract.md §3)", () => {
    const fixture = structuredClone(loadFixture()) as FixtureInput;
    delete (fixture.groups[0] as { bio?: string }).bio;
    expect(loadFixture(fixture).groups[0]?.bio).toBe("");
  });
});

describe("startEmulator with the user's own fixture", () => {
  it("warns of a user or otherUser token that has expired already: an expiresAt in seconds, not milliseconds", async () => {
    const fixture = structuredClone(loadFixture()) as FixtureInput;
    const user = fixture.tokens.find((t) => t.role === "user");
    if (user) user.expiresAt = 1_900_000_000; // 2030 in seconds; 1970-01-22 in milliseconds
    const warnings: string[] = [];
    const emu = await startEmulator({ fixture, onWarning: (m) => warnings.push(m) });
    await emu.stop();
    // Before: no word; the banner handed this token out as the user's, and every request was 401 expired.
    expect(warnings).toEqual([
      "the fixture's user token emu_user_alice expired at 1970-01-22T23:46:40.000Z (expiresAt 1900000000): expiresAt is in epoch milliseconds, not seconds",
    ]);
  });
});

describe("lobby generator", () => {
  const fixture = loadFixture();
  const game = fixture.games[0] as (typeof fixture.games)[number];
  const gen = {
    gameId: game.id,
    count: 2_000,
    seed: 7,
    endTs: 1_723_852_800_000,
    intervalMs: 1_000,
    maxDurationMs: 60_000,
    tierNames: ["a", "b"],
    lobbyGroupNames: ["x", "y"],
  };

  it("is deterministic per seed and yields lobbies newest first within their slots", () => {
    const a = [...generateLobbies(gen, game)];
    const b = [...generateLobbies(gen, game)];
    const c = [...generateLobbies({ ...gen, seed: 8 }, game)];
    expect(a).toEqual(b);
    expect(a.map((l) => l.id)).not.toEqual(c.map((l) => l.id));
    expect(new Set(a.map((l) => l.id)).size).toBe(a.length);
    a.forEach((l, i) => {
      expect(l.startTs).toBeLessThanOrEqual(gen.endTs - i * gen.intervalMs);
      expect(l.startTs).toBeGreaterThan(gen.endTs - (i + 1) * gen.intervalMs);
      expect(l.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      if (l.stopTs === undefined) expect(l.startTs + 1).toBeGreaterThan(gen.endTs - gen.maxDurationMs);
      else expect(l.stopTs).toBeLessThanOrEqual(gen.endTs);
      const env = game.environments.find((e) => e.id === l.environmentId);
      expect(l.versionId).toBe(env?.versionId);
    });
    expect(a.some((l) => l.stopTs === undefined)).toBe(true);
  });

  it("merges the fixture's lobbies with generated ones, newest first", () => {
    const merged = [...lobbiesOf({ ...fixture, lobbyGenerators: [gen] }, game)];
    const own = fixture.lobbies.filter((l) => l.gameId === game.id).length;
    expect(merged).toHaveLength(own + gen.count);
    expect(
      merged.every((l, i) => i === 0 || l.startTs <= (merged[i - 1] as { startTs: number }).startTs),
    ).toBe(true);
  });

  it("includes lobbies created or stopped in (start, end], or running and created by its end", () => {
    const { stopTs: _stop, ...base } = fixture.lobbies[0] as (typeof fixture.lobbies)[number];
    const at = (startTs: number, stopTs?: number) => ({
      ...base,
      startTs,
      ...(stopTs !== undefined ? { stopTs } : {}),
    });
    expect(inSpan(at(10, 20), 0, 100)).toBe(true);
    expect(inSpan(at(0, 20), 0, 100)).toBe(true);
    expect(inSpan(at(50, 200), 0, 100)).toBe(true);
    expect(inSpan(at(50, 100), 0, 100)).toBe(true);
    expect(inSpan(at(100, 200), 0, 100)).toBe(true);
    expect(inSpan(at(0, 200), 10, 100)).toBe(false);
    expect(inSpan(at(0, 10), 10, 100)).toBe(false);
    expect(inSpan(at(10, 10), 10, 100)).toBe(false);
    expect(inSpan(at(0), 10, 100)).toBe(true);
    expect(inSpan(at(100), 0, 100)).toBe(true);
    expect(inSpan(at(101), 0, 100)).toBe(false);
    // No range check, and nothing in a span that is backward, empty or negative.
    expect(inSpan(at(50), 100, 0)).toBe(false);
    expect(inSpan(at(50, 60), 50, 50)).toBe(false);
    expect(inSpan(at(50, 60), -1, 100)).toBe(false);
  });
});
