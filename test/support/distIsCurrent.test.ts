import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { staleSource } from "./distIsCurrent";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A tree with src/<file>.ts and, when `emittedAt` is given, dist/<file>.js, at the given times (seconds). */
function tree(files: Record<string, { source: number; emitted?: number }>): string {
  root = mkdtempSync(path.join(os.tmpdir(), "gamehost-dist-"));
  for (const [name, at] of Object.entries(files)) {
    for (const [dir, ext, time] of [
      ["src", ".ts", at.source],
      ["dist", ".js", at.emitted],
    ] as const) {
      if (time === undefined) continue;
      const file = path.join(root, dir, `${name}${ext}`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, "");
      utimesSync(file, time, time);
    }
  }
  return root;
}

describe("the dist/ guard of the integration and e2e projects", () => {
  it("passes when every source has an emitted file at least as new", () => {
    expect(
      staleSource(tree({ index: { source: 100, emitted: 200 }, "kinds/a": { source: 150, emitted: 200 } })),
    ).toBe(undefined);
  });

  it("names the newest source the build has not seen, edited or new", () => {
    const at = tree({
      index: { source: 100, emitted: 200 },
      "kinds/edited": { source: 300, emitted: 200 },
      "kinds/added": { source: 400 },
      "kinds/older": { source: 250, emitted: 200 },
    });
    expect(staleSource(at)).toBe(path.join("src", "kinds", "added.ts"));
  });

  it("names a file the build copies as it is (the dashboard's page) when its copy is older or missing", () => {
    const at = tree({ index: { source: 100, emitted: 200 } });
    const page = path.join(at, "src", "emulator", "dashboard", "static", "app.mjs");
    const copy = path.join(at, "dist", "emulator", "dashboard", "static", "app.mjs");
    for (const [file, time] of [
      [page, 300],
      [copy, 200],
    ] as const) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, "");
      utimesSync(file, time, time);
    }
    expect(staleSource(at)).toBe(path.relative(at, page));
    rmSync(copy);
    expect(staleSource(at)).toBe(path.relative(at, page));
    writeFileSync(copy, "");
    expect(staleSource(at)).toBe(undefined);
  });
});
