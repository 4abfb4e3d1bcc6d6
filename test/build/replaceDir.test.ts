/**
 * scripts/lib/replace-dir.mjs, the swap behind `npm run build` and the harness's build, on small trees (the
 * build itself, with tsc, is replaceDist.test.ts): the target becomes what `fill` wrote and nothing else, a
 * failing `fill` leaves it as it was, and both ways of swapping exchange two folders whole.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exchange, replaceDir, swapByRenames } from "../../scripts/lib/replace-dir.mjs";

let parent: string;
let target: string;
beforeEach(() => {
  parent = mkdtempSync(path.join(os.tmpdir(), "gamehost-replace-"));
  target = path.join(parent, "dist");
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

/** A folder `dir` holding `files` (name → text). */
function folder(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
}

const contents = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(path.join(dir, name), "utf8")]));

describe("replaceDir", () => {
  it("leaves the target holding what fill wrote and nothing of the old tree, and no staging folder", () => {
    folder(target, { "index.js": "old", "removed.js": "stale" });
    replaceDir(target, (staging) => {
      // The staging folder starts empty, beside the target (source maps' relative paths hold).
      expect(readdirSync(staging)).toEqual([]);
      expect(path.dirname(staging)).toBe(parent);
      folder(staging, { "index.js": "new", "added.js": "fresh" });
    });
    expect(contents(target)).toEqual({ "index.js": "new", "added.js": "fresh" });
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("creates the target when there is none", () => {
    replaceDir(target, (staging) => folder(staging, { "index.js": "first" }));
    expect(contents(target)).toEqual({ "index.js": "first" });
  });

  it("keeps the target as it was when fill throws, and removes the partial tree", () => {
    folder(target, { "index.js": "old" });
    expect(() =>
      replaceDir(target, (staging) => {
        folder(staging, { "index.js": "half" });
        throw new Error("compile failed");
      }),
    ).toThrow("compile failed");
    expect(contents(target)).toEqual({ "index.js": "old" });
    expect(readdirSync(parent)).toEqual(["dist"]);
  });

  it("removes the staging folder of a build that was killed, not one of a live process", () => {
    folder(target, { "index.js": "old" });
    // A pid above the kernel's largest pid_max (2^22), and this process's parent, which is alive.
    folder(path.join(parent, ".dist-next-99999999"), { "index.js": "half" });
    folder(path.join(parent, `.dist-next-${process.ppid}`), { "index.js": "being written" });
    replaceDir(target, (staging) => folder(staging, { "index.js": "new" }));
    expect(readdirSync(parent).sort()).toEqual([`.dist-next-${process.ppid}`, "dist"]);
  });
});

describe.each([
  ["in one step", exchange],
  ["by renames (no Python)", swapByRenames],
])("swapping two folders %s", (_, swap) => {
  it("exchanges them whole and leaves nothing else", () => {
    const a = path.join(parent, "a");
    folder(a, { "x.js": "from a" });
    folder(target, { "y.js": "from b" });
    swap(a, target);
    expect(contents(target)).toEqual({ "x.js": "from a" });
    expect(contents(a)).toEqual({ "y.js": "from b" });
    expect(readdirSync(parent).sort()).toEqual(["a", "dist"]);
    expect(existsSync(`${a}.old`)).toBe(false);
  });
});
