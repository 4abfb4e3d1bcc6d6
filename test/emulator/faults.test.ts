import * as net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { limitOf } from "../../src/emulator/rateLimit";
import { EXPORT_DOWNLOAD_ROUTE } from "../../src/emulator/routes/index";
import { call, codeOf, ids, serverBody, start } from "./helpers";

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

async function running(options = {}): Promise<RunningEmulator> {
  emu = await start(options);
  return emu;
}

/** Counts the statuses of `n` calls of `send`, 32 at a time. */
async function statusesOf(n: number, send: (i: number) => Promise<{ status: number }>) {
  const counts: Record<number, number> = {};
  for (let i = 0; i < n; i += 32) {
    const batch = Array.from({ length: Math.min(32, n - i) }, (_, k) => send(i + k));
    for (const { status } of await Promise.all(batch)) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

describe("faults", () => {
  it("rate_limit answers 429 with an HTTP-date retry-after, or seconds when asked", async () => {
    const e = await running();
    e.faults.inject({ path: "/cloud/bootstrap", kind: "rate_limit" });
    const limited = await call(e, "GET", "/cloud/bootstrap");
    expect([limited.status, codeOf(limited)]).toEqual([429, "API_RATE_LIMIT"]);
    const retryAfter = limited.headers.get("retry-after") as string;
    expect(Number.isNaN(Date.parse(retryAfter))).toBe(false);
    expect(retryAfter).toMatch(/GMT$/);
    // The service's shape: the same instant in ms is the whole metadata, a bare number.
    expect((limited.body as { metadata: unknown }).metadata).toBe(Date.parse(retryAfter));
    expect((await call(e, "GET", "/cloud/bootstrap")).status).toBe(200);

    e.faults.inject({ kind: "rate_limit", retryAfter: "seconds", retryAfterMs: 2_000 });
    const before = Date.now();
    const seconds = await call(e, "GET", "/cloud/bootstrap");
    expect(seconds.headers.get("retry-after")).toBe("2");
    const until = (seconds.body as { metadata: unknown }).metadata as number;
    expect(until % 1000).toBe(0);
    expect(until).toBeGreaterThanOrEqual(before + 2_000);
  });

  it("error_500 answers 500 ERROR for `count` matching requests only", async () => {
    const e = await running();
    e.faults.inject({ method: "GET", path: /^\/cloud\/games\//, kind: "error_500", count: 2 });
    const path = `/cloud/games/${ids(e).gameId}`;
    expect((await call(e, "GET", "/cloud/games")).status).toBe(200);
    const first = await call(e, "GET", path);
    expect([first.status, codeOf(first)]).toEqual([500, "ERROR"]);
    expect((first.body as { message: string }).message).toBe("An internal error has occurred.");
    expect(e.faults.pending()).toHaveLength(1);
    expect((await call(e, "GET", path)).status).toBe(500);
    expect((await call(e, "GET", path)).status).toBe(200);
    expect(e.faults.pending()).toEqual([]);
  });

  it("matches a route pattern as well as a path, and clear() drops faults", async () => {
    const e = await running();
    e.faults.inject({ path: "/games/:game/environments/:env/servers", method: "POST", kind: "error_500" });
    e.faults.inject({ kind: "error_500", count: 5 });
    e.faults.clear();
    expect(e.faults.pending()).toEqual([]);
    e.faults.inject({ path: "/games/:game/environments/:env/servers", method: "POST", kind: "error_500" });
    const res = await call(e, "POST", ids(e).serversPath, { body: serverBody(e) });
    expect(res.status).toBe(500);
    expect(e.servers()).toHaveLength(0);
  });

  it("reset drops the connection without doing anything", async () => {
    const e = await running();
    e.faults.inject({ method: "POST", kind: "reset" });
    await expect(call(e, "POST", ids(e).serversPath, { body: serverBody(e) })).rejects.toThrow();
    expect(e.servers()).toHaveLength(0);
    expect(e.requests.at(-1)?.status).toBe(0);
  });

  it("commit_then_reset performs the request, then drops the connection", async () => {
    const e = await running();
    e.faults.inject({ method: "POST", kind: "commit_then_reset" });
    await expect(call(e, "POST", ids(e).serversPath, { body: serverBody(e) })).rejects.toThrow();
    expect(e.servers()).toHaveLength(1);
  });

  it("commit_then_500 performs the request, then answers 500", async () => {
    const e = await running();
    e.faults.inject({ method: "POST", kind: "commit_then_500" });
    const res = await call(e, "POST", ids(e).serversPath, { body: serverBody(e) });
    expect([res.status, codeOf(res)]).toEqual([500, "ERROR"]);
    expect(e.servers()).toHaveLength(1);
  });

  it("hang never answers until the request time cap: 500 API_REQUEST_TIMEOUT", async () => {
    const e = await running({ requestTimeCapMs: 150 });
    e.faults.inject({ kind: "hang" });
    const startedAt = Date.now();
    const res = await call(e, "GET", "/cloud/bootstrap");
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(140);
    expect([res.status, codeOf(res)]).toEqual([500, "API_REQUEST_TIMEOUT"]);
  });

  it("caps long watches too", async () => {
    const e = await running({ requestTimeCapMs: 100, watchHoldMs: 5_000 });
    const path = `/cloud/games/${ids(e).gameId}`;
    const index = ((await call(e, "GET", path)).body as { watch: { index: string } }).watch.index;
    const res = await call(e, "GET", `${path}?watch_index=${index}`);
    expect(codeOf(res)).toBe("API_REQUEST_TIMEOUT");
    expect(e.watcherCount()).toBe(0);
  });

  it("rejects invalid fault specs", async () => {
    const e = await running();
    expect(() => e.faults.inject({ kind: "explode" as "hang" })).toThrow(/kind/);
    expect(() => e.faults.inject({ kind: "hang", count: 0 })).toThrow(/count/);
  });
});

describe("rate limits", () => {
  it("are off by default", async () => {
    const e = await running();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(e, "POST", `/cloud/groups/${ids(e).mainGroup}/billing/payment-portal-session`, {
          body: { intent: "general" },
        }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
  });

  it("limit each route per fixed 15-minute window to 15 × its per-minute figure, retry-after at the window end", async () => {
    // 12:07:30.250: the window runs from 12:00 to 12:15.
    let clock = Date.UTC(2024, 7, 16, 12, 7, 30, 250);
    const e = await running({ rateLimit: true, now: () => clock });
    const path = `/cloud/groups/${ids(e).mainGroup}/billing/payment-portal-session`;
    const post = () => call(e, "POST", path, { body: { intent: "general" } });
    for (let i = 0; i < 15 * 16; i++) {
      const res = await post();
      expect(res.status, `request ${i + 1}`).toBe(200);
      // Spread over the window: more than 16 in a minute is fine while the window has room.
      if (i === 100) clock += 60_000;
    }
    const hit = await post();
    expect([hit.status, codeOf(hit)]).toEqual([429, "API_RATE_LIMIT"]);
    const windowEnd = Date.UTC(2024, 7, 16, 12, 15, 0);
    expect(hit.headers.get("retry-after")).toBe(new Date(windowEnd).toUTCString());
    expect((hit.body as { metadata: unknown }).metadata).toBe(windowEnd);
    expect([...hit.headers.keys()].filter((h) => h.startsWith("x-ratelimit"))).toEqual([]);
    // Other routes have their own counters, and the next window starts afresh.
    expect((await call(e, "GET", "/cloud/bootstrap")).status).toBe(200);
    clock = windowEnd - 1;
    expect((await post()).status).toBe(429);
    clock = windowEnd;
    expect((await post()).status).toBe(200);
  });

  it("gives the servers routes the same per-method limits as every route", async () => {
    const clock = Date.UTC(2024, 7, 16, 12, 0, 0);
    const e = await running({ rateLimit: true, now: () => clock });
    const create = (tag: string) =>
      call(e, "POST", ids(e).serversPath, { body: serverBody(e, { tags: { n: tag } }) });
    expect(await statusesOf(15 * 16, (i) => create(String(i)))).toEqual({ 200: 15 * 16 });
    expect(codeOf(await create("over"))).toBe("API_RATE_LIMIT");
    expect(e.servers()).toHaveLength(15 * 16);
    const get = `${ids(e).serversPath}/00000000-0000-4000-8000-000000000000`;
    expect(await statusesOf(15 * 128 + 1, () => call(e, "GET", get))).toEqual({ 400: 15 * 128, 429: 1 });
    // DELETE has the POST figure (16 a minute), on its own counter beside the GET of the same path.
    expect(await statusesOf(15 * 16 + 1, () => call(e, "DELETE", get))).toEqual({ 400: 15 * 16, 429: 1 });
  });
});

describe("order of checks", () => {
  it("checks the token's presence before the rate limit and its validity after it", async () => {
    const clock = Date.UTC(2024, 7, 16, 12, 0, 0);
    const e = await running({ rateLimit: true, now: () => clock });
    const path = `/cloud/groups/${ids(e).mainGroup}/billing/payment-portal-session`;
    const limit = limitOf(`POST /cloud/groups/:group/billing/payment-portal-session`);
    const post = (token?: string | null) => call(e, "POST", path, { token, body: { intent: "general" } });
    expect(await statusesOf(limit, () => post())).toEqual({ 200: limit });
    expect(codeOf(await post())).toBe("API_RATE_LIMIT");
    // Without a token: 401, limited or not; with one that is not valid: the limit comes first.
    const none = await post(null);
    expect([none.status, codeOf(none)]).toEqual([401, "API_UNAUTHORIZED"]);
    const malformed = await call(e, "POST", path, { token: null, headers: { authorization: "Basic x" } });
    expect(codeOf(malformed)).toBe("API_UNAUTHORIZED");
    expect(codeOf(await post("who-is-this"))).toBe("API_RATE_LIMIT");
    expect(codeOf(await post(e.tokens.expired))).toBe("API_RATE_LIMIT");
  });

  it("rate limits bootstrap, which takes no token, and never the presigned export download", async () => {
    const clock = Date.UTC(2024, 7, 16, 12, 0, 0);
    const e = await running({ rateLimit: true, now: () => clock });
    const exported = await call(
      e,
      "POST",
      `/cloud/games/${ids(e).gameId}/matchmaker/lobbies/export-history`,
      {
        body: { query_start: 0, query_end: clock },
      },
    );
    const url = (exported.body as { url: string }).url;
    const limit = limitOf("GET /cloud/bootstrap");
    const bootstrap = () => call(e, "GET", "/cloud/bootstrap", { token: null });
    expect(await statusesOf(limit + 1, bootstrap)).toEqual({ 200: limit, 429: 1 });
    const downloads = limitOf(`GET ${EXPORT_DOWNLOAD_ROUTE}`) + 1;
    const download = () => call(e, "GET", url.slice(e.url.length), { token: null });
    expect(await statusesOf(downloads, download)).toEqual({ 200: downloads });
  });
});

describe("bodies", () => {
  it("answers a body over the limit with 413 API_BAD_BODY", async () => {
    const e = await running({ bodyLimitBytes: 1_024 });
    const body = serverBody(e, { tags: { big: "x".repeat(4_096) } });
    const res = await call(e, "POST", ids(e).serversPath, { body });
    expect([res.status, codeOf(res)]).toEqual([413, "API_BAD_BODY"]);
    expect((await call(e, "POST", ids(e).serversPath, { body: serverBody(e) })).status).toBe(200);
  });

  it("serves other clients while one sends its body slowly", { timeout: 30_000 }, async () => {
    // The slow request is never finished, and the request time cap outlasts the test (its timeout is a hang
    // guard): the other client is answered beside it or not at all.
    const e = await running({ requestTimeCapMs: 600_000 });
    const socket = net.connect(e.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let slowEnded = false;
    socket.on("data", () => (slowEnded = true)).on("close", () => (slowEnded = true));
    socket.write(
      `POST ${ids(e).serversPath} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${e.tokens.user}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{",
    );
    const other = await call(e, "GET", "/cloud/bootstrap");
    expect(other.status).toBe(200);
    expect(slowEnded, "the slow request was answered or cut first").toBe(false);
    expect(e.servers()).toEqual([]);
    socket.destroy();
  });

  it("never leaks a stack trace: unexpected failures are 500 ERROR", async () => {
    const e = await running();
    // Corrupting the live fixture makes rendering throw inside the handler.
    const { gameId } = ids(e);
    (e.fixture.games.find((g) => g.id === gameId) as unknown as { environments: unknown }).environments = 5;
    const res = await call(e, "GET", `/cloud/games/${gameId}`);
    expect([res.status, codeOf(res)]).toEqual([500, "ERROR"]);
    expect(res.text).not.toMatch(/at .*\.ts/);
  });
});
