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

describe("faults", () => {
  it("rate_limit answers 429 with an HTTP-date retry-after, or seconds when asked", async () => {
    const e = await running();
    e.faults.inject({ path: "/cloud/bootstrap", kind: "rate_limit" });
    const limited = await call(e, "GET", "/cloud/bootstrap");
    expect([limited.status, codeOf(limited)]).toEqual([429, "API_RATE_LIMIT"]);
    const retryAfter = limited.headers.get("retry-after") as string;
    expect(Number.isNaN(Date.parse(retryAfter))).toBe(false);
    expect(retryAfter).toMatch(/GMT$/);
    expect((limited.body as { metadata: { retry_after_ts: number } }).metadata.retry_after_ts).toBe(
      Date.parse(retryAfter),
    );
    expect((await call(e, "GET", "/cloud/bootstrap")).status).toBe(200);

    e.faults.inject({ kind: "rate_limit", retryAfter: "seconds", retryAfterMs: 2_000 });
    const seconds = await call(e, "GET", "/cloud/bootstrap");
    expect(seconds.headers.get("retry-after")).toBe("2");
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

  it("limit POST routes to 16 a minute per route, with retry-after at the window end", async () => {
    const clock = Date.UTC(2024, 7, 16, 12, 0, 30, 250);
    const e = await running({ rateLimit: true, now: () => clock });
    const path = `/cloud/groups/${ids(e).mainGroup}/billing/payment-portal-session`;
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 17; i++) {
      const res = await call(e, "POST", path, { body: { intent: "general" } });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.indexOf(429)).toBe(16);
    const hit = limited as Awaited<ReturnType<typeof call>>;
    expect(codeOf(hit)).toBe("API_RATE_LIMIT");
    const windowEnd = Date.UTC(2024, 7, 16, 12, 1, 0);
    expect(hit.headers.get("retry-after")).toBe(new Date(windowEnd).toUTCString());
    expect((hit.body as { metadata: { retry_after_ts: number } }).metadata.retry_after_ts).toBe(windowEnd);
    expect(hit.headers.get("x-ratelimit-limit")).toBeNull();
    // Other routes have their own counters.
    expect((await call(e, "GET", "/cloud/bootstrap")).status).toBe(200);
  });

  it("gives servers routes their higher limits", async () => {
    let clock = Date.UTC(2024, 7, 16, 12, 0, 0);
    const e = await running({ rateLimit: true, now: () => clock });
    const path = `${ids(e).serversPath}/00000000-0000-4000-8000-000000000000`;
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await call(e, "GET", path)).status);
    expect(statuses.slice(0, 120).every((s) => s === 400)).toBe(true);
    expect(statuses[120]).toBe(429);
    clock += 60_000;
    expect((await call(e, "GET", path)).status).toBe(400);
  });
});

describe("order of checks", () => {
  it("checks the token's presence before the rate limit and its validity after it", async () => {
    const clock = Date.UTC(2024, 7, 16, 12, 0, 0);
    const e = await running({ rateLimit: true, now: () => clock });
    const path = `/cloud/groups/${ids(e).mainGroup}/billing/payment-portal-session`;
    const limit = limitOf(`POST /cloud/groups/:group/billing/payment-portal-session`);
    const post = (token?: string | null) => call(e, "POST", path, { token, body: { intent: "general" } });
    for (let i = 0; i < limit; i++) expect((await post()).status).toBe(200);
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
    const statuses = new Map<number, number>();
    for (let i = 0; i <= limit; i++) {
      const status = (await call(e, "GET", "/cloud/bootstrap", { token: null })).status;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: limit, 429: 1 });
    for (let i = 0; i <= limitOf(`GET ${EXPORT_DOWNLOAD_ROUTE}`); i++)
      expect((await fetch(url)).status).toBe(200);
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

  it("serves other clients while one sends its body slowly", async () => {
    const e = await running();
    const socket = net.connect(e.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST ${ids(e).serversPath} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${e.tokens.user}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{",
    );
    const startedAt = Date.now();
    const other = await call(e, "GET", "/cloud/bootstrap");
    expect(other.status).toBe(200);
    expect(Date.now() - startedAt).toBeLessThan(500);
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
