import { afterEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { call, ids, sleep, start, until } from "./helpers";

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

const indexOf = (body: unknown) => (body as { watch: { index: string } }).watch.index;

describe("watch", () => {
  it("answers at once without watch_index, with an index of ms + 1", async () => {
    const before = Date.now();
    emu = await start();
    const res = await call(emu, "GET", `/cloud/games/${ids(emu).gameId}`);
    const index = Number(indexOf(res.body));
    expect(index).toBeGreaterThan(before);
    expect(index).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("wakes a held watch within milliseconds of a change, with the new data and a higher index", async () => {
    emu = await start({ watchHoldMs: 5_000 });
    const { gameId } = ids(emu);
    const first = await call(emu, "GET", `/cloud/games/${gameId}`);
    const index = indexOf(first.body);
    const held = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    const running = emu;
    await until(() => (running.watcherCount() === 1 ? true : undefined));
    const changedAt = Date.now();
    emu.mutate.setTotalPlayerCount(gameId, 4321);
    const res = await held;
    expect(Date.now() - changedAt).toBeLessThan(200);
    expect((res.body as { game: { total_player_count: number } }).game.total_player_count).toBe(4321);
    expect(Number(indexOf(res.body))).toBeGreaterThan(Number(index));
    expect(emu.watcherCount()).toBe(0);
  });

  it("answers at once when the data changed after the given index", async () => {
    emu = await start({ watchHoldMs: 5_000 });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    emu.mutate.setTotalPlayerCount(gameId, 7);
    const startedAt = Date.now();
    const res = await call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    expect(Date.now() - startedAt).toBeLessThan(500);
    expect((res.body as { game: { total_player_count: number } }).game.total_player_count).toBe(7);
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
    expect(took).toBeLessThan(1_000);
    expect(Number(indexOf(res.body))).toBeGreaterThan(Number(index));
  });

  it("answers an index older than the maximum age at once", async () => {
    let clock = Date.now();
    emu = await start({ watchHoldMs: 5_000, watchMaxIndexAgeMs: 1_000, now: () => clock });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    clock += 1_500;
    const startedAt = Date.now();
    const res = await call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    expect(Date.now() - startedAt).toBeLessThan(500);
    // A fresh index, so the next call holds instead of spinning.
    expect(Number(indexOf(res.body))).toBe(clock + 1);
  });

  it("frees the watcher when the client disconnects", async () => {
    emu = await start({ watchHoldMs: 10_000 });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    const controller = new AbortController();
    const held = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`, {
      signal: controller.signal,
    });
    const running = emu;
    await until(() => (running.watcherCount() === 1 ? true : undefined));
    controller.abort();
    await expect(held).rejects.toThrow();
    await until(() => (running.watcherCount() === 0 ? true : undefined));
    await sleep(20);
    expect(emu.requests.at(-1)?.status).toBe(0);
  });

  it("bumps only what a mutation touches", async () => {
    emu = await start({ watchHoldMs: 300 });
    const { gameId, mainGroup } = ids(emu);
    const gameIndex = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    const billingIndex = indexOf((await call(emu, "GET", `/cloud/groups/${mainGroup}/billing`)).body);
    const gameWatch = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${gameIndex}`);
    const billingWatch = call(emu, "GET", `/cloud/groups/${mainGroup}/billing?watch_index=${billingIndex}`);
    const running = emu;
    await until(() => (running.watcherCount() === 2 ? true : undefined));
    const changedAt = Date.now();
    emu.mutate.setBilling(mainGroup, {
      payment_failed_ts: "2024-08-20T00:00:00.000Z",
      payment_succeeded_ts: null,
    });
    const billing = await billingWatch;
    expect(Date.now() - changedAt).toBeLessThan(150);
    expect((billing.body as { group: Record<string, string> }).group).toMatchObject({
      payment_failed_ts: "2024-08-20T00:00:00.000Z",
    });
    expect((billing.body as { group: Record<string, string> }).group).not.toHaveProperty(
      "payment_succeeded_ts",
    );
    expect(emu.watcherCount()).toBe(1);
    const game = await gameWatch;
    expect(Date.now() - changedAt).toBeGreaterThanOrEqual(250);
    expect(game.status).toBe(200);
  });

  it("wakes the games list when a game of the user's groups changes or the user joins a group", async () => {
    emu = await start({ watchHoldMs: 5_000 });
    const { gameId, otherGame, userIdentity } = ids(emu);
    const index = indexOf((await call(emu, "GET", "/cloud/games")).body);
    const held = call(emu, "GET", `/cloud/games?watch_index=${index}`);
    const running = emu;
    await until(() => (running.watcherCount() === 1 ? true : undefined));
    emu.mutate.setGameDisplayName(gameId, "Space Race II");
    const res = await held;
    const games = (res.body as { games: Array<{ game_id: string; display_name: string }> }).games;
    expect(games.find((g) => g.game_id === gameId)?.display_name).toBe("Space Race II");

    const next = call(emu, "GET", `/cloud/games?watch_index=${indexOf(res.body)}`);
    await until(() => (running.watcherCount() === 1 ? true : undefined));
    emu.mutate.addGroupMember(otherGame.developerGroupId, userIdentity);
    const joined = await next;
    const ids2 = (joined.body as { games: Array<{ game_id: string }> }).games.map((g) => g.game_id);
    expect(ids2).toContain(otherGame.id);
  });

  it("ends held watches on stop", async () => {
    const local = await start({ watchHoldMs: 30_000 });
    const { gameId } = ids(local);
    const index = indexOf((await call(local, "GET", `/cloud/games/${gameId}`)).body);
    const held = call(local, "GET", `/cloud/games/${gameId}?watch_index=${index}`).catch((err: Error) => err);
    await until(() => (local.watcherCount() === 1 ? true : undefined));
    const startedAt = Date.now();
    await local.stop();
    await held;
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });

  it("keeps thousands of concurrent watchers cheap", async () => {
    emu = await start({ watchHoldMs: 10_000 });
    const { gameId } = ids(emu);
    const index = indexOf((await call(emu, "GET", `/cloud/games/${gameId}`)).body);
    const count = 1_000;
    const held = Array.from({ length: count }, () =>
      call(emu as RunningEmulator, "GET", `/cloud/games/${gameId}?watch_index=${index}`),
    );
    const running = emu;
    await until(() => (running.watcherCount() === count ? true : undefined), 10_000);
    emu.mutate.setTotalPlayerCount(gameId, 99);
    const answers = await Promise.all(held);
    expect(
      answers.every(
        (a) => (a.body as { game: { total_player_count: number } }).game.total_player_count === 99,
      ),
    ).toBe(true);
    expect(emu.watcherCount()).toBe(0);
  });
});
