/**
 * A data source answered 429: it honours the service's `Retry-After`, says so while it waits, waits at
 * most DATA_SOURCE_MAX_WAIT_MS in all, and past that fails at once naming the endpoint and the instant.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostApiError } from "../../src/api/errors";
import type { RunningEmulator } from "../../src/emulator";
import {
  DATA_SOURCE_MAX_WAIT_MS,
  dataSourceClientOptions,
  dataSourceFailure,
  retryMessage,
} from "../../src/kinds/dataSourceCalls";
import { getGames } from "../../src/kinds/functions";
import { startTestEmulator } from "../support/emulator";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.stop());
afterEach(() => emulator.faults.clear());

/** Runs getGames as a data source does: the data-source client options, failures as the user reads them. */
async function readGames(warnings: string[]) {
  const client = new GamehostClient({
    baseUrl: emulator.url,
    token: emulator.tokens.user,
    ...dataSourceClientOptions((message) => warnings.push(message)),
  });
  try {
    return await getGames.run(client, {});
  } catch (error) {
    throw dataSourceFailure(error);
  }
}

describe("a data source answered 429", () => {
  it("waits for a Retry-After within the bound, saying so while it waits", { timeout: 20_000 }, async () => {
    emulator.faults.inject({ path: "/cloud/games", kind: "rate_limit", retryAfterMs: 1_500 });
    const warnings: string[] = [];
    const started = Date.now();
    const games = await readGames(warnings);
    expect(games.games.length).toBeGreaterThan(0);
    // The HTTP date names a whole second at least 1.5 s away: the wait honours it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^GET \/cloud\/games: rate limited by the service; retrying in [23] s \(attempt 2 of 5\)$/,
    );
  });

  it("fails at once, naming the endpoint and the Retry-After, when the window ends past the bound", {
    timeout: 20_000,
  }, async () => {
    // Longer than the bound but within the client's general 60-s cap: a data source once waited it out.
    const retryAfterMs = DATA_SOURCE_MAX_WAIT_MS + 15_000;
    emulator.faults.inject({ path: "/cloud/games", kind: "rate_limit", retryAfterMs });
    const warnings: string[] = [];
    emulator.resetRequests();
    const error = await readGames(warnings).then(
      () => undefined,
      (e: unknown) => e,
    );
    // "At once": one request and no retry (waiting out the 45 s would pass the test's timeout, a hang guard).
    expect(emulator.requests.filter((r) => r.path === "/cloud/games")).toHaveLength(1);
    expect(error).toBeInstanceOf(GamehostApiError);
    const failure = error as GamehostApiError;
    expect(failure.status).toBe(429);
    const until = new Date(failure.retryAfterMs as number).toISOString();
    expect(failure.message).toMatch(
      new RegExp(
        `^The service rate-limits GET /cloud/games until ${until.replace(/[.]/g, "\\.")} \\(Retry-After, in 4[56] s\\), longer than a data source waits \\(30 s in all\\): run it again after that time`,
      ),
    );
    expect(failure.message).toContain("[GET /cloud/games: 429 API_RATE_LIMIT");
    // The window counts calls: reading once helps, a lower --parallel (the same calls, slower) does not.
    expect(failure.message).toContain(
      "or make fewer calls (read it once and reuse the result: the service counts calls, and a lower --parallel makes no fewer)",
    );
    expect(warnings).toEqual([]);
  });

  it("says why it still failed when the retries ran out within the bound", { timeout: 20_000 }, async () => {
    emulator.faults.inject({ path: "/cloud/games", kind: "rate_limit", retryAfterMs: 0, count: 10 });
    const warnings: string[] = [];
    const error = (await readGames(warnings).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /^The service still rate-limits GET \/cloud\/games after the retries a data source makes/,
    );
    expect(warnings.map((w) => w.replace(/in \d+ s/, "in N s"))).toEqual(
      [2, 3, 4, 5].map(
        (n) => `GET /cloud/games: rate limited by the service; retrying in N s (attempt ${n} of 5)`,
      ),
    );
  });
});

describe("retryMessage", () => {
  const base = {
    type: "retry",
    method: "GET",
    path: "/cloud/bootstrap",
    attempt: 2,
    maxAttempts: 5,
  } as const;

  it("leaves a short backoff after a transient failure unsaid, and tells a longer one", () => {
    expect(retryMessage({ ...base, status: 503, delayMs: 200 })).toBeUndefined();
    expect(retryMessage({ ...base, status: 503, delayMs: 2_400 })).toBe(
      "GET /cloud/bootstrap: the service answered 503; retrying in 3 s (attempt 2 of 5)",
    );
    expect(retryMessage({ ...base, errorCode: "ECONNRESET", delayMs: 1_000 })).toBe(
      "GET /cloud/bootstrap: no answer from the service (ECONNRESET); retrying in 1 s (attempt 2 of 5)",
    );
    expect(retryMessage({ type: "response", method: "GET", path: "/x", status: 200 })).toBeUndefined();
  });
});
