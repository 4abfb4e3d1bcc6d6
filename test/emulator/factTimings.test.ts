/**
 * The service's own figures of time (docs/service-contract.md §1, §5), as an emulator started without
 * options answers them: every other test shortens them, so these pin the defaults themselves. The hold and
 * the request cap run on timers, which are faked here (and still move with real time, so waits work).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { type ApiResponse, call, codeOf, ids, sleep, until } from "./helpers";

let emu: RunningEmulator | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await emu?.stop();
  emu = undefined;
});

const indexOf = (body: unknown) => (body as { watch: { index: string } }).watch.index;

/** Whether `answer` settles within `ms` (a few real milliseconds by default). */
async function settled(answer: Promise<ApiResponse>, ms = 150): Promise<boolean> {
  return Promise.race([answer.then(() => true), sleep(ms).then(() => false)]);
}

describe("the service's figures of time, by default", () => {
  it("holds a watch 40 s at most, then answers 200 with a fresh index", async () => {
    emu = await startEmulator({ placementDelayMs: 20 });
    const running = emu;
    const path = `/cloud/games/${ids(running).gameId}`;
    const index = indexOf((await call(running, "GET", path)).body);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"], shouldAdvanceTime: true });
    const watch = call(running, "GET", `${path}?watch_index=${index}`);
    await until(() => (running.watcherCount() === 1 ? true : undefined));
    await vi.advanceTimersByTimeAsync(39_000);
    expect(await settled(watch)).toBe(false);
    await vi.advanceTimersByTimeAsync(1_500);
    const res = await watch;
    expect(res.status).toBe(200);
    expect(Number(indexOf(res.body))).toBeGreaterThan(Number(index));
  });

  it("answers at once an index more than 300 s old, and holds one younger", async () => {
    let clock = Date.UTC(2024, 7, 16, 12, 0, 0);
    const startedAt = clock;
    // Only the index age is the default here: a hold that never ends tells "at once" from "held".
    emu = await startEmulator({ placementDelayMs: 20, watchHoldMs: 600_000, now: () => clock });
    const path = `/cloud/games/${ids(emu).gameId}`;
    clock = startedAt + 1_000_000;
    // watch.index is a time plus one: these name the times 300 001 ms and 299 000 ms ago.
    const old = call(emu, "GET", `${path}?watch_index=${clock - 300_001 + 1}`);
    expect(await settled(old, 5_000)).toBe(true);
    const answer = await old;
    expect([answer.status, Number(indexOf(answer.body))]).toEqual([200, clock + 1]);
    const controller = new AbortController();
    const young = call(emu, "GET", `${path}?watch_index=${clock - 299_000 + 1}`, {
      signal: controller.signal,
    });
    young.catch(() => undefined);
    expect(await settled(young, 500)).toBe(false);
    expect(emu.watcherCount()).toBe(1);
    controller.abort();
  });

  it("ends a request still running after 50 s with 500 API_REQUEST_TIMEOUT", async () => {
    emu = await startEmulator({ placementDelayMs: 20 });
    emu.faults.inject({ kind: "hang" });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"], shouldAdvanceTime: true });
    const hung = call(emu, "GET", "/cloud/bootstrap");
    const running = emu;
    await until(() => (running.requests.length > 0 || running.connectionCount() > 0 ? true : undefined));
    await vi.advanceTimersByTimeAsync(49_000);
    expect(await settled(hung)).toBe(false);
    await vi.advanceTimersByTimeAsync(1_500);
    const res = await hung;
    expect([res.status, codeOf(res)]).toEqual([500, "API_REQUEST_TIMEOUT"]);
  });
});
