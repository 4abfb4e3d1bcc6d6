/**
 * `makeDirectory` (src/emulator/makeDirectory.ts): `mkdir -p` that makes every missing level and accepts what
 * exists. Where a level cannot be made (under /proc) it fails instead of looping as Node's recursive mode does:
 * test/emulator/cli.test.ts checks that in a child process with a time limit, since a loop here would hold the
 * shared unit worker for good.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, expect, it } from "vitest";
import { makeDirectory } from "../../src/emulator/makeDirectory";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

it("makes every missing level, and is content with a folder that exists", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "gamehost-mkdir-"));
  roots.push(root);
  const deep = path.join(root, "a", "b", "c");
  makeDirectory(deep);
  expect(statSync(deep).isDirectory()).toBe(true);
  makeDirectory(deep);
  makeDirectory(root);
  expect(statSync(deep).isDirectory()).toBe(true);
});
