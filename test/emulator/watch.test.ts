import { afterEach, describe, expect, it } from "vitest";
import type { Mutations, RunningEmulator } from "../../src/emulator";
import { call, ids, sleep, start, until } from "./helpers";

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

const indexOf = (body: unknown) => (body as { watch: { index: string } }).watch.index;
type GameAnswer = {
  game: {
    total_player_count: number;
    display_name: string;
    logo_url?: string;
    banner_url?: string;
    namespaces: { namespace_id: string; name_id: string; version_id: string }[];
    versions: { version_id: string; display_name: string }[];
  };
};
const gameOf = (body: unknown) => (body as GameAnswer).game;

/**
 * A hold longer than any test here may run (their timeout, a hang guard): an answer that comes at all was
 * woken, or answered unheld, with no guess at how fast a loaded machine is. The tests keep the suite's 120-s
 * timeout (a 30-s one was exceeded by the 1,000 watchers beside two full suites).
 */
const ENDLESS_HOLD_MS = 600_000;

/** Waits until exactly `n` watches are held. */
const held = (running: RunningEmulator, n: number) =>
  until(() => (running.watcherCount() === n ? true : undefined));

/** Each game update of docs/service-contract.md §5, and what it shows in the game. */
const GAME_UPDATES: Array<
  [string, (m: Mutations, e: RunningEmulator) => void, (g: GameAnswer["game"]) => boolean]
> = [
  [
    "an environment created",
    (m, e) => {
      m.createEnvironment(ids(e).gameId, {
        id: "e1000000-0000-4000-8000-0000000000ee",
        nameId: "qa",
        displayName: "QA",
        versionId: ids(e).prod.versionId,
      });
    },
    (g) =>
      g.namespaces.some(
        (n) => n.namespace_id === "e1000000-0000-4000-8000-0000000000ee" && n.name_id === "qa",
      ),
  ],
  [
    "a version published",
    (m, e) => {
      m.publishVersion(ids(e).gameId, { id: "f1000000-0000-4000-8000-0000000000ff", displayName: "v9" });
    },
    (g) => g.versions.at(-1)?.version_id === "f1000000-0000-4000-8000-0000000000ff",
  ],
  [
    "a logo uploaded",
    (m, e) => m.setGameLogo(ids(e).gameId, "https://cdn.example.game/new-logo.png"),
    (g) => g.logo_url === "https://cdn.example.game/new-logo.png",
  ],
  [
    "a banner uploaded",
    (m, e) => m.setGameBanner(ids(e).gameId, "https://cdn.example.game/new-banner.png"),
    (g) => g.banner_url === "https://cdn.example.game/new-banner.png",
  ],
  [
    "an environment's version set",
    (m, e) => {
      const { game, staging } = ids(e);
      const other = game.versions.find((v) => v.id !== staging.versionId)?.id as string;
      m.setEnvironmentVersion(game.id, staging.id, other);
    },
    (g) => {
      const staging = g.namespaces.find((n) => n.name_id === "staging");
      return staging !== undefined && g.versions.some((v) => v.version_id === staging.version_id);
    },
  ],
];

/** Changes that are no game update: each shows in the game, the games list or the billing record. */
const QUIET_CHANGES: Array<[string, (m: Mutations, e: RunningEmulator) => void]> = [
  ["a player count", (m, e) => m.setTotalPlayerCount(ids(e).gameId, 4321)],
  ["a display name", (m, e) => m.setGameDisplayName(ids(e).gameId, "Space Race II")],
  ["a group membership", (m, e) => m.addGroupMember(ids(e).mainGroup, otherIdentity(e))],
  ["billing", (m, e) => m.setBilling(ids(e).mainGroup, { payment_failed_ts: "2024-08-20T00:00:00.000Z" })],
];

describe("watch", () => {
  it("answers at once without watch_index, with the answer's time plus one", async () => {
    let clock = Date.UTC(2024, 7, 16, 5, 35, 1, 123);
    emu = await start({ now: () => clock });
    clock += 5_000;
    const res = await call(emu, "GET", `/cloud/games/${ids(emu).gameId}`);
    expect(indexOf(res.body)).toBe(String(clock + 1));
    clock += 7;
    expect(indexOf((await call(emu, "GET", "/cloud/games")).body)).toBe(String(clock + 1));
  });

  it.each(GAME_UPDATES)(
    "wakes a held watch of the game at a game update, not at its hold's end: %s",
    async (_name, update, shows) => {
      emu = await start({ watchHoldMs: ENDLESS_HOLD_MS });
      const running = emu;
      const { gameId } = ids(emu);
      const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
      const watch = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
      await held(running, 1);
      update(running.mutate, running);
      // Woken by the update itself: the watcher is gone before the update returns.
      expect(running.watcherCount()).toBe(0);
      const res = await watch;
      expect(shows(gameOf(res.body))).toBe(true);
      expect(Number(indexOf(res.body))).toBeGreaterThan(Number(index));
    },
  );

  it.each(QUIET_CHANGES)(
    "does not wake a watch for %s: it shows when the hold times out, with a fresh index",
    async (_name, change) => {
      emu = await start({ watchHoldMs: 300 });
      const running = emu;
      const { gameId, mainGroup } = ids(emu);
      const paths = [`/cloud/games/${gameId}`, "/cloud/games", `/cloud/groups/${mainGroup}/billing`];
      const before = await Promise.all(paths.map((p) => call(running, "GET", p)));
      const startedAt = Date.now();
      const watches = before.map((b, i) =>
        call(running, "GET", `${paths[i]}?watch_index=${indexOf(b.body)}`),
      );
      await held(running, paths.length);
      change(running.mutate, running);
      // Nothing woke: every watch is still held.
      expect(running.watcherCount()).toBe(paths.length);
      const answers = await Promise.all(watches);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
      // At the timeout: 200, a fresh index, and the current data, which shows the change.
      const now = await Promise.all(paths.map((p) => call(running, "GET", p)));
      const dataOf = (res: { body: unknown }) => {
        const { watch: _drop, ...data } = res.body as Record<string, unknown>;
        return data;
      };
      answers.forEach((answer, i) => {
        expect(answer.status, paths[i]).toBe(200);
        expect(Number(indexOf(answer.body))).toBeGreaterThan(Number(indexOf(before[i]?.body)));
        expect(dataOf(answer), paths[i]).toEqual(dataOf(now[i] as { body: unknown }));
      });
      // And the change is in it.
      expect(answers.map(dataOf)).not.toEqual(before.map(dataOf));
    },
  );

  it("shows a quiet change at the very next answer: no cached answer outlives it", async () => {
    emu = await start();
    const { gameId } = ids(emu);
    const path = `/cloud/games/${gameId}`;
    expect(gameOf((await call(emu, "GET", path)).body).total_player_count).not.toBe(4321);
    // Read twice, so the answer is cached if it ever is.
    await call(emu, "GET", path);
    await call(emu, "GET", "/cloud/games");
    emu.mutate.setTotalPlayerCount(gameId, 4321);
    expect(gameOf((await call(emu, "GET", path)).body).total_player_count).toBe(4321);
    const list = (await call(emu, "GET", "/cloud/games")).body as {
      games: { game_id: string; total_player_count: number }[];
    };
    expect(list.games.find((g) => g.game_id === gameId)?.total_player_count).toBe(4321);
    emu.mutate.setGameDisplayName(gameId, "Space Race II");
    expect(gameOf((await call(emu, "GET", path)).body).display_name).toBe("Space Race II");
  });

  it("answers at once when a game update came after the given index, and holds after a quiet change", async () => {
    emu = await start({ watchHoldMs: ENDLESS_HOLD_MS });
    const running = emu;
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    emu.mutate.setTotalPlayerCount(gameId, 7);
    // After a quiet change, a watch from the older index is held (the hold's end is the other tests').
    const quiet = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    await held(running, 1);
    expect(running.watcherCount()).toBe(1);

    // A game update wakes it, and a new watch from the same older index is answered at once, unheld.
    emu.mutate.setGameLogo(gameId, "https://cdn.example.game/logo-2.png");
    expect(running.watcherCount()).toBe(0);
    const woken = await quiet;
    const again = await call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    for (const answer of [woken, again]) {
      expect(gameOf(answer.body).total_player_count).toBe(7);
      expect(gameOf(answer.body).logo_url).toBe("https://cdn.example.game/logo-2.png");
      expect(Number(indexOf(answer.body))).toBeGreaterThan(Number(index));
    }
  });

  it("holds until watchHoldMs, then answers 200 with current data and a fresh index", async () => {
    emu = await start({ watchHoldMs: 150 });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    const startedAt = Date.now();
    const res = await call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    const took = Date.now() - startedAt;
    expect(res.status).toBe(200);
    expect(took).toBeGreaterThanOrEqual(140);
    expect(Number(indexOf(res.body))).toBeGreaterThan(Number(index));
  });

  it("answers an index older than the maximum age at once", async () => {
    let clock = Date.now();
    emu = await start({ watchHoldMs: ENDLESS_HOLD_MS, watchMaxIndexAgeMs: 1_000, now: () => clock });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    clock += 1_500;
    const res = await call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    // A fresh index, so the next call holds instead of spinning.
    expect(Number(indexOf(res.body))).toBe(clock + 1);
  });

  it("reads any number as a time, as the service does: a negative or signed index is old, answered at once", async () => {
    // With an endless hold, a request the emulator held would never answer: each of these must come back.
    emu = await start({ watchHoldMs: ENDLESS_HOLD_MS });
    const { gameId } = ids(emu);
    for (const index of ["-1", "-9223372036854775808", "+0", "0"]) {
      const res = await call(emu, "GET", `/cloud/games/${gameId}?watch_index=${encodeURIComponent(index)}`);
      expect([index, res.status]).toEqual([index, 200]);
      expect(Number(indexOf(res.body))).toBeGreaterThan(0);
    }
    // A number no 64-bit integer holds is no number to the service (500 there; 400 here, docs/emulator.md).
    const over = await call(emu, "GET", `/cloud/games/${gameId}?watch_index=9223372036854775808`);
    expect([over.status, (over.body as { code: string }).code]).toEqual([400, "API_BAD_QUERY_PARAMETER"]);
  });

  it("frees the watcher when the client disconnects", async () => {
    emu = await start({ watchHoldMs: ENDLESS_HOLD_MS });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    const controller = new AbortController();
    const watch = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`, {
      signal: controller.signal,
    });
    const running = emu;
    await held(running, 1);
    controller.abort();
    await expect(watch).rejects.toThrow();
    await held(running, 0);
    await sleep(20);
    expect(emu.requests.at(-1)?.status).toBe(0);
  });

  it("wakes only the watches of the game updated", async () => {
    emu = await start({ watchHoldMs: ENDLESS_HOLD_MS });
    const running = emu;
    const { gameId, game } = ids(emu);
    const second = emu.fixture.games.find(
      (g) => g.id !== gameId && g.developerGroupId !== ids(running).otherGame.developerGroupId,
    );
    if (!second) throw new Error("default fixture lost the main user's second game");
    const path = (id: string) => `/cloud/games/${id}`;
    const first = indexOf((await call(emu, "GET", path(game.id))).body);
    const other = indexOf((await call(emu, "GET", path(second.id))).body);
    const mine = call(emu, "GET", `${path(game.id)}?watch_index=${first}`);
    const theirs = call(emu, "GET", `${path(second.id)}?watch_index=${other}`);
    await held(running, 2);
    emu.mutate.setGameBanner(second.id, "https://cdn.example.game/b.png");
    expect(gameOf((await theirs).body).banner_url).toBe("https://cdn.example.game/b.png");
    // The other game's watch is still held; its own game's update wakes it.
    expect(running.watcherCount()).toBe(1);
    emu.mutate.setGameBanner(game.id, "https://cdn.example.game/a.png");
    expect(gameOf((await mine).body).banner_url).toBe("https://cdn.example.game/a.png");
  });

  it("wakes the games list on an update of any game of the identity's groups, not of other groups", async () => {
    emu = await start({ watchHoldMs: ENDLESS_HOLD_MS });
    const running = emu;
    const { userIdentity, otherGame } = ids(emu);
    const mine = emu.fixture.games.filter((g) =>
      emu?.fixture.groups.find((gr) => gr.id === g.developerGroupId)?.members.includes(userIdentity),
    );
    expect(mine.length).toBeGreaterThanOrEqual(2);
    let index = indexOf((await call(emu, "GET", "/cloud/games")).body);
    for (const game of mine) {
      const watch = call(running, "GET", `/cloud/games?watch_index=${index}`);
      await held(running, 1);
      // Another group's game: no wake.
      running.mutate.setGameLogo(otherGame.id, `https://cdn.example.game/${otherGame.id}.png`);
      expect(running.watcherCount()).toBe(1);
      running.mutate.setGameLogo(game.id, `https://cdn.example.game/${game.id}.png`);
      const res = await watch;
      const games = (res.body as { games: { game_id: string; logo_url?: string }[] }).games;
      expect(games.find((g) => g.game_id === game.id)?.logo_url).toBe(
        `https://cdn.example.game/${game.id}.png`,
      );
      index = indexOf(res.body);
    }
  });

  it("ends held watches on stop", async () => {
    const local = await start({ watchHoldMs: ENDLESS_HOLD_MS });
    const { gameId } = ids(local);
    const index = indexOf((await call(local, "GET", `/cloud/games/${gameId}`)).body);
    const watch = call(local, "GET", `/cloud/games/${gameId}?watch_index=${index}`).catch(
      (err: Error) => err,
    );
    await held(local, 1);
    await local.stop();
    // Answered or cut off by the stop: the hold itself would outlast the test.
    await watch;
  });

  it("keeps thousands of concurrent watchers cheap", async () => {
    emu = await start({ watchHoldMs: ENDLESS_HOLD_MS });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    const count = 1_000;
    const watches = Array.from({ length: count }, () =>
      call(emu as RunningEmulator, "GET", `/cloud/games/${gameId}?watch_index=${index}`),
    );
    const running = emu;
    await until(() => (running.watcherCount() === count ? true : undefined));
    emu.mutate.setGameLogo(gameId, "https://cdn.example.game/1000.png");
    const answers = await Promise.all(watches);
    expect(answers.every((a) => gameOf(a.body).logo_url === "https://cdn.example.game/1000.png")).toBe(true);
    // Woken together by one update: they share one answer, index included.
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(emu.watcherCount()).toBe(0);
  });
});

function otherIdentity(e: RunningEmulator): string {
  const token = e.fixture.tokens.find((t) => t.role === "otherUser");
  if (token?.kind !== "user") throw new Error("default fixture lost its other user");
  return token.identityId;
}
