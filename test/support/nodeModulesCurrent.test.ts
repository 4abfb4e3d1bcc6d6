import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockMismatch } from "./nodeModulesCurrent";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

type Entries = Record<string, { version?: string; optional?: boolean; link?: boolean }>;

/** A tree with package-lock.json and, when given, what npm last installed (node_modules/.package-lock.json). */
function tree(locked: Entries, installed?: Entries): string {
  root = mkdtempSync(path.join(os.tmpdir(), "gamehost-lock-"));
  const lock = (packages: Entries) =>
    JSON.stringify({ lockfileVersion: 3, packages: { "": {}, ...packages } });
  writeFileSync(path.join(root, "package-lock.json"), lock(locked));
  if (installed) {
    mkdirSync(path.join(root, "node_modules"));
    writeFileSync(path.join(root, "node_modules", ".package-lock.json"), lock(installed));
  }
  return root;
}

describe("the node_modules/ guard of every project", () => {
  it("passes when npm installed what the lockfile locks (optional packages of other platforms aside)", () => {
    const locked = {
      "node_modules/zod": { version: "4.6.7" },
      "node_modules/@esbuild/darwin-arm64": { version: "0.28.2", optional: true },
    };
    expect(lockMismatch(tree(locked, { "node_modules/zod": { version: "4.6.7" } }))).toBe(undefined);
  });

  it("names a package installed at another version than the lockfile's, or not installed", () => {
    const locked = { "node_modules/undici": { version: "7.30.2" }, "node_modules/zod": { version: "4.7.0" } };
    expect(
      lockMismatch(
        tree(locked, {
          "node_modules/undici": { version: "7.30.2" },
          "node_modules/zod": { version: "4.6.7" },
        }),
      ),
    ).toBe("zod 4.6.7 is installed, package-lock.json has 4.7.0");
    rmSync(root, { recursive: true, force: true });
    expect(lockMismatch(tree(locked, { "node_modules/zod": { version: "4.7.0" } }))).toBe(
      "undici is not installed, package-lock.json has 7.30.2",
    );
  });

  it("says nothing where npm left no record of its install (another package manager)", () => {
    expect(lockMismatch(tree({ "node_modules/zod": { version: "4.7.0" } }))).toBe(undefined);
  });
});
