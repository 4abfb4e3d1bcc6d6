// The edit loop's early word on a stale schema: after a change to a kind's zod schema or a description without
// `npm run generate`, plugin/schema.json no longer matches what the sources describe. In-process and quick, so it
// runs in the unit project; test/plugin/generated.test.ts checks every generated file, in integration.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { packageSchema } from "../../src/plugin/schema";

const REPO_ROOT = path.resolve(__dirname, "..", "..");

describe("plugin/schema.json", () => {
  it("is what the kinds' and data sources' zod schemas describe", () => {
    const committed = JSON.parse(readFileSync(path.join(REPO_ROOT, "plugin", "schema.json"), "utf8"));
    expect(committed, "plugin/schema.json is stale: run `npm run generate`").toEqual(packageSchema());
  });
});
