/**
 * The package's bins run from a clone as they do from an install: a project that links the clone (`file:`,
 * `npm link`, the examples) runs dist/ as the build left it, and npm sets no mode there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";

const { bin } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};

describe("the build", () => {
  it.each(Object.entries(bin))("leaves the bin %s (%s) executable", (_name, target) => {
    const { mode } = fs.statSync(path.join(REPO_ROOT, target));
    expect(mode & 0o111, `${target} mode ${mode.toString(8)}`).toBe(0o111);
  });
});
