/**
 * The two mitigations of docs/known-issues.md, each in a child process of its own (a regression spins and
 * grows: the child's heap is capped and it is killed after a timeout, so it cannot take the suite down).
 * The real-CLI scenarios (test/cli/failuresDataSources.test.ts) prove them where users meet the defects.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, requireFromRepo } from "../support/dist";

/** Runs `script` in a child `node` with a capped heap; its stdout's JSON, or the failure. */
function runBounded(script: string): {
  status: number | null;
  result?: Record<string, unknown>;
  output: string;
} {
  const child = spawnSync(process.execPath, ["--max-old-space-size=256", "-e", script], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 60_000,
    killSignal: "SIGKILL",
  });
  const output = `${child.stdout}\n${child.stderr}`;
  const line = child.stdout.split("\n").find((l) => l.startsWith("{"));
  return { status: child.status, output, ...(line ? { result: JSON.parse(line) } : {}) };
}

const ERRORS = JSON.stringify(path.join(REPO_ROOT, "dist", "api", "errors", "index.js"));
const SETTLED_APART = JSON.stringify(path.join(REPO_ROOT, "dist", "dynamic", "settledApart.js"));
const PULUMI = JSON.stringify(requireFromRepo.resolve("@pulumi/pulumi"));

describe("failures stay bounded where Node and the SDK are not", () => {
  it("a GamehostError with a source-mapped SDK frame inspects with `colors: true` at once, uncoloured", () => {
    const run = runBounded(`
      const { GamehostError } = require(${ERRORS});
      const error = new GamehostError("No game \\"space-rase\\" in the caller's games.");
      error.stack = error.message + "\\n    at applyHelperAsync (/p/node_modules/@pulumi/output.ts:516:25)";
      const text = require("node:util").inspect(error, { colors: true });
      console.log(JSON.stringify({ text }));
    `);
    expect(run.status, run.output).toBe(0);
    const text = String(run.result?.text);
    expect(text).toContain('No game "space-rase"');
    expect(text).toContain("node_modules/@pulumi/output.ts:516:25");
    // Unfixed, the colouring never ends: the child is killed (its timeout, its heap cap) and prints nothing.
    expect(text).not.toContain("\u001b[");
  });

  it("a throw after an await behind chained Outputs, with a debugger enabled, rejects at once", () => {
    // The shape of the quickstart: one lookup's fields feed ten more Outputs. Without settledApart, Node 20
    // takes seconds and hundreds of MB for one of them, and passes 1 GB with three.
    const run = runBounded(`
      const inspector = require("node:inspector");
      const session = new inspector.Session();
      session.connect();
      session.post("Debugger.enable", () => {
        const pulumi = require(${PULUMI});
        const { settledApart } = require(${SETTLED_APART});
        const lookup = async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error("no such game");
        };
        const start = process.cpuUsage();
        process.on("unhandledRejection", (error) => {
          const { user, system } = process.cpuUsage(start);
          console.log(JSON.stringify({ cpuMs: (user + system) / 1_000, message: error.message }));
          process.exit(0);
        });
        const env = pulumi.output({}).apply(() => settledApart(lookup));
        for (let i = 0; i < 10; i++) pulumi.all([env.a, env.b]).apply(() => 1);
      });
    `);
    expect(run.status, run.output).toBe(0);
    expect(run.result?.message).toBe("no such game");
    // The work it took, not the time: a loaded machine stretches the one, not the other. About 50 ms fixed;
    // without settledApart about 50 s (and 4 GB outside the capped heap).
    expect(Number(run.result?.cpuMs)).toBeLessThan(5_000);
  });
});
