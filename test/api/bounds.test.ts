/**
 * Every wait and every answer of a call is bounded (issue 18 §3): a total deadline per call, body
 * and retries included; Retry-After waits that fit it; a size cap on answers read into memory.
 */
import { describe, expect, it, vi } from "vitest";
import { type ClientOptions, GamehostClient } from "../../src/api/client";
import {
  GamehostApiError,
  GamehostDeadlineError,
  GamehostNetworkError,
  GamehostResponseTooLargeError,
} from "../../src/api/errors";
import { failure } from "../support/failure";
import { BOOTSTRAP, json, useScriptedServers } from "./helpers/scriptedServer";

const scripted = useScriptedServers();

const client = (url: string, extra: ClientOptions = {}) =>
  new GamehostClient({ baseUrl: url, token: "t", retry: { minDelayMs: 10, maxDelayMs: 40 }, ...extra });

/** Answers headers at once, then the body one byte per `everyMs`: never idle long enough for bodyMs. */
function trickle(everyMs: number) {
  return (_req: unknown, res: import("node:http").ServerResponse) => {
    const body = JSON.stringify(BOOTSTRAP);
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(body[i++]);
      if (i === body.length) {
        clearInterval(timer);
        res.end();
      }
    }, everyMs);
  };
}

describe("total deadline of a call", () => {
  it("ends a call whose body trickles in, naming the deadline and the setting to raise", async () => {
    const s = await scripted(trickle(20));
    const c = client(s.url, { callTimeoutMs: 300, timeouts: { bodyMs: 2_000, headersMs: 2_000 } });
    const err = await failure(c.getBootstrap());
    expect(err).toBeInstanceOf(GamehostDeadlineError);
    expect(err).toBeInstanceOf(GamehostNetworkError);
    const deadline = err as GamehostDeadlineError;
    expect(deadline.deadlineMs).toBe(300);
    expect(deadline.mayHaveCommitted).toBe(true);
    expect(deadline.message).toBe(
      "The call did not finish within its deadline of 300 ms, retries and the answer's body included: retry, or raise gamehost:callTimeoutMs (GAMEHOST_CALL_TIMEOUT_MS). [GET /cloud/bootstrap: no complete answer within 300 ms]",
    );
    expect(s.seen).toHaveLength(1);
  });

  it("ends a call whose headers never come, before the headers timeout", async () => {
    const s = await scripted(() => undefined);
    const c = client(s.url, { callTimeoutMs: 200, maxRetries: 0, timeouts: { headersMs: 10_000 } });
    const err = await failure(c.getBootstrap());
    expect(err).toBeInstanceOf(GamehostDeadlineError);
  });

  it("leaves the CSV export stream to the caller: no deadline on it, the caller's signal still ends it", async () => {
    // The stream stays open for longer than the call's deadline after it has opened; the deadline is wide so
    // that opening fits it on a loaded machine (a 100-ms deadline once failed there).
    const DEADLINE_MS = 1_000;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let requests = 0;
    const s = await scripted((_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      res.write("lobby_id\n");
      // The first stream ends when released; the second never does (only the caller's abort ends it).
      if (++requests === 1) void released.then(() => res.end("1\n"));
    });
    const c = client(s.url, { callTimeoutMs: DEADLINE_MS });
    const whole = await c.openExport(`${s.url}/uploads/u1/export.csv`);
    setTimeout(release, DEADLINE_MS + 200);
    let text = "";
    for await (const chunk of whole) text += String(chunk);
    expect(text).toBe("lobby_id\n1\n");

    const controller = new AbortController();
    const cut = await c.openExport(`${s.url}/uploads/u1/export.csv`, { signal: controller.signal });
    controller.abort(new Error("mine"));
    await expect(
      (async () => {
        for await (const _ of cut) {
          // Read until the abort ends the stream.
        }
      })(),
    ).rejects.toThrow();
  });

  it("reads callTimeoutMs from GAMEHOST_CALL_TIMEOUT_MS", async () => {
    const s = await scripted(trickle(20));
    vi.stubEnv("GAMEHOST_CALL_TIMEOUT_MS", "200");
    const c = client(s.url, { timeouts: { bodyMs: 2_000 } });
    expect(await failure(c.getBootstrap())).toBeInstanceOf(GamehostDeadlineError);
  });

  it("makes no retry whose wait cannot fit the deadline: the last answer comes back at once", async () => {
    const s = await scripted((_req, res) =>
      json(res, 503, { code: "ERROR", message: "busy" }, { "retry-after": "1" }),
    );
    const c = client(s.url, { callTimeoutMs: 500 });
    const err = await failure(c.getBootstrap());
    expect(err).toBeInstanceOf(GamehostApiError);
    expect((err as GamehostApiError).status).toBe(503);
    expect(s.seen).toHaveLength(1);
  });

  it("keeps the caller's abort reason when the caller aborts first", async () => {
    const s = await scripted(trickle(20));
    const c = client(s.url, { callTimeoutMs: 5_000 });
    const reason = new Error("mine");
    const controller = new AbortController();
    const pending = failure(c.getBootstrap({ signal: controller.signal }));
    setTimeout(() => controller.abort(reason), 50);
    expect(await pending).toBe(reason);
  });
});

describe("Retry-After on idempotent retries", () => {
  it("does not retry at once when a date in 2100 would overflow a timer, however large the budget", async () => {
    const s = await scripted((_req, res) =>
      json(
        res,
        429,
        { code: "API_RATE_LIMIT", message: "slow down" },
        { "retry-after": "Fri, 01 Jan 2100 00:00:00 GMT" },
      ),
    );
    const c = client(s.url, { callTimeoutMs: 0, retry: { maxTotalDelayMs: 1e13 } });
    const err = (await failure(c.getBootstrap())) as GamehostApiError;
    expect(err).toBeInstanceOf(GamehostApiError);
    expect(err.retryAfterMs).toBe(Date.UTC(2100, 0, 1));
    expect(err.message).toContain("Rate limited: retry after 2100-01-01T00:00:00.000Z");
    expect(s.seen).toHaveLength(1);
  });

  it("answers a Retry-After past any date with a rate-limit error, not a crash", async () => {
    const s = await scripted((_req, res) =>
      json(res, 429, { code: "API_RATE_LIMIT", message: "slow down" }, { "retry-after": "9".repeat(25) }),
    );
    const err = (await failure(client(s.url).getBootstrap())) as GamehostApiError;
    expect(err).toBeInstanceOf(GamehostApiError);
    expect(err.retryAfterMs).toBeUndefined();
    expect(err.message).toContain("Rate limited: retry later");
    expect(s.seen).toHaveLength(1);
  });
});

describe("size cap on answers", () => {
  const big = (bytes: number) => JSON.stringify({ ...BOOTSTRAP, pad: "x".repeat(bytes) });

  it("refuses an answer whose declared length passes the cap, naming the setting", async () => {
    const s = await scripted((_req, res) => {
      const body = big(200_000);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
      res.end(body);
    });
    const err = await failure(client(s.url, { maxResponseBytes: 100_000 }).getBootstrap());
    expect(err).toBeInstanceOf(GamehostResponseTooLargeError);
    expect((err as GamehostResponseTooLargeError).limitBytes).toBe(100_000);
    expect((err as Error).message).toBe(
      "The answer is larger than 100000 bytes, the cap on answers: raise gamehost:maxResponseBytes (GAMEHOST_MAX_RESPONSE_BYTES) if it is genuine. [GET /cloud/bootstrap: answer over 100000 bytes]",
    );
  });

  it("refuses a short answer already received whole, and nothing is thrown after (the program went on)", async () => {
    // An answer that arrived whole before it was refused: the body dropped unread used to end with undici's
    // RequestAbortedError as an 'error' event nobody heard, an uncaught exception that ended the user's
    // program (`gamehost:maxResponseBytes` 10: "Running program … failed with an unhandled exception").
    const uncaught: unknown[] = [];
    const heard = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", heard);
    try {
      const s = await scripted((_req, res) => {
        const body = big(2_000);
        res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
        res.end(body);
      });
      const err = await failure(client(s.url, { maxResponseBytes: 1_000 }).getBootstrap());
      expect(err).toBeInstanceOf(GamehostResponseTooLargeError);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", heard);
    }
  });

  it("stops reading a chunked answer once it passes the cap", async () => {
    let written = 0;
    const s = await scripted((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = "x".repeat(16_384);
      // Far more than the cap, written as the client reads: it must stop long before the end.
      const pump = () => {
        while (written < 50_000_000 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const err = await failure(client(s.url, { maxResponseBytes: 100_000 }).getBootstrap());
    expect(err).toBeInstanceOf(GamehostResponseTooLargeError);
    expect(written).toBeLessThan(10_000_000);
  });

  it("caps error answers too", async () => {
    const s = await scripted((_req, res) => {
      res.writeHead(500, { "content-type": "text/html" });
      res.end("x".repeat(50_000));
    });
    const err = await failure(client(s.url, { maxRetries: 0, maxResponseBytes: 1_000 }).getBootstrap());
    expect(err).toBeInstanceOf(GamehostResponseTooLargeError);
  });

  it("lets the CSV export download stream past the cap", async () => {
    const rows = 5_000;
    const s = await scripted((_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      for (let i = 0; i < rows; i++) res.write(`lobby-${i},2026-11-24T10:00:00Z\n`);
      res.end();
    });
    const c = client(s.url, { maxResponseBytes: 1_000 });
    const stream = await c.openExport(`${s.url}/uploads/u1/export.csv?X-Signature=abc`);
    let bytes = 0;
    for await (const chunk of stream) bytes += (chunk as Buffer).length;
    expect(bytes).toBeGreaterThan(100_000);
  });
});
