/**
 * Start-up that every `preview` and `up` pays (issue 24): loading `pulumi-gamehost` or its native face in a
 * program builds no zod schema and loads no HTTP client, and the data sources still load them when called.
 * Each case is a fresh `node` process over the compiled package, as a program loads it.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..", "..");

/** Runs `script` in a fresh node process at the repository root; its stdout, parsed as JSON. */
function inFreshNode(script: string): unknown {
  const run = spawnSync(process.execPath, ["-e", script], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: undefined },
    timeout: 60_000,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

/** Which of the heavy modules a process has loaded, by a short name. */
const LOADED = `(() => {
  const files = Object.keys(require.cache);
  const has = (part) => files.some((f) => f.includes(part));
  return {
    zod: has("/node_modules/zod/"),
    undici: has("/node_modules/undici/"),
    client: has("/dist/api/client.js"),
    functions: has("/dist/kinds/functions.js"),
    emulator: has("/dist/emulator/"),
  };
})()`;

const NOTHING_HEAVY = { zod: false, undici: false, client: false, functions: false, emulator: false };

describe("loading the package in a program", () => {
  it.each(["pulumi-gamehost", "pulumi-gamehost/native"])(
    "%s loads no zod, no undici, no emulator",
    (specifier) => {
      const seen = inFreshNode(`
      const gamehost = require(${JSON.stringify(specifier)});
      const faces = { Fleet: typeof gamehost.Fleet, getGames: typeof gamehost.getGames };
      process.stdout.write(JSON.stringify({ faces, loaded: ${LOADED} }));
    `);
      expect(seen).toEqual({ faces: { Fleet: "function", getGames: "function" }, loaded: NOTHING_HEAVY });
    },
  );

  it("the data-source table loads on first use and is the table the plugin serves", () => {
    const seen = inFreshNode(`
      const { FUNCTIONS } = require("./dist/kinds/lazyFunctions.js");
      const before = ${LOADED};
      const names = Object.keys(FUNCTIONS);
      const real = require("./dist/kinds/functions.js").FUNCTIONS;
      process.stdout.write(JSON.stringify({
        before,
        after: ${LOADED},
        same: names.length > 0 && names.every((n) => FUNCTIONS[n] === real[n]) && names.join() === Object.keys(real).join(),
        has: "getGames" in FUNCTIONS && !("nope" in FUNCTIONS),
        secret: FUNCTIONS.getBootstrap.secret === real.getBootstrap.secret,
      }));
    `);
    expect(seen).toEqual({
      before: NOTHING_HEAVY,
      after: { ...NOTHING_HEAVY, zod: true, functions: true },
      same: true,
      has: true,
      secret: true,
    });
  });
});

describe("the plugin's handlers", () => {
  it("load no undici until a request is sent (a preview with no change sends none)", () => {
    const seen = inFreshNode(`
      const { GamehostProvider } = require("./dist/plugin/provider.js");
      const methods = Object.keys(new GamehostProvider().service()).length;
      const before = ${LOADED};
      const { GamehostClient } = require("./dist/api/client.js");
      new GamehostClient({ baseUrl: "http://127.0.0.1:9", token: "t", maxRetries: 0 }).getBootstrap().then(
        () => { throw new Error("expected no answer from port 9"); },
        (error) => process.stdout.write(JSON.stringify({
          methods: methods > 0,
          before: before.undici,
          after: ${LOADED}.undici,
          error: error.name,
        })),
      );
    `);
    expect(seen).toEqual({ methods: true, before: false, after: true, error: "GamehostNetworkError" });
  });
});
