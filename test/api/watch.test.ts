import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient, WATCH_HOLD_MS } from "../../src/api/client";
import { GamehostApiError } from "../../src/api/errors";
import { closeSharedDispatchers, DEFAULT_TIMEOUTS } from "../../src/api/transport";
import { watchVersions } from "../../src/api/watch";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { until } from "../support/until";

interface Version {
  value: number;
  watch: { index: string };
}

/** A fake endpoint answering from a script; records the index of each call. */
function scripted(answers: Version[]) {
  const indexes: Array<string | undefined> = [];
  const fetch = async (watchIndex: string | undefined): Promise<Version> => {
    indexes.push(watchIndex);
    const next = answers.shift();
    if (!next) throw new Error("script exhausted");
    return next;
  };
  return { fetch, indexes };
}

/** The loop's pacing off: these scripts answer at once on purpose. */
const UNPACED = { minIntervalMs: 0 };

async function take<T>(iterator: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe("watchVersions", () => {
  it("yields the first answer and then only new versions, passing the last index", async () => {
    const { fetch, indexes } = scripted([
      { value: 1, watch: { index: "10" } },
      { value: 1, watch: { index: "10" } }, // hold ended, same index
      { value: 1, watch: { index: "20" } }, // hold ended, fresh index, same data
      { value: 2, watch: { index: "30" } }, // a change
      { value: 3, watch: { index: "40" } },
    ]);
    const seen = await take(watchVersions(fetch, undefined, UNPACED), 3);
    expect(seen.map((v) => v.value)).toEqual([1, 2, 3]);
    expect(indexes).toEqual([undefined, "10", "10", "20", "30"]);
  });

  it("propagates an error of the endpoint", async () => {
    const { fetch } = scripted([{ value: 1, watch: { index: "1" } }]);
    const iterator = watchVersions(fetch, undefined, UNPACED);
    await iterator.next();
    await expect(iterator.next()).rejects.toThrow("script exhausted");
  });

  it("ends without error when aborted during a call", async () => {
    const controller = new AbortController();
    const fetch = (_index: string | undefined, signal?: AbortSignal) =>
      new Promise<Version>((_resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason));
      });
    const iterator = watchVersions(fetch, controller.signal);
    const pending = iterator.next();
    controller.abort();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
  });

  it("does not call at all when already aborted", async () => {
    const { fetch, indexes } = scripted([]);
    const iterator = watchVersions(fetch, AbortSignal.abort());
    await expect(iterator.next()).resolves.toMatchObject({ done: true });
    expect(indexes).toEqual([]);
  });
});

describe("watchVersions pacing", () => {
  /** A clock that moves only when the loop sleeps, or when a fetch says its hold lasted. */
  function fakeClock() {
    let t = 0;
    const sleeps: number[] = [];
    return {
      sleeps,
      advance: (ms: number) => {
        t += ms;
      },
      now: () => t,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        t += ms;
      },
    };
  }

  /** Answers at once from `answer(n)`, and aborts the loop after `calls` calls. */
  function instant(calls: number, answer: (n: number) => Version) {
    const controller = new AbortController();
    let n = 0;
    const fetch = async (): Promise<Version> => {
      if (++n >= calls) controller.abort();
      return answer(n);
    };
    return { fetch, signal: controller.signal, count: () => n };
  }

  async function drain<T>(iterator: AsyncIterator<T>): Promise<void> {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      // Versions are not the point here.
    }
  }

  it("backs off, doubling up to the cap, while answers come at once with a new index and the same data", async () => {
    const clock = fakeClock();
    const { fetch, signal } = instant(9, (n) => ({ value: 1, watch: { index: String(n) } }));
    await drain(watchVersions(fetch, signal, { minIntervalMs: 100, maxBackoffMs: 1_000, ...clock }));
    expect(clock.sleeps).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000, 1_000]);
  });

  it("keeps the floor between calls when every answer claims a change", async () => {
    const clock = fakeClock();
    const { fetch, signal } = instant(5, (n) => ({ value: n, watch: { index: String(n) } }));
    await drain(watchVersions(fetch, signal, { minIntervalMs: 100, ...clock }));
    expect(clock.sleeps).toEqual([100, 100, 100, 100]);
  });

  it("does not wait after a hold that lasted, and starts the backoff over", async () => {
    const clock = fakeClock();
    // Calls 3 and 4 are held as the service holds (longer than the floor); the others answer at once.
    const { fetch, signal } = instant(6, (n) => {
      if (n === 3 || n === 4) clock.advance(5_000);
      return { value: 1, watch: { index: String(n) } };
    });
    await drain(watchVersions(fetch, signal, { minIntervalMs: 100, ...clock }));
    expect(clock.sleeps).toEqual([100, 200, 200]);
  });

  it("ends without error when aborted while backing off", async () => {
    const controller = new AbortController();
    const fetch = async (): Promise<Version> => ({ value: 1, watch: { index: "1" } });
    const iterator = watchVersions(fetch, controller.signal, { minIntervalMs: 60_000 });
    await iterator.next();
    const pending = iterator.next();
    controller.abort();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
  });

  it("watchGames against a service that answers at once waits out a doubling gap between calls", async () => {
    // Each answer is at once, with a fresh index and the same data: no change, so the gap between the starts
    // of two calls doubles from the floor: the 3rd call starts at least 250 + 500 ms after the loop does.
    // Timed by the calls themselves (timers fire late, never early), not by a window of the machine's clock,
    // which a loaded machine stretches; unpaced, the calls came back to back. The floor is
    // far above a loaded machine's local round trip: an answer slower than the floor counts as the service's
    // hold and starts the backoff over (with a 20-ms floor this failed under load, 516 ms against 619); the
    // doubling itself, to the cap, is the fake-clock tests' above.
    const CALLS = 3;
    const FLOOR_MS = 250;
    const arrivals: number[] = [];
    const controller = new AbortController();
    const server = createServer((_req, res) => {
      arrivals.push(performance.now());
      if (arrivals.length >= CALLS) controller.abort();
      const body = JSON.stringify({ games: [], groups: [], watch: { index: String(arrivals.length) } });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const c = new GamehostClient({ baseUrl: `http://127.0.0.1:${port}`, token: "t" });
      const loopStart = performance.now();
      await drain(c.watchGames({ signal: controller.signal, minIntervalMs: FLOOR_MS }));
      expect(arrivals).toHaveLength(CALLS);
      // From the loop's start only: a call reaches the server some time after it starts, by an amount that
      // differs per call, so two arrivals can be closer than their starts. Without the doubling (a floor
      // each time) the 3rd would come after 500 ms. 1 ms for timer rounding.
      expect((arrivals[CALLS - 1] as number) - loopStart).toBeGreaterThanOrEqual(FLOOR_MS + 2 * FLOOR_MS - 1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("watch against the emulator", () => {
  const HOLD_MS = 250;
  let emu: RunningEmulator;
  let game: string;
  let group: string;

  beforeAll(async () => {
    emu = await startEmulator({ watchHoldMs: HOLD_MS });
    game = emu.fixture.games[0]!.id;
    group = emu.fixture.games[0]!.developerGroupId;
  });
  afterAll(async () => {
    await emu.stop();
    await closeSharedDispatchers();
  });

  const client = (token = emu.tokens.user) => new GamehostClient({ baseUrl: emu.url, token });
  // The emulator's hold is shortened 160-fold (40 s → 250 ms); the watch's floor (1 s) is with it.
  const PACING = { minIntervalMs: 6 };

  // An emulator of its own whose hold outlasts the test (its timeout is a hang guard): a change yielded at all
  // came with the answer the update woke, not with a hold's end.
  it("wakes up on a game update, not at the hold's end", { timeout: 30_000 }, async () => {
    const endless = await startEmulator({ watchHoldMs: 600_000 });
    try {
      const controller = new AbortController();
      const iterator = new GamehostClient({ baseUrl: endless.url, token: endless.tokens.user }).watchGame(
        game,
        {
          signal: controller.signal,
          ...PACING,
        },
      );
      const first = await iterator.next();
      const versions = first.done ? 0 : first.value.game.versions.length;
      const next = iterator.next();
      await until(() => endless.watcherCount() === 1, "the watch to be held");
      const versionId = endless.mutate.publishVersion(game, { displayName: "v-next" });
      expect(endless.watcherCount()).toBe(0);
      const second = await next;
      expect(second.done ? [] : second.value.game.versions.map((v) => v.version_id)).toHaveLength(
        versions + 1,
      );
      expect(second.done ? undefined : second.value.game.versions.at(-1)?.version_id).toBe(versionId);
      controller.abort();
      await expect(iterator.next()).resolves.toMatchObject({ done: true });
    } finally {
      await endless.stop();
    }
  });

  it("waits out the service's hold on a watch call, whatever an ordinary request may wait (docs/service-contract.md §5)", async () => {
    // The service holds up to 40 s and ends any request at 50 s: by default a watch call waits longer than both,
    // and the client's own reckoning of the hold is the service's.
    expect(DEFAULT_TIMEOUTS.watchHeadersMs).toBeGreaterThan(50_000);
    expect(WATCH_HOLD_MS).toBe(40_000);
    // A held answer comes later than an ordinary request may wait for its headers (undici checks that wait to
    // about a second, so the hold is longer than that); it is still the answer.
    const holding = await startEmulator({ watchHoldMs: 2_500 });
    try {
      const c = new GamehostClient({
        baseUrl: holding.url,
        token: holding.tokens.user,
        requestTimeoutMs: 100,
        maxRetries: 0,
      });
      const index = (await c.getGame(game)).watch.index;
      const started = Date.now();
      const held = await c.getGame(game, { watchIndex: index });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_400);
      expect(Number(held.watch.index)).toBeGreaterThan(Number(index));
    } finally {
      await holding.stop();
    }
  });

  it("yields a change that wakes no watch (a player count) when the hold times out", async () => {
    const controller = new AbortController();
    const iterator = client().watchGame(game, { signal: controller.signal, ...PACING });
    const first = await iterator.next();
    const count = first.done ? 0 : first.value.game.total_player_count;
    const next = iterator.next();
    await until(() => emu.watcherCount() === 1, "the watch to be held");
    emu.mutate.setTotalPlayerCount(game, count + 7);
    // Not woken: the watch is still held, and the change comes with the hold's end.
    expect(emu.watcherCount()).toBe(1);
    const second = await next;
    expect(second.done ? undefined : second.value.game.total_player_count).toBe(count + 7);
    controller.abort();
  });

  it("does not yield when holds time out unchanged, then yields the change", async () => {
    const controller = new AbortController();
    const iterator = client().watchGroupBilling(group, { signal: controller.signal, ...PACING });
    await iterator.next();
    emu.resetRequests();
    const next = iterator.next();
    let settled = false;
    void next.then(() => {
      settled = true;
    });
    // Let three holds expire: each answers 200 with the same data, which must not be yielded.
    await new Promise((r) => setTimeout(r, HOLD_MS * 3 + 50));
    expect(settled).toBe(false);
    const holds = emu.requests.filter((r) => r.path === `/cloud/groups/${group}/billing` && r.status === 200);
    expect(holds.length).toBeGreaterThanOrEqual(2);

    // A billing change wakes no watch: the next hold to end brings it.
    await until(() => emu.watcherCount() === 1, "the watch to be held");
    emu.mutate.setBilling(group, { payment_failed_ts: "2024-09-01T00:00:00.000Z" });
    expect(emu.watcherCount()).toBe(1);
    const changed = await next;
    expect(changed.done ? undefined : changed.value.group.payment_failed_ts).toBe("2024-09-01T00:00:00.000Z");
    controller.abort();
  });

  it("stops cleanly when aborted during a hold and frees the held request", async () => {
    const controller = new AbortController();
    const iterator = client().watchGames({ signal: controller.signal, ...PACING });
    await iterator.next();
    const next = iterator.next();
    await until(() => emu.watcherCount() === 1, "the watch to be held");
    controller.abort();
    await expect(next).resolves.toEqual({ done: true, value: undefined });
    await until(() => emu.watcherCount() === 0, "the watch to end");
  });

  it("propagates a refusal", async () => {
    const iterator = client(emu.tokens.otherUser).watchGame(game, PACING);
    await expect(iterator.next()).rejects.toBeInstanceOf(GamehostApiError);
  });

  it("propagates a refusal that comes on the first held call (cloud token watching /cloud/games)", async () => {
    const iterator = client(emu.tokens.cloud[game]).watchGames(PACING);
    await expect(iterator.next()).resolves.toMatchObject({ done: false });
    await expect(iterator.next()).rejects.toMatchObject({ status: 403, code: "API_FORBIDDEN" });
  });
});
