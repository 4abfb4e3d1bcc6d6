import { inspect } from "node:util";
import { Agent } from "undici";
import { describe, expect, it, vi } from "vitest";
import { type ClientEvent, type ClientOptions, GamehostClient } from "../../src/api/client";
import { readSettings, requireConnection } from "../../src/api/config";
import {
  GamehostApiError,
  GamehostConfigError,
  GamehostNetworkError,
  GamehostValidationError,
} from "../../src/api/errors";
import { PACKAGE_VERSION } from "../../src/version";
import { failure } from "../support/failure";
import {
  BOOTSTRAP,
  closedPort,
  ENV,
  GAME,
  json,
  SERVER_BODY,
  useScriptedServers,
} from "./helpers/scriptedServer";

const TOKEN = "tok_SECRET_abc123";

const scripted = useScriptedServers();

function client(url: string, extra: ClientOptions = {}): { client: GamehostClient; events: ClientEvent[] } {
  const events: ClientEvent[] = [];
  const c = new GamehostClient({
    baseUrl: url,
    token: TOKEN,
    retry: { minDelayMs: 10, maxDelayMs: 40 },
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { client: c, events };
}

/** {@link client}, with a signal that aborts as the first retry wait begins. */
function abortedOnRetry(url: string, extra: ClientOptions = {}) {
  const controller = new AbortController();
  const made = client(url, {
    ...extra,
    onEvent: (e) => {
      made.events.push(e);
      if (e.type === "retry") controller.abort();
    },
  });
  return { ...made, signal: controller.signal };
}

describe("headers", () => {
  it("sends the user agent, bearer token and JSON content type", async () => {
    const s = await scripted((_req, res) => json(res, 200, { url: "https://x/y.csv" }));
    const { client: c } = client(s.url, { userAgent: "my-tool/2" });
    await c.exportLobbyHistory(GAME, { query_start: 1, query_end: 2 });
    await c.getBootstrap().catch(() => undefined);
    const [post, get] = s.seen;
    expect(post?.headers["user-agent"]).toBe(`pulumi-gamehost/${PACKAGE_VERSION} my-tool/2`);
    expect(post?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(post?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(post?.body ?? "")).toEqual({ query_start: 1, query_end: 2 });
    expect(get?.headers["content-type"]).toBeUndefined();
  });

  it("sends no Authorization header without a token", async () => {
    const s = await scripted((_req, res) => json(res, 200, BOOTSTRAP));
    vi.stubEnv("GAMEHOST_TOKEN", "from-env");
    const c = new GamehostClient({ baseUrl: s.url, token: "" });
    await c.getBootstrap();
    expect(s.seen[0]?.headers.authorization).toBeUndefined();
  });

  it("never sends the token to an export URL", async () => {
    const s = await scripted((_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      res.end("lobby_id\n1\n");
    });
    const { client: c } = client(s.url);
    const stream = await c.openExport(`${s.url}/uploads/u1/export.csv?X-Signature=abc`);
    let text = "";
    for await (const chunk of stream) text += String(chunk);
    expect(text).toBe("lobby_id\n1\n");
    expect(s.seen[0]?.headers.authorization).toBeUndefined();
    expect(s.seen[0]?.url).toBe("/uploads/u1/export.csv?X-Signature=abc");
  });

  it("consumes the body of an error answer, so its connection serves the next call", async () => {
    const s = await scripted((_req, res, n) =>
      n === 0 ? json(res, 400, { code: "GAME_NOT_FOUND", message: "no game" }) : json(res, 200, BOOTSTRAP),
    );
    // One connection only: an unread body would hold it and the second call would never be sent.
    const dispatcher = new Agent({ connections: 1 });
    const { client: c } = client(s.url, { dispatcher });
    await expect(c.getGame(GAME)).rejects.toBeInstanceOf(GamehostApiError);
    await expect(c.getBootstrap({ signal: AbortSignal.timeout(2_000) })).resolves.toEqual(BOOTSTRAP);
    expect(s.seen[1]?.remotePort).toBe(s.seen[0]?.remotePort);
    await dispatcher.close();
  });
});

describe("configuration", () => {
  it("reads the base URL and token from the environment when not given", async () => {
    const s = await scripted((_req, res) => json(res, 200, BOOTSTRAP));
    vi.stubEnv("GAMEHOST_BASE_URL", `${s.url}/`);
    vi.stubEnv("GAMEHOST_TOKEN", "env-token");
    const c = new GamehostClient();
    expect(c.baseUrl).toBe(s.url);
    await c.getBootstrap();
    expect(s.seen[0]?.headers.authorization).toBe("Bearer env-token");
  });

  it("lets explicit options win over the environment", async () => {
    const s = await scripted((_req, res) => json(res, 200, BOOTSTRAP));
    vi.stubEnv("GAMEHOST_BASE_URL", "http://127.0.0.1:1");
    vi.stubEnv("GAMEHOST_TOKEN", "env-token");
    const c = new GamehostClient({ baseUrl: s.url, token: "explicit" });
    await c.getBootstrap();
    expect(s.seen[0]?.headers.authorization).toBe("Bearer explicit");
  });

  it("fails without a base URL, naming the option and the environment variable (in code)", () => {
    vi.stubEnv("GAMEHOST_BASE_URL", "");
    expect(() => new GamehostClient({ token: "x" })).toThrow(
      new GamehostConfigError("gamehost:baseUrl", "GAMEHOST_BASE_URL", "is not set", {
        sources: {},
        pulumi: false,
      }),
    );
    expect(() => new GamehostClient({ token: "x" })).toThrow(
      "Client option baseUrl is not set: pass it to new GamehostClient or set the GAMEHOST_BASE_URL environment variable.",
    );
  });

  it("names a wrong option and its value, and suggests `pulumi config set` only for Pulumi config", () => {
    const message = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        expect(error).toBeInstanceOf(GamehostConfigError);
        return (error as Error).message;
      }
      throw new Error("expected a GamehostConfigError");
    };
    // In code: the option and its value.
    expect(message(() => new GamehostClient({ baseUrl: "ftp://example.gg" }))).toBe(
      'Client option baseUrl must be an http(s) URL, got scheme "ftp:": pass a valid one to new GamehostClient.',
    );
    expect(message(() => new GamehostClient({ baseUrl: "http://api example.gg" }))).toBe(
      'Client option baseUrl is not a valid URL (got "http://api example.gg"): pass a valid one to new GamehostClient.',
    );
    // No scheme, the first mistake: `127.0.0.1:8787` does not parse, `localhost:8787` parses as scheme "localhost:".
    for (const baseUrl of ["127.0.0.1:8787", "localhost:8787", "api.example.gg"]) {
      expect(message(() => new GamehostClient({ baseUrl }))).toBe(
        `Client option baseUrl must start with http:// or https://, as in https://api.example.gg (got "${baseUrl}"): pass a valid one to new GamehostClient.`,
      );
    }
    // A value that may hold a credential is not quoted.
    expect(message(() => new GamehostClient({ baseUrl: "user:pw@api example" }))).not.toContain("pw");
    // From the environment: the variable.
    vi.stubEnv("GAMEHOST_MAX_RETRIES", "many");
    expect(message(() => new GamehostClient({ baseUrl: "http://127.0.0.1:1" }))).toBe(
      'Environment variable GAMEHOST_MAX_RETRIES must be a non-negative integer, got "many": change or unset it.',
    );
    // From Pulumi config: the key and the command that sets it.
    vi.stubEnv("GAMEHOST_MAX_RETRIES", "");
    const config: Record<string, string> = {
      "gamehost:baseUrl": "ftp://example.gg",
      "gamehost:maxRetries": "2",
    };
    expect(message(() => new GamehostClient(readSettings((key) => config[key])))).toBe(
      'Configuration gamehost:baseUrl must be an http(s) URL, got scheme "ftp:": run `pulumi config set gamehost:baseUrl <value>`.',
    );
    vi.stubEnv("GAMEHOST_BASE_URL", "");
    expect(message(() => requireConnection(readSettings(() => undefined)))).toBe(
      "Configuration gamehost:baseUrl is not set: run `pulumi config set gamehost:baseUrl <value>` or set the GAMEHOST_BASE_URL environment variable.",
    );
  });

  it("drops the spaces around a pasted base URL, and refuses a query or fragment, naming the option", async () => {
    const s = await scripted((_req, res) => json(res, 200, BOOTSTRAP));
    // As `pulumi config set gamehost:baseUrl "http://… "` stores it: every request still reaches the service.
    for (const baseUrl of [`${s.url} `, ` ${s.url}/ `, `\t${s.url}\n`]) {
      await new GamehostClient({ baseUrl, token: TOKEN }).getBootstrap();
    }
    expect(s.seen.map((r) => r.url)).toEqual(["/cloud/bootstrap", "/cloud/bootstrap", "/cloud/bootstrap"]);
    const config: Record<string, string> = {};
    for (const suffix of ["?region=eu", "#top", "?"]) {
      config["gamehost:baseUrl"] = `${s.url}${suffix}`;
      expect(() => new GamehostClient(readSettings((key) => config[key]))).toThrow(
        "Configuration gamehost:baseUrl must be the API's root, without a query (`?…`) or fragment (`#…`): run `pulumi config set gamehost:baseUrl <value>`.",
      );
    }
  });

  it("rejects negative retry and timeout options, naming them", () => {
    expect(() => new GamehostClient({ baseUrl: "http://127.0.0.1:1", retry: { maxRetries: -1 } })).toThrow(
      /retry\.maxRetries/,
    );
    expect(
      () => new GamehostClient({ baseUrl: "http://127.0.0.1:1", timeouts: { headersMs: Number.NaN } }),
    ).toThrow(/timeouts\.headersMs/);
  });

  it("names a misspelt or unknown option instead of ignoring it, and quotes a value of the wrong type", () => {
    // What a script in JavaScript (or with an options object typed loosely) passes: another client's
    // names (`baseURL`, `timeout`, `retries`) would otherwise be dropped, and the setting silently not made.
    const wrong = (options: Record<string, unknown>) => {
      try {
        new GamehostClient({ baseUrl: "http://127.0.0.1:1", ...options } as ClientOptions);
      } catch (error) {
        expect(error).toBeInstanceOf(GamehostValidationError);
        return (error as Error).message;
      }
      throw new Error("expected a GamehostValidationError");
    };
    expect(wrong({ timeout: 5000 })).toBe(
      "Invalid client options: timeout: is not a known option (known: baseUrl, token, maxRetries, requestTimeoutMs, callTimeoutMs, maxResponseBytes, retry, timeouts, userAgent, dispatcher, onEvent)",
    );
    expect(wrong({ retry: { retries: 0 } })).toBe(
      "Invalid client options: retry.retries: is not a known option (known: maxRetries, minDelayMs, maxDelayMs, maxTotalDelayMs)",
    );
    expect(wrong({ timeouts: { headerMs: 500 } })).toBe(
      "Invalid client options: timeouts.headerMs: is not a known option (known: connectMs, headersMs, bodyMs, watchHeadersMs)",
    );
    // Named even where the base URL it stands for is then missing (axios spells it `baseURL`).
    expect(() => new GamehostClient({ baseURL: "http://127.0.0.1:1" } as ClientOptions)).toThrow(
      /^Invalid client options: baseURL: is not a known option \(known: baseUrl, /,
    );
    // A string "3" is not the number 3: the message must not read as if 3 had been refused.
    expect(wrong({ maxRetries: "3" })).toBe(
      'Invalid client options: maxRetries: must be a non-negative number, got "3" (a string)',
    );
  });
});

describe("retries", () => {
  it("honours Retry-After given as an HTTP date", async () => {
    let retryAt = 0;
    const s = await scripted((_req, res, n) => {
      if (n === 0) {
        // The next whole second at least 300 ms away: an HTTP date has no milliseconds.
        retryAt = Math.ceil((Date.now() + 300) / 1000) * 1000;
        json(
          res,
          429,
          { code: "API_RATE_LIMIT", message: "slow down", metadata: { retry_after_ts: retryAt } },
          { "retry-after": new Date(retryAt).toUTCString() },
        );
      } else json(res, 200, BOOTSTRAP);
    });
    const { client: c, events } = client(s.url);
    await c.getBootstrap();
    expect(s.seen).toHaveLength(2);
    const second = s.seen[1]!.at;
    expect(second).toBeGreaterThanOrEqual(retryAt - 15);
    // No longer than asked: the wait the client chose ends at the date, plus its jitter (at most 5 ms
    // here: half of minDelayMs), counted from when it read the answer (after the server wrote it).
    const [retry] = events.filter((e) => e.type === "retry");
    expect(retry?.delayMs).toBeLessThanOrEqual(retryAt - s.seen[0]!.at + 5);
    expect(c.stats).toEqual({ requests: 1, retries: 1 });
    expect(events.filter((e) => e.type === "retry")).toEqual([
      expect.objectContaining({ method: "GET", path: "/cloud/bootstrap", status: 429, attempt: 2 }),
    ]);
  });

  it("honours Retry-After given in seconds", async () => {
    const s = await scripted((_req, res, n) =>
      n === 0
        ? json(res, 503, { code: "ERROR", message: "busy" }, { "retry-after": "1" })
        : json(res, 200, BOOTSTRAP),
    );
    const { client: c, events } = client(s.url);
    await c.getBootstrap();
    const gap = s.seen[1]!.at - s.seen[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(980);
    // The wait the client chose: the second asked for, plus a jitter of at most half of minDelayMs.
    const [retry] = events.filter((e) => e.type === "retry");
    expect(retry?.delayMs).toBeGreaterThanOrEqual(1_000);
    expect(retry?.delayMs).toBeLessThanOrEqual(1_005);
  });

  it("turns a 429 that outlasts the retries into an error carrying retryAfterMs", async () => {
    const until = Date.now() + 5_000;
    const s = await scripted((_req, res) =>
      json(
        res,
        429,
        {
          code: "API_RATE_LIMIT",
          message: "slow down",
          ray_id: "ray-1",
          metadata: { retry_after_ts: until },
        },
        { "retry-after": new Date(until).toUTCString() },
      ),
    );
    // The service asks for 5 s; a 1 s budget cannot wait that long, so the answer comes back at once.
    const { client: c } = client(s.url, { retry: { maxTotalDelayMs: 1_000 } });
    const err = await failure(c.getBootstrap());
    expect(err).toBeInstanceOf(GamehostApiError);
    const api = err as GamehostApiError;
    expect(api.status).toBe(429);
    expect(api.isRateLimited).toBe(true);
    expect(api.code).toBe("API_RATE_LIMIT");
    expect(api.retryAfterMs).toBe(until);
    expect(api.rayId).toBe("ray-1");
    expect(s.seen).toHaveLength(1);
  });

  it("retries a GET after a 500 and after a connection reset", async () => {
    const s = await scripted((_req, res, n) => {
      if (n === 0) json(res, 500, { code: "ERROR", message: "An internal error has occurred." });
      else if (n === 1) res.socket?.destroy();
      else json(res, 200, BOOTSTRAP);
    });
    const { client: c, events } = client(s.url);
    await expect(c.getBootstrap()).resolves.toEqual(BOOTSTRAP);
    expect(s.seen).toHaveLength(3);
    expect(c.stats.retries).toBe(2);
    const retries = events.filter((e) => e.type === "retry");
    expect(retries[0]).toMatchObject({ status: 500, attempt: 2 });
    expect(retries[1]).toMatchObject({ attempt: 3 });
    expect(retries[1]?.errorCode).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
    expect(events.at(-1)).toEqual({
      type: "response",
      method: "GET",
      path: "/cloud/bootstrap",
      status: 200,
      attempt: 3,
    });
  });

  it("retries a DELETE after a 502", async () => {
    const s = await scripted((_req, res, n) =>
      n === 0 ? json(res, 502, { code: "ERROR", message: "bad gateway" }) : json(res, 200, {}),
    );
    const { client: c } = client(s.url);
    await c.deleteServer(GAME, ENV, "00000000-0000-4000-8000-000000000008", { override_kill_timeout: 0 });
    expect(s.seen.map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
    expect(s.seen[0]?.url).toBe(
      `/games/${GAME}/environments/${ENV}/servers/00000000-0000-4000-8000-000000000008?override_kill_timeout=0`,
    );
  });

  it("does not retry a POST answered with 500", async () => {
    const s = await scripted((_req, res) =>
      json(res, 500, { code: "ERROR", message: "An internal error has occurred." }),
    );
    const { client: c } = client(s.url);
    const err = await failure(c.createServer(GAME, ENV, SERVER_BODY));
    expect(err).toBeInstanceOf(GamehostApiError);
    expect((err as GamehostApiError).status).toBe(500);
    expect(s.seen).toHaveLength(1);
    expect(c.stats.retries).toBe(0);
  });

  it("does not retry a POST whose answer was lost, and says it may have committed", async () => {
    const s = await scripted((_req, res) => {
      res.socket?.destroy();
    });
    const { client: c } = client(s.url);
    const err = await failure(c.createServer(GAME, ENV, SERVER_BODY));
    expect(err).toBeInstanceOf(GamehostNetworkError);
    const net = err as GamehostNetworkError;
    expect(net.mayHaveCommitted).toBe(true);
    expect(net.method).toBe("POST");
    expect(net.path).toBe(`/games/${GAME}/environments/${ENV}/servers`);
    expect(s.seen).toHaveLength(1);
  });

  it("caps attempts at maxRetries + 1", async () => {
    const s = await scripted((_req, res) => json(res, 503, { code: "ERROR", message: "unavailable" }));
    const { client: c } = client(s.url, { retry: { maxRetries: 3, minDelayMs: 5, maxDelayMs: 5 } });
    const err = await failure(c.getBootstrap());
    expect((err as GamehostApiError).status).toBe(503);
    expect(s.seen).toHaveLength(4);
    expect(c.stats).toEqual({ requests: 1, retries: 3 });
  });

  it("reads maxRetries from the top-level option (config) when the policy leaves it out", async () => {
    const s = await scripted((_req, res) => json(res, 503, { code: "ERROR", message: "unavailable" }));
    const { client: c } = client(s.url, { maxRetries: 1 });
    await failure(c.getBootstrap());
    expect(s.seen).toHaveLength(2);
  });

  it("caps the total wait at maxTotalDelayMs", async () => {
    const s = await scripted((_req, res) => json(res, 500, { code: "ERROR", message: "boom" }));
    // Each wait is 25–50 ms, so a 300 ms budget allows 6 to 12 retries, far fewer than 100.
    const { client: c, events } = client(s.url, {
      retry: { maxRetries: 100, minDelayMs: 50, maxDelayMs: 50, maxTotalDelayMs: 300 },
    });
    await failure(c.getBootstrap());
    // The waits the client chose, one per retry, add up to no more than the budget.
    const waits = events.filter((e) => e.type === "retry").map((e) => e.delayMs ?? Number.NaN);
    expect(waits).toHaveLength(s.seen.length - 1);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(300);
    expect(s.seen.length).toBeGreaterThanOrEqual(7);
    expect(s.seen.length).toBeLessThanOrEqual(13);
  });

  it("retries a refused connection, then reports that nothing was sent", async () => {
    const port = await closedPort();
    const { client: c } = client(`http://127.0.0.1:${port}`, { retry: { maxRetries: 2, minDelayMs: 5 } });
    const err = await failure(c.getBootstrap());
    expect(err).toBeInstanceOf(GamehostNetworkError);
    expect((err as GamehostNetworkError).mayHaveCommitted).toBe(false);
    expect(c.stats.retries).toBe(2);
  });

  it("does not retry when the body of a 200 breaks off, and says it may have committed", async () => {
    const s = await scripted((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"cluster":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { client: c } = client(s.url);
    const err = await failure(c.getBootstrap());
    expect(err).toBeInstanceOf(GamehostNetworkError);
    expect((err as GamehostNetworkError).mayHaveCommitted).toBe(true);
    expect(s.seen).toHaveLength(1);
  });
});

describe("timeouts", () => {
  // undici checks headers and body timeouts on a coarse (about 0.5–1 s) clock, hence the margins.
  it("gives up waiting for headers after headersMs and says the request may have committed", async () => {
    const s = await scripted(() => undefined);
    const { client: c } = client(s.url, { timeouts: { headersMs: 100 } });
    // The call's own deadline, far past headersMs: what ends the call must be the headers timeout, not it
    // (undici's default headers timeout is 300 s).
    const err = await failure(
      c.exportLobbyHistory(GAME, { query_start: 1, query_end: 2 }, { signal: AbortSignal.timeout(20_000) }),
    );
    expect(err).toBeInstanceOf(GamehostNetworkError);
    expect((err as GamehostNetworkError).mayHaveCommitted).toBe(true);
    expect((err as Error).message).toMatch(/Headers Timeout/i);
    expect(s.seen).toHaveLength(1);
  });

  it("allows watch calls the longer watchHeadersMs", async () => {
    const s = await scripted((_req, res) => {
      setTimeout(() => json(res, 200, { games: [], groups: [], watch: { index: "2" } }), 2_000);
    });
    const { client: c } = client(s.url, {
      retry: { maxRetries: 0 },
      timeouts: { headersMs: 100, watchHeadersMs: 10_000 },
    });
    const [plain, watch] = await Promise.allSettled([c.listGames(), c.listGames({ watchIndex: "1" })]);
    expect(plain.status === "rejected" && plain.reason).toBeInstanceOf(GamehostNetworkError);
    expect(watch).toEqual({ status: "fulfilled", value: { games: [], groups: [], watch: { index: "2" } } });
    expect(s.seen.map((r) => r.url).sort()).toEqual(["/cloud/games", "/cloud/games?watch_index=1"]);
  });
});

describe("abort", () => {
  // The client waits longer than the test may run (its timeout is a hang guard): that the call ends at all,
  // after the wait began (the retry event), shows the abort ended the wait.
  it("stops waiting for a Retry-After at once", { timeout: 20_000 }, async () => {
    const s = await scripted((_req, res) =>
      json(res, 503, { code: "ERROR", message: "busy" }, { "retry-after": "50" }),
    );
    // Aborted once the wait has begun (a timer could fire before the first answer on a loaded machine).
    const { client: c, events, signal } = abortedOnRetry(s.url);
    const err = await failure(c.getBootstrap({ signal }));
    expect((err as Error).name).toBe("AbortError");
    const waits = events.filter((e) => e.type === "retry").map((e) => e.delayMs);
    expect(waits).toEqual([expect.any(Number)]);
    expect(waits[0]).toBeGreaterThan(45_000);
    expect(s.seen).toHaveLength(1);
  });

  it("stops waiting between connection attempts at once, even when the abort comes from the retry event", {
    timeout: 20_000,
  }, async () => {
    const port = await closedPort();
    const {
      client: c,
      events,
      signal,
    } = abortedOnRetry(`http://127.0.0.1:${port}`, {
      retry: { minDelayMs: 50_000, maxDelayMs: 50_000 },
    });
    const err = await failure(c.getBootstrap({ signal }));
    expect((err as Error).name).toBe("AbortError");
    // A backoff of 25 to 50 s (half of it jitter) had begun.
    expect(events.filter((e) => e.type === "retry")).toEqual([
      expect.objectContaining({ errorCode: "ECONNREFUSED", delayMs: expect.any(Number) }),
    ]);
    expect(events.find((e) => e.type === "retry")?.delayMs).toBeGreaterThanOrEqual(25_000);
  });

  it("aborts a call in flight", async () => {
    const s = await scripted(() => undefined);
    const { client: c } = client(s.url);
    const err = await failure(c.getBootstrap({ signal: AbortSignal.timeout(50) }));
    expect((err as Error).name).toBe("TimeoutError");
  });
});

describe("error answers", () => {
  it("builds a GamehostApiError from a non-JSON body, with the ray id header", async () => {
    const s = await scripted((_req, res) => {
      res.writeHead(502, { "content-type": "text/html", "rvt-ray-id": "ray-from-header" });
      res.end("<html><body>Bad Gateway</body></html>");
    });
    const { client: c } = client(s.url);
    const err = await failure(c.exportLobbyHistory(GAME, { query_start: 1, query_end: 2 }));
    expect(err).toBeInstanceOf(GamehostApiError);
    const api = err as GamehostApiError;
    expect(api.status).toBe(502);
    expect(api.code).toBe("HTTP_502");
    expect(api.serviceMessage).toContain("Bad Gateway");
    expect(api.rayId).toBe("ray-from-header");
    expect(api.message).toContain(`POST /cloud/games/${GAME}/matchmaker/lobbies/export-history`);
  });

  it("keeps code, message, documentation and metadata of a JSON error", async () => {
    const s = await scripted((_req, res) =>
      json(
        res,
        400,
        {
          code: "SERVERS_SERVER_FAILED_TO_CREATE",
          message: "placement failed",
          ray_id: "ray-body",
          documentation: "https://docs.example/x",
          metadata: { reason: "capacity" },
        },
        { "rvt-ray-id": "ray-header" },
      ),
    );
    const { client: c } = client(s.url);
    const api = (await failure(c.createServer(GAME, ENV, SERVER_BODY))) as GamehostApiError;
    expect(api).toMatchObject({
      status: 400,
      code: "SERVERS_SERVER_FAILED_TO_CREATE",
      serviceMessage: "placement failed",
      rayId: "ray-body",
      documentation: "https://docs.example/x",
      metadata: { reason: "capacity" },
      isAuthError: false,
    });
  });

  it.each([
    [401, "API_UNAUTHORIZED", true],
    [408, "CLAIMS_ENTITLEMENT_EXPIRED", true],
    [400, "TOKEN_INVALID", true],
    [403, "API_FORBIDDEN", false],
  ])("flags %i %s as an auth error: %s", async (status, code, auth) => {
    const s = await scripted((_req, res) => json(res, status, { code, message: "m" }));
    const { client: c } = client(s.url);
    const api = (await failure(c.getBootstrap())) as GamehostApiError;
    expect(api.status).toBe(status);
    expect(api.isAuthError).toBe(auth);
  });

  it("fails a 200 that lacks a required field, naming endpoint template and field path", async () => {
    const s = await scripted((_req, res) =>
      json(res, 200, { game: { game_id: GAME }, watch: { index: "5" }, extra: true }),
    );
    const { client: c } = client(s.url);
    const err = (await failure(c.getGame(GAME))) as GamehostValidationError;
    expect(err).toBeInstanceOf(GamehostValidationError);
    expect(err.where).toBe("response of GET /cloud/games/{game_id}");
    expect(err.issues.map((i) => i.path)).toContain("game.name_id");
    expect(err.message).toContain("game.available_regions");
  });

  it("fails a 200 whose body is not JSON", async () => {
    const s = await scripted((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    const { client: c } = client(s.url);
    const err = (await failure(c.getBootstrap())) as GamehostValidationError;
    expect(err).toBeInstanceOf(GamehostValidationError);
    expect(err.message).toMatch(/response of GET \/cloud\/bootstrap.*not valid JSON/);
  });

  it("fails an export download that is refused, without the URL's secret query", async () => {
    const s = await scripted((_req, res) => {
      res.writeHead(403, { "content-type": "application/xml" });
      res.end("<Error><Code>AccessDenied</Code></Error>");
    });
    const { client: c, events } = client(s.url);
    const err = (await failure(
      c.openExport(`${s.url}/u/export.csv?X-Signature=topsecret`),
    )) as GamehostApiError;
    expect(err).toBeInstanceOf(GamehostApiError);
    expect(err.status).toBe(403);
    expect(err.path).toBe("/u/export.csv");
    expect(inspect(err)).not.toContain("topsecret");
    expect(JSON.stringify(events)).not.toContain("topsecret");
  });

  it("rejects an export URL that is not absolute http(s), sending nothing", async () => {
    const { client: c } = client("http://127.0.0.1:1");
    await expect(c.openExport("/relative.csv")).rejects.toBeInstanceOf(GamehostValidationError);
    await expect(c.openExport("file:///etc/passwd")).rejects.toThrow(/http\(s\)/);
    expect(c.stats.requests).toBe(0);
  });
});

describe("request validation", () => {
  it("sends nothing when an id, body, query or watch index is invalid", async () => {
    const s = await scripted((_req, res) => json(res, 200, {}));
    const { client: c } = client(s.url);
    const cases: Array<[() => Promise<unknown>, string, string]> = [
      [() => c.getGame("NOT-A-UUID"), "game_id", "path of GET /cloud/games/{game_id}"],
      [() => c.getServer(GAME, ENV, "x"), "server_id", "path of GET"],
      [
        () => c.createServer(GAME, ENV, { ...SERVER_BODY, color: "red" } as never),
        "color",
        "request body of POST",
      ],
      [
        () => c.createServer(GAME, ENV, { ...SERVER_BODY, resources: { cpu: 0, memory: 1 } }),
        "resources.cpu",
        "request body",
      ],
      [
        () => c.deleteServer(GAME, ENV, GAME, { override_kill_timeout: 7_200_000 }),
        "override_kill_timeout",
        "query of DELETE",
      ],
      [() => c.listServers(GAME, ENV, { tags: { a: 1 as never } }), "tags.a", "query of GET"],
      [() => c.listServers(GAME, ENV, { cursor: "nope" }), "cursor", "query of GET"],
      [() => c.listBuilds(GAME, ENV, { tag: {} } as never), "tag", "query of GET"],
      [() => c.exportLobbyHistory(GAME, { query_start: -5, query_end: 1 }), "query_start", "request body"],
      [() => c.createPaymentPortalSession(GAME, { intent: "refund" as never }), "intent", "request body"],
      [() => c.getGroupBilling(GAME, { watchIndex: "latest" }), "", "watch_index of GET"],
    ];
    for (const [call, path, where] of cases) {
      const err = (await failure(call())) as GamehostValidationError;
      expect(err).toBeInstanceOf(GamehostValidationError);
      expect(err.where).toContain(where);
      expect(err.issues.map((i) => i.path)).toContain(path);
    }
    expect(s.seen).toHaveLength(0);
    expect(c.stats.requests).toBe(0);
  });

  it("accepts ids in any form the service parses and sends them canonical", async () => {
    const s = await scripted((_req, res) => json(res, 200, { servers: [] }));
    const { client: c } = client(s.url);
    await c.listServers(GAME.toUpperCase(), `{${ENV}}`);
    expect(s.seen[0]?.url.split("?")[0]).toBe(`/games/${GAME}/environments/${ENV}/servers`);
  });

  it("encodes list queries as the service expects", async () => {
    const s = await scripted((_req, res) => json(res, 200, { servers: [], builds: [] }));
    const { client: c } = client(s.url);
    await c.listServers(GAME, ENV, { tags: { a: "b c" }, include_destroyed: true, cursor: GAME });
    await c.listBuilds(GAME, ENV, { tags: { current: "true" } });
    const first = new URL(s.seen[0]!.url, s.url);
    expect(first.pathname).toBe(`/games/${GAME}/environments/${ENV}/servers`);
    expect(JSON.parse(first.searchParams.get("tags_json") ?? "")).toEqual({ a: "b c" });
    expect(first.searchParams.get("include_destroyed")).toBe("true");
    expect(first.searchParams.get("cursor")).toBe(GAME);
    const second = new URL(s.seen[1]!.url, s.url);
    expect(JSON.parse(second.searchParams.get("tags_json") ?? "")).toEqual({ current: "true" });
  });
});

describe("secrecy of the token", () => {
  it("keeps the token out of errors, their causes and events", async () => {
    const s = await scripted((req, res, n) => {
      if (n === 0) {
        // A service (or proxy) that echoes the Authorization header back.
        json(res, 401, { code: "API_UNAUTHORIZED", message: `bad header ${req.headers.authorization}` });
      } else if (n === 1) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`internal: ${req.headers.authorization}`);
      } else res.socket?.destroy();
    });
    const events: ClientEvent[] = [];
    const c = new GamehostClient({
      baseUrl: s.url,
      token: TOKEN,
      retry: { maxRetries: 0 },
      onEvent: (e) => events.push(e),
    });
    const port = await closedPort();
    const refused = new GamehostClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      retry: { maxRetries: 0 },
    });
    const errors = [
      await failure(c.getBootstrap()),
      await failure(c.createServer(GAME, ENV, SERVER_BODY)),
      await failure(c.createServer(GAME, ENV, SERVER_BODY)),
      await failure(refused.getBootstrap()),
      await failure(c.getGame("bad")),
    ];
    expect(errors.map((e) => (e as Error).name)).toEqual([
      "GamehostApiError",
      "GamehostApiError",
      "GamehostNetworkError",
      "GamehostNetworkError",
      "GamehostValidationError",
    ]);
    for (const err of errors) {
      const e = err as Error;
      expect(String(e)).not.toContain(TOKEN);
      expect(e.stack ?? "").not.toContain(TOKEN);
      expect(inspect(e, { depth: 8, showHidden: true })).not.toContain(TOKEN);
      expect(JSON.stringify(e)).not.toContain(TOKEN);
    }
    expect((errors[0] as GamehostApiError).serviceMessage).toContain("[redacted]");
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(inspect(c, { depth: 8, showHidden: true })).not.toContain(TOKEN);
  });
});

describe("answers as the service sends them", () => {
  const group = (bio: string) => ({
    bio,
    display_name: "Dev Group",
    external: { profile: "https://hub.example.gg/groups/x" },
    group_id: "00000000-0000-4000-8000-000000000001",
    is_current_identity_member: true,
    is_developer: true,
    member_count: 1,
    owner_identity_id: "00000000-0000-4000-8000-000000000002",
    publicity: "open",
  });

  it("lists the games of groups with the default empty bio and a bio of five newlines", async () => {
    const bios = ["", "line\n\n\n\n\nlast", "\n\n\n\n\n"];
    const s = await scripted((_req, res) =>
      json(res, 200, { games: [], groups: bios.map(group), watch: { index: "1723786501124" } }),
    );
    const answer = await client(s.url).client.listGames();
    expect(answer.groups.map((g) => g.bio)).toEqual(bios);
  });

  it("reads a game whose regions carry the deprecated universal_region", async () => {
    const game = {
      available_regions: [
        {
          provider: "linode",
          provider_display_name: "Linode",
          region_display_name: "Atlanta",
          region_id: "00000000-0000-4000-8000-000000000004",
          region_name_id: "us-east",
          universal_region: "unknown",
        },
      ],
      create_ts: "2024-08-16T05:35:01.123Z",
      developer_group_id: "00000000-0000-4000-8000-000000000001",
      display_name: "Space Race",
      game_id: GAME,
      name_id: "space-race",
      namespaces: [],
      total_player_count: 0,
      versions: [],
    };
    const s = await scripted((_req, res) => json(res, 200, { game, watch: { index: "1" } }));
    const answer = await client(s.url).client.getGame(GAME);
    expect(answer.game.available_regions[0]?.region_name_id).toBe("us-east");
  });
});
