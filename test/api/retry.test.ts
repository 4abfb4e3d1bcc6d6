import { afterEach, describe, expect, it, vi } from "vitest";
import {
  backoffDelay,
  createRetryCallback,
  mayHaveCommitted,
  parseRetryAfter,
  type RetryNotice,
  type RetryState,
  resolveRetryPolicy,
} from "../../src/api/retry";

const NOW = Date.UTC(2024, 7, 16, 5, 35, 1);

afterEach(() => {
  vi.useRealTimers();
});

describe("parseRetryAfter", () => {
  it("reads an HTTP date (what the service sends)", () => {
    expect(parseRetryAfter("Fri, 16 Aug 2024 05:35:04 GMT", NOW)).toBe(NOW + 3_000);
  });

  it("reads delta seconds", () => {
    expect(parseRetryAfter("2", NOW)).toBe(NOW + 2_000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(NOW);
  });

  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter("", NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter("-5", NOW)).toBeUndefined();
  });

  it("takes the first of repeated headers", () => {
    expect(parseRetryAfter(["1", "9"], NOW)).toBe(NOW + 1_000);
  });
});

describe("backoffDelay", () => {
  const policy = resolveRetryPolicy({ minDelayMs: 100, maxDelayMs: 1_000 });

  it("doubles from minDelayMs, with half of each wait random", () => {
    expect([1, 2, 3].map((n) => backoffDelay(policy, n, () => 0))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((n) => backoffDelay(policy, n, () => 0.999999))).toEqual([100, 200, 400]);
  });

  it("never exceeds maxDelayMs", () => {
    expect(backoffDelay(policy, 30, () => 0.999999)).toBe(1_000);
  });
});

describe("resolveRetryPolicy", () => {
  it("fills defaults and lets the policy's maxRetries win over the config one", () => {
    expect(resolveRetryPolicy()).toEqual({
      maxRetries: 4,
      minDelayMs: 200,
      maxDelayMs: 10_000,
      maxTotalDelayMs: 60_000,
    });
    expect(resolveRetryPolicy({}, 7).maxRetries).toBe(7);
    expect(resolveRetryPolicy({ maxRetries: 1 }, 7).maxRetries).toBe(1);
  });
});

describe("mayHaveCommitted", () => {
  it.each([
    ["ECONNREFUSED", false],
    ["ENOTFOUND", false],
    ["UND_ERR_CONNECT_TIMEOUT", false],
    ["ECONNRESET", true],
    ["UND_ERR_SOCKET", true],
    ["UND_ERR_HEADERS_TIMEOUT", true],
    ["UND_ERR_BODY_TIMEOUT", true],
  ])("%s → %s", (code, expected) => {
    expect(mayHaveCommitted(Object.assign(new Error("x"), { code }))).toBe(expected);
  });

  it("assumes the worst for an error without a code", () => {
    expect(mayHaveCommitted(new Error("unknown"))).toBe(true);
  });
});

/** Runs the decision function once; resolves with whether it retried (and the error it gave up with). */
function decide(
  callback: ReturnType<typeof createRetryCallback>,
  err: Error,
): Promise<{ retried: boolean; err?: Error | null | undefined }> {
  return new Promise((resolve) => {
    callback(err, { state: { counter: 1 }, opts: { path: "/", method: "GET" } }, (result) =>
      resolve(result ? { retried: false, err: result } : { retried: true }),
    );
  });
}

/**
 * The callback's decision if it made it synchronously (giving up, which needs no timer), else
 * `undefined`: "gives up at once" asserted as an order of events, not a wall-clock bound.
 */
function decideNow(
  callback: ReturnType<typeof createRetryCallback>,
  err: Error,
): { retried: boolean; err?: Error | null | undefined } | undefined {
  let outcome: { retried: boolean; err?: Error | null | undefined } | undefined;
  callback(err, { state: { counter: 1 }, opts: { path: "/", method: "GET" } }, (result) => {
    outcome = result ? { retried: false, err: result } : { retried: true };
  });
  return outcome;
}

function statusError(statusCode: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error("Request failed"), { code: "UND_ERR_REQ_RETRY", statusCode, headers });
}

function fresh(): RetryState {
  return { retries: 0, totalDelayMs: 0, mayHaveCommitted: false, responded: false };
}

describe("createRetryCallback", () => {
  const policy = resolveRetryPolicy({ maxRetries: 3, minDelayMs: 4, maxDelayMs: 8, maxTotalDelayMs: 1_000 });

  it("retries GET and DELETE on 429 and 5xx gateway errors, nothing else", async () => {
    for (const status of [429, 500, 502, 503, 504]) {
      const cb = createRetryCallback({ method: "GET", policy, state: fresh() });
      expect((await decide(cb, statusError(status))).retried).toBe(true);
    }
    for (const status of [400, 401, 403, 404, 409, 501]) {
      const cb = createRetryCallback({ method: "GET", policy, state: fresh() });
      expect((await decide(cb, statusError(status))).retried).toBe(false);
    }
    const del = createRetryCallback({ method: "DELETE", policy, state: fresh() });
    expect((await decide(del, statusError(503))).retried).toBe(true);
  });

  it("never retries POST, but remembers that a lost POST may have committed", async () => {
    const state = fresh();
    const cb = createRetryCallback({ method: "POST", policy, state });
    const reset = Object.assign(new Error("reset"), { code: "ECONNRESET" });
    const outcome = await decide(cb, reset);
    expect(outcome).toEqual({ retried: false, err: reset });
    expect(state.mayHaveCommitted).toBe(true);
    expect((await decide(cb, statusError(503))).retried).toBe(false);
  });

  it("retries connection errors and timeouts, not other errors", async () => {
    for (const code of ["ECONNRESET", "ECONNREFUSED", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT"]) {
      const cb = createRetryCallback({ method: "GET", policy, state: fresh() });
      expect((await decide(cb, Object.assign(new Error(code), { code }))).retried).toBe(true);
    }
    for (const err of [
      new Error("no code"),
      Object.assign(new Error("x"), { code: "UND_ERR_INVALID_ARG" }),
    ]) {
      const cb = createRetryCallback({ method: "GET", policy, state: fresh() });
      expect((await decide(cb, err)).retried).toBe(false);
    }
  });

  it("stops after maxRetries and counts each retry once", async () => {
    const state = fresh();
    const notices: RetryNotice[] = [];
    const cb = createRetryCallback({
      method: "GET",
      policy,
      state,
      random: () => 0,
      onRetry: (n) => notices.push(n),
    });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push((await decide(cb, statusError(500))).retried);
    expect(outcomes).toEqual([true, true, true, false, false]);
    expect(state.retries).toBe(3);
    expect(notices).toEqual([
      { attempt: 2, maxAttempts: 4, delayMs: 2, status: 500 },
      { attempt: 3, maxAttempts: 4, delayMs: 4, status: 500 },
      { attempt: 4, maxAttempts: 4, delayMs: 4, status: 500 },
    ]);
  });

  it("stops when the next wait would pass maxTotalDelayMs", async () => {
    const state = fresh();
    const capped = resolveRetryPolicy({
      maxRetries: 50,
      minDelayMs: 20,
      maxDelayMs: 20,
      maxTotalDelayMs: 50,
    });
    const cb = createRetryCallback({ method: "GET", policy: capped, state, random: () => 0.999999 });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await decide(cb, statusError(503))).retried);
    // Each wait is 20 ms: 20 + 20 fits in 50, a third would make 60.
    expect(outcomes).toEqual([true, true, false, false]);
    expect(state.totalDelayMs).toBe(40);
  });

  it("waits for Retry-After rather than the backoff", async () => {
    const state = fresh();
    const notices: RetryNotice[] = [];
    const cb = createRetryCallback({
      method: "GET",
      policy,
      state,
      random: () => 0,
      onRetry: (n) => notices.push(n),
    });
    // On a fake clock (timers and Date): the retry fires when the 200 ms named run out, not a tick before.
    vi.useFakeTimers();
    let outcome: { retried: boolean } | undefined;
    void decide(cb, statusError(429, { "retry-after": "0.2" })).then((o) => {
      outcome = o;
    });
    expect(notices.map((n) => n.delayMs)).toEqual([200]);
    await vi.advanceTimersByTimeAsync(199);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toEqual({ retried: true });
  });

  it("gives up at once on a Retry-After longer than the remaining budget", async () => {
    const state = fresh();
    const cb = createRetryCallback({ method: "GET", policy, state });
    expect(decideNow(cb, statusError(429, { "retry-after": "30" }))?.retried).toBe(false);
    expect(state.retries).toBe(0);
  });

  it("does not retry once a response was handed to the caller", async () => {
    const state = { ...fresh(), responded: true };
    const cb = createRetryCallback({ method: "GET", policy, state });
    expect((await decide(cb, Object.assign(new Error("x"), { code: "ECONNRESET" }))).retried).toBe(false);
  });

  it("hands over the abort reason when aborted while waiting after a connection error", async () => {
    const controller = new AbortController();
    const slow = resolveRetryPolicy({ minDelayMs: 10_000, maxDelayMs: 10_000 });
    const cb = createRetryCallback({
      method: "GET",
      policy: slow,
      state: fresh(),
      signal: controller.signal,
    });
    const pending = decide(cb, Object.assign(new Error("refused"), { code: "ECONNREFUSED" }));
    const reason = new Error("stop");
    setTimeout(() => controller.abort(reason), 10);
    expect(await pending).toEqual({ retried: false, err: reason });
  });
});

describe("createRetryCallback: bounded waits", () => {
  it("never sleeps past a timer's range: a Retry-After in 2100 ends the retries even with a huge budget", async () => {
    const state = fresh();
    const huge = resolveRetryPolicy({ maxTotalDelayMs: 1e13 });
    const cb = createRetryCallback({ method: "GET", policy: huge, state });
    const outcome = decideNow(cb, statusError(429, { "retry-after": "Fri, 01 Jan 2100 00:00:00 GMT" }));
    expect(outcome?.retried).toBe(false);
    expect(state.retries).toBe(0);
  });

  it("gives up at once on a Retry-After past any date", async () => {
    const state = fresh();
    const cb = createRetryCallback({ method: "GET", policy: resolveRetryPolicy({}), state });
    const outcome = await decide(cb, statusError(503, { "retry-after": "9".repeat(30) }));
    expect(outcome.retried).toBe(false);
  });

  it("does not start a wait that would pass the call's deadline", async () => {
    const state = fresh();
    const cb = createRetryCallback({
      method: "GET",
      policy: resolveRetryPolicy({ minDelayMs: 400, maxDelayMs: 400 }),
      state,
      deadline: Date.now() + 100,
      random: () => 0.5,
    });
    expect((await decide(cb, statusError(503))).retried).toBe(false);
    expect((await decide(cb, statusError(503, { "retry-after": "1" }))).retried).toBe(false);
    expect(state.retries).toBe(0);
  });
});
