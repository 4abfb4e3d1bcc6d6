/**
 * `npm run build` (scripts/build.mjs) while something runs from the same tree: tests, `pulumi up` and provider
 * hosts load dist/ during a rebuild, so dist/ must stay a whole tree all along (the old one, then the new
 * one), and the new tree must hold nothing of a removed source. Run in a copy of the tree holding the repo's
 * dist/ as the "old" build, so the repo's own dist/, which other test files load, is left alone.
 */
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";

let tree: string;
afterEach(() => rmSync(tree, { recursive: true, force: true }));

/** A copy of what the build reads, with the repo's dist/ and in it the output of a source since removed. */
function treeWithOldBuild(): string {
  tree = mkdtempSync(path.join(os.tmpdir(), "gamehost-build-"));
  for (const part of ["package.json", "tsconfig.json", "src", "dist", "scripts/build.mjs", "scripts/lib"]) {
    cpSync(path.join(REPO_ROOT, part), path.join(tree, part), { recursive: true });
  }
  // The bin targets the build makes executable.
  mkdirSync(path.join(tree, "plugin"));
  writeFileSync(path.join(tree, "plugin", "pulumi-resource-gamehost"), "");
  symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(tree, "node_modules"), "dir");
  writeFileSync(path.join(tree, "dist", "removedSource.js"), "exports.removed = true;\n");
  return tree;
}

/** Runs the build in `at`; resolves to its exit code once it has exited. */
function runBuild(at: string): { exited: Promise<number | null>; done: () => boolean; output: () => string } {
  const child = spawn(process.execPath, [path.join(at, "scripts", "build.mjs")], { cwd: at });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (output += chunk));
  let finished = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      finished = true;
      resolve(code);
    }),
  );
  return { exited, done: () => finished, output: () => output };
}

const stagingLeft = (at: string) => readdirSync(at).filter((name) => name.startsWith(".dist-next-"));

describe("npm run build swaps a fresh dist/ in whole", () => {
  it("keeps dist/index.js readable and requirable all through a rebuild, and drops a removed source's output", async () => {
    const at = treeWithOldBuild();
    writeFileSync(path.join(at, "src", "addedSource.ts"), "export const added = 1;\n");
    const index = path.join(at, "dist", "index.js");
    const requireInTree = createRequire(path.join(at, "package.json"));
    const distPrefix = path.join(at, "dist") + path.sep;

    const build = runBuild(at);
    const missed: string[] = [];
    let reads = 0;
    let requires = 0;
    let lastRequire = 0;
    while (!build.done()) {
      try {
        if (!readFileSync(index, "utf8").includes("exports.")) missed.push(`read ${reads}: partial index.js`);
        reads++;
        if (Date.now() - lastRequire > 500) {
          // A fresh load each time, as a new provider host or test worker would make.
          for (const id of Object.keys(requireInTree.cache)) {
            if (id.startsWith(distPrefix)) delete requireInTree.cache[id];
          }
          const loaded = requireInTree(index) as { Server?: unknown };
          if (typeof loaded.Server !== "function") missed.push(`require ${requires}: no Server`);
          requires++;
          lastRequire = Date.now();
        }
      } catch (error) {
        missed.push(`read ${reads}: ${(error as Error).message.split("\n")[0]}`);
        if (missed.length > 20) break;
      }
      // A few milliseconds apart: the poll must not take the build's CPU.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }

    expect(await build.exited, build.output()).toBe(0);
    expect(missed).toEqual([]);
    // The poll ran through the build, not only after it.
    expect(reads).toBeGreaterThan(100);
    expect(requires).toBeGreaterThan(1);
    expect(existsSync(path.join(at, "dist", "addedSource.js")), "the new tree is in place").toBe(true);
    expect(existsSync(path.join(at, "dist", "removedSource.js")), "no output of a removed source").toBe(
      false,
    );
    expect(stagingLeft(at)).toEqual([]);
  });

  it("leaves dist/ as it was when the compile fails, and clears what a killed build left", async () => {
    const at = treeWithOldBuild();
    const before = readFileSync(path.join(at, "dist", "index.js"), "utf8");
    writeFileSync(path.join(at, "src", "mistyped.ts"), 'export const port: number = "8080";\n');
    // A pid no process has (above the kernel's largest pid_max, 2^22).
    mkdirSync(path.join(at, ".dist-next-99999999"));
    writeFileSync(path.join(at, ".dist-next-99999999", "index.js"), "half");

    const build = runBuild(at);
    expect(await build.exited).toBe(1);
    expect(build.output()).toContain("mistyped.ts");
    expect(readFileSync(path.join(at, "dist", "index.js"), "utf8")).toBe(before);
    expect(existsSync(path.join(at, "dist", "removedSource.js")), "the old tree, untouched").toBe(true);
    expect(existsSync(path.join(at, "dist", "mistyped.js"))).toBe(false);
    expect(stagingLeft(at)).toEqual([]);
  });
});
