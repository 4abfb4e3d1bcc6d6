// What the package schema determines is generated (scripts/generate.mjs): plugin/schema.json, the
// TypeScript types both faces use (src/types/generated) and the reference pages (docs/reference). This
// fails as soon as a zod schema or description changes without `npm run generate`.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";

describe("generated files", () => {
  it("match the package schema the plugin serves", () => {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts", "generate.mjs"), "--check"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
