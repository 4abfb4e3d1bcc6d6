import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { parseTarget } from "../../src/emulator/exchange";
import { TimeCap } from "../../src/emulator/timeCap";
import { call, ids, sleep, start, until } from "./helpers";

/** What `new URL(raw, base)` makes of a request target: the reference `parseTarget` must match. */
function viaUrl(raw: string): { pathname: string; query: [string, string][] } | undefined {
  try {
    const url = new URL(raw, "http://127.0.0.1");
    return { pathname: url.pathname, query: [...url.searchParams] };
  } catch {
    return undefined;
  }
}

function viaParseTarget(raw: string): { pathname: string; query: [string, string][] } | undefined {
  const target = parseTarget(raw);
  if (!target) return undefined;
  return { pathname: target.pathname, query: [...(target.query ?? new URLSearchParams(target.search))] };
}

// Characters that matter to URL parsing: separators, dot segments, escapes, backslashes, fragments.
const targetChars = fc.constantFrom(..."abcXYZ019-_~./\\?#&=%+ ;:@\"'<>é".split(""));

describe("request targets", () => {
  it("split into exactly the path and query that URL parsing gives", () => {
    fc.assert(
      fc.property(fc.array(targetChars, { maxLength: 24 }), (chars) => {
        const raw = `/${chars.join("")}`;
        expect(viaParseTarget(raw)).toEqual(viaUrl(raw));
      }),
      { numRuns: 5_000 },
    );
    for (const raw of [
      "/cloud/games",
      "/cloud/games?watch_index=12&x=%41+b",
      "//evil.example/cloud/games",
      "/\\evil/cloud",
      "/cloud/./games/../games",
      "/cloud/games#frag",
      "/cloud/%67ames",
      "/?%aaé", // a broken escape before a non-ASCII character: URL encodes it before decoding
    ]) {
      expect(viaParseTarget(raw), raw).toEqual(viaUrl(raw));
    }
  });
});

describe("time cap", () => {
  it("expires requests in order at their deadlines with one timer, skipping the ones that ended", async () => {
    const cap = new TimeCap(100, (err) => {
      throw err;
    });
    const expired: string[] = [];
    const request = (name: string) => ({
      deadline: cap.deadlineFromNow(),
      expire: () => expired.push(name),
    });
    cap.start(request("first"));
    await sleep(60);
    const second = request("second");
    cap.start(second);
    cap.start(request("third"));
    cap.end(second);
    await sleep(60);
    expect(expired).toEqual(["first"]);
    await until(() => (expired.length > 1 ? true : undefined));
    expect(expired).toEqual(["first", "third"]);
    expect(cap.size).toBe(0);
  });

  it("reports a throwing expiry and still expires the rest", async () => {
    const errors: unknown[] = [];
    const cap = new TimeCap(5, (err) => errors.push(err));
    const expired: string[] = [];
    cap.start({
      deadline: cap.deadlineFromNow(),
      expire: () => {
        throw new Error("boom");
      },
    });
    cap.start({ deadline: cap.deadlineFromNow(), expire: () => expired.push("next") });
    await sleep(30);
    expect(errors).toHaveLength(1);
    expect(expired).toEqual(["next"]);
  });
});

describe("shared answers of watchable routes", () => {
  let emu: RunningEmulator | undefined;
  afterEach(() => emu?.stop());

  it("serve the same bytes until a change or the clock moves, then the changed data", async () => {
    let clock = Date.UTC(2024, 7, 16, 12, 0, 0);
    emu = await start({ now: () => clock });
    const running = emu;
    const path = `/cloud/games/${ids(running).gameId}`;
    const first = await call(running, "GET", path);
    const again = await call(running, "GET", path);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("rvt-ray-id")).not.toBe(first.headers.get("rvt-ray-id"));
    // Each answer without watch_index carries its own time: the same data under a new index.
    clock += 1;
    const later = await call(running, "GET", path);
    expect(later.text).toBe(first.text.replace(`"index":"${clock}"`, `"index":"${clock + 1}"`));

    running.mutate.setTotalPlayerCount(ids(running).gameId, 4242);
    const changed = await call(running, "GET", path);
    const body = changed.body as { game: { total_player_count: number }; watch: { index: string } };
    expect(body.game.total_player_count).toBe(4242);
    expect(body.watch.index).toBe(String(clock + 1));

    // The list of games shows it too, and a membership change alters who sees what.
    const list = (await call(running, "GET", "/cloud/games")).body as {
      games: { game_id: string; total_player_count: number }[];
    };
    expect(list.games.find((g) => g.game_id === ids(running).gameId)?.total_player_count).toBe(4242);
    const other = await call(running, "GET", "/cloud/games", { token: running.tokens.otherUser });
    running.mutate.addGroupMember(ids(running).mainGroup, otherIdentity(running));
    const joined = await call(running, "GET", "/cloud/games", { token: running.tokens.otherUser });
    const gamesOf = (r: typeof other) =>
      (r.body as { games: { game_id: string }[] }).games.map((g) => g.game_id);
    expect(gamesOf(other)).not.toContain(ids(running).gameId);
    expect(gamesOf(joined)).toContain(ids(running).gameId);
  });
});

function otherIdentity(emu: RunningEmulator): string {
  const token = emu.fixture.tokens.find((t) => t.role === "otherUser");
  if (token?.kind !== "user") throw new Error("default fixture lost its other user");
  return token.identityId;
}
