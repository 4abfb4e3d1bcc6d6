import { afterEach, describe, expect, it, vi } from "vitest";
import { GamehostRetryAfterError } from "../../src/api/errors";
import { MAX_TIMER_MS, readRetryAfter, retryAfterWait, sleep, waitLimitMs } from "../../src/api/wait";

const NOW = Date.UTC(2026, 10, 24, 10, 0, 0);
const WHAT = "POST /games/{game_id}/environments/{environment_id}/servers";
const Y2100 = "Fri, 01 Jan 2100 00:00:00 GMT";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("readRetryAfter", () => {
  it("reads seconds and HTTP dates of any size", () => {
    expect(readRetryAfter("3", NOW)).toBe(NOW + 3_000);
    expect(readRetryAfter(Y2100, NOW)).toBe(Date.UTC(2100, 0, 1));
    expect(readRetryAfter("Mon, 01 Jan 99999 00:00:00 GMT", NOW)).toBe(
      Date.parse("Mon, 01 Jan 99999 00:00:00 GMT"),
    );
  });

  it("calls a refusal no date can hold 'beyond'", () => {
    expect(readRetryAfter("9".repeat(400), NOW)).toBe("beyond");
    expect(readRetryAfter("99999999999999999999", NOW)).toBe("beyond");
    expect(readRetryAfter("Fri, 01 Jan 300000 00:00:00 GMT", NOW)).toBe("beyond");
  });

  it("ignores what it cannot read", () => {
    for (const raw of [undefined, "", "  ", "-5", "soon", "1e3"])
      expect(readRetryAfter(raw, NOW)).toBeUndefined();
  });
});

describe("retryAfterWait", () => {
  it("returns the wait when it fits the deadline", () => {
    expect(retryAfterWait({ what: WHAT, retryAfter: "3", deadline: NOW + 10_000, now: NOW })).toEqual({
      waitMs: 3_000,
    });
    expect(retryAfterWait({ what: WHAT, retryAfter: "Thu, 01 Jan 1970 00:00:00 GMT", now: NOW })).toEqual({
      waitMs: 0,
    });
  });

  it("prefers the instant already known (the service's metadata) and falls back when none is named", () => {
    expect(retryAfterWait({ what: WHAT, retryAt: NOW + 1_234, retryAfter: "50", now: NOW }).waitMs).toBe(
      1_234,
    );
    expect(retryAfterWait({ what: WHAT, fallbackMs: 250, now: NOW }).waitMs).toBe(250);
  });

  it("fails at once on a date in 2100, saying until when and how to proceed", () => {
    const { waitMs, error } = retryAfterWait({
      what: WHAT,
      retryAfter: Y2100,
      deadline: NOW + 600_000,
      raise: "the customTimeouts of the resource",
      now: NOW,
    });
    expect(waitMs).toBeUndefined();
    expect(error).toBeInstanceOf(GamehostRetryAfterError);
    expect(error?.until).toBe(Date.UTC(2100, 0, 1));
    expect(error?.message).toBe(
      `The service refuses ${WHAT} until 2100-01-01T00:00:00.000Z, past this operation's deadline (2026-11-24T10:10:00.000Z): run it again after that time, or raise the customTimeouts of the resource.`,
    );
  });

  it("bounds a wait without a deadline (the dynamic face): an hour is refused", () => {
    const { error } = retryAfterWait({ what: WHAT, retryAfter: "3600", now: NOW });
    expect(error?.message).toMatch(/until 2026-11-24T11:00:00\.000Z, longer than the longest wait of 60s/);
  });

  it("never returns a wait a timer cannot hold, whatever the caller's cap", () => {
    const { waitMs, error } = retryAfterWait({ what: WHAT, retryAfter: Y2100, maxWaitMs: 1e15, now: NOW });
    expect(waitMs).toBeUndefined();
    expect(error?.message).toMatch(/longer than the longest wait of 2147484s/);
    expect(retryAfterWait({ what: WHAT, retryAfter: "86400", maxWaitMs: 1e15, now: NOW }).waitMs).toBe(
      86_400_000,
    );
    expect(waitLimitMs({ maxWaitMs: 1e15, now: NOW })).toBe(MAX_TIMER_MS);
  });

  it("fails on absurd values, naming the value", () => {
    for (const raw of ["9".repeat(400), "Fri, 01 Jan 300000 00:00:00 GMT"]) {
      const { error } = retryAfterWait({ what: WHAT, retryAfter: raw, deadline: NOW + 1_000, now: NOW });
      expect(error?.until).toBeUndefined();
      expect(error?.message).toContain(
        `for longer than any date can say (Retry-After ${JSON.stringify(raw)})`,
      );
    }
    // An absurd instant from metadata is held at the largest date rather than breaking toISOString.
    expect(retryAfterWait({ what: WHAT, retryAt: 1e30, now: NOW }).error?.message).toContain(
      "until +275760-09-13T00:00:00.000Z",
    );
  });

  it("fails when the deadline has already passed", () => {
    const { error } = retryAfterWait({ what: WHAT, retryAfter: "1", deadline: NOW - 5, now: NOW });
    expect(error).toBeInstanceOf(GamehostRetryAfterError);
  });
});

describe("sleep", () => {
  it("clamps its timer to what setTimeout can hold", async () => {
    // A real timer, cleared by the abort: a spy over fake timers, restored after them, would leave the fake
    // setTimeout in place for every later file of the worker (test/support/timersRestored.ts).
    const spy = vi.spyOn(globalThis, "setTimeout");
    const controller = new AbortController();
    const pending = sleep(1e13, controller.signal);
    expect(spy.mock.calls[0]?.[1]).toBe(MAX_TIMER_MS);
    controller.abort(new Error("done"));
    await expect(pending).rejects.toThrow("done");
  });

  it("rejects with the abort reason at once", async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(sleep(1, AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});
