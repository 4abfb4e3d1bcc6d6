/**
 * Error text stays small whatever the answer (issue 28 §4): a validation error lists a few fields and
 * counts the rest, every message is within MAX_MESSAGE_BYTES, the plugin's gRPC errors stay within it
 * too (a status past about 70 KiB was lost and wedged Node gRPC clients), and a 15 MB invalid answer is
 * refused in seconds with a bounded RSS, under a watchdog.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import type { ServiceError } from "@grpc/grpc-js";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostApiError, GamehostError, GamehostValidationError } from "../../src/api/errors";
import { describeIssues } from "../../src/api/issues";
import { boundText, MAX_KEPT_ISSUES, MAX_MESSAGE_BYTES } from "../../src/api/textBounds";
import { grpcError } from "../../src/plugin/errors";
import { grpc, provproto, structproto } from "../../src/plugin/proto";
import { GamehostProvider } from "../../src/plugin/provider";
import { serveInProcess } from "../plugin/inProcess";
import { REPO_ROOT } from "../support/dist";
import { failure } from "../support/failure";
import { json, useScriptedServers } from "./helpers/scriptedServer";

const scripted = useScriptedServers();
const bytes = (text: string) => Buffer.byteLength(text);

/** 2,000 invalid games in about 32 KB: each lacks every required field but its id. */
function invalidGames(count = 2_000) {
  return {
    games: Array.from({ length: count }, (_, i) => ({ game_id: `g${i}`.padEnd(6, "-") })),
    groups: [],
    watch: { index: "1" },
  };
}

describe("boundText", () => {
  it("keeps any text within the bound, whole characters only, its start and end kept", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 1_500 }),
        fc.integer({ min: 120, max: 2_000 }),
        (text, max) => {
          const bounded = boundText(text, max);
          expect(bytes(bounded)).toBeLessThanOrEqual(max);
          if (bytes(text) <= max) {
            expect(bounded).toBe(text);
            return;
          }
          // No character is split: a well-formed text stays well-formed.
          if (text === Buffer.from(text).toString()) expect(Buffer.from(bounded).toString()).toBe(bounded);
          const [head, tail] = bounded.split(/ … \[[\d,]+ characters in all; the middle is left out\] … /);
          expect(text.startsWith(head ?? "\u0000")).toBe(true);
          expect(text.endsWith(tail ?? "\u0000")).toBe(true);
        },
      ),
    );
  });

  it("bounds every GamehostError's message and stack, also one set later", () => {
    const error = new GamehostError(`cause ${"x".repeat(1_000_000)} [GET /cloud/games: 400 CODE]`);
    expect(bytes(error.message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(error.message).toMatch(
      /^cause x+ … \[1,000,035 characters in all; the middle is left out\] … x+ \[GET \/cloud\/games: 400 CODE\]$/,
    );
    expect(bytes(error.stack ?? "")).toBeLessThan(MAX_MESSAGE_BYTES + 2_000);
    error.message = "y".repeat(100_000);
    expect(bytes(error.message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });
});

describe("a validation error", () => {
  it("lists five fields and counts the rest", () => {
    const issues = Array.from({ length: 2_002 }, (_, i) => ({ path: `games.${i}`, message: "is wrong" }));
    expect(describeIssues(issues)).toBe(
      "games.0: is wrong; games.1: is wrong; games.2: is wrong; games.3: is wrong; games.4: is wrong; …and 1,997 more",
    );
    const error = new GamehostValidationError("response of GET /cloud/games", issues);
    expect(error.issues).toHaveLength(MAX_KEPT_ISSUES);
    expect(error.issueCount).toBe(2_002);
  });

  it("of a 32 KB answer of 2,000 invalid games: a few fields named, the rest counted, small", async () => {
    const body = invalidGames();
    expect(JSON.stringify(body).length).toBeGreaterThan(30_000);
    const s = await scripted((_req, res) => json(res, 200, body));
    const error = await failure(new GamehostClient({ baseUrl: s.url, token: "tok-abcdefgh" }).listGames());
    expect(error).toBeInstanceOf(GamehostValidationError);
    const e = error as GamehostValidationError;
    expect(e.message).toMatch(
      /^Invalid response of GET \/cloud\/games: games\.0\.developer: is required; .*; …and 9,995 more$/,
    );
    expect(e.issueCount).toBe(10_000);
    expect(e.issues).toHaveLength(MAX_KEPT_ISSUES);
    expect(bytes(e.message)).toBeLessThan(1_000);
  });

  it("of an answer with a megabyte field name: the path is cut, the message bounded", async () => {
    const key = `k${"€".repeat(400_000)}`;
    const s = await scripted((_req, res) =>
      json(res, 200, { games: [], groups: [{ [key]: 1 }], watch: { index: "1" } }),
    );
    const error = await failure(new GamehostClient({ baseUrl: s.url, token: "tok-abcdefgh" }).listGames());
    expect(error).toBeInstanceOf(GamehostValidationError);
    expect(bytes((error as Error).message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });

  it("of a 15 MB invalid answer: refused in seconds, message small, RSS bounded (under a watchdog)", {
    timeout: 120_000,
  }, async () => {
    const HEAP_MB = 768;
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_MB}`,
        path.join(__dirname, "helpers", "hugeInvalidAnswer.cjs"),
        REPO_ROOT,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    // The watchdog: a runaway child is killed long before it could take the machine down.
    const killer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(killer);
    expect(code, `child failed:\n${err}`).toBe(0);
    const seen = JSON.parse(out) as {
      bodyBytes: number;
      name: string;
      message: string;
      messageBytes: number;
      ms: number;
      maxRssBytes: number;
    };
    console.info(
      `15 MB invalid answer: ${seen.ms} ms, peak RSS ${Math.round(seen.maxRssBytes / 1e6)} MB, message ${seen.messageBytes} B`,
    );
    expect(seen.bodyBytes).toBeGreaterThan(15_000_000);
    expect(seen.name).toBe("GamehostValidationError");
    expect(seen.message).toMatch(
      /^Invalid response of GET \/cloud\/games: games\.0: Invalid input: expected object, received number; checking stopped at the first problem: the value has 15,728,\d{3} characters$/,
    );
    expect(seen.messageBytes).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    // Before: 377 MB of message, 2.8 GB RSS. Now: the body, its parse, and little else.
    expect(seen.maxRssBytes).toBeLessThan(600 * 1024 * 1024);
  });
});

describe("the plugin's gRPC errors", () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });

  it("bound any error's message, ours or not, and a partial create's reasons", () => {
    const huge = "z".repeat(2_000_000);
    for (const error of [
      new Error(huge),
      huge,
      new GamehostApiError({ method: "GET", path: "/p", status: 500, code: huge, message: huge }),
    ]) {
      const answer = grpcError(error);
      expect(bytes(answer.details ?? "")).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      expect(bytes(answer.message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    }
  });

  it("carry the cause of a 2,000-invalid-games answer over real gRPC, and the next call still works", async () => {
    const s = await scripted((req, res) => {
      if (req.url.startsWith("/cloud/bootstrap"))
        return json(res, 200, {
          cluster: "oss",
          access: "private",
          origins: { hub: "http://h" },
          captcha: {},
          login_methods: { access_token: true, email: false },
        });
      return json(res, 200, invalidGames());
    });
    const client = await serveInProcess(
      new GamehostProvider(),
      { baseUrl: s.url, token: "tok-abcdefgh", maxRetries: "0" },
      (stop) => cleanup.push(stop),
    );
    const invoke = (tok: string) =>
      new Promise<ServiceError | null>((resolve) => {
        const req = new provproto.InvokeRequest();
        req.setTok(tok);
        req.setArgs(structproto.Struct.fromJavaScript({}));
        client.invoke(req, new grpc.Metadata(), { deadline: Date.now() + 20_000 }, (e) => resolve(e));
      });
    const error = await invoke("gamehost:index:getGames");
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(
      /Invalid response of GET \/cloud\/games: games\.0\.developer: .*…and 9,995 more/,
    );
    expect(bytes(error?.details ?? "")).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    // Not wedged: the connection answers the next call.
    expect(await invoke("gamehost:index:getBootstrap")).toBeNull();
  });
});
