/** The suite's file order (test/support/longestFirst.mts): what a fresh clone and a contributor's loop run first. */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import LongestFirstSequencer from "./longestFirst.mts";

const ROOT = path.resolve(__dirname, "..", "..");
const RECORDED = JSON.parse(fs.readFileSync(path.join(__dirname, "fileDurations.json"), "utf8")) as Record<
  string,
  number
>;

/** A file of a project of a group, as Vitest hands the sequencer its specifications. */
function spec(file: string, project = "integration", groupOrder = 0): TestSpecification {
  return {
    moduleId: path.join(ROOT, file),
    project: { name: project, config: { sequence: { groupOrder } } },
  } as unknown as TestSpecification;
}

/** A sequencer over a Vitest whose cache holds `cached` (key `<project>:<file>` → the last run's result). */
function sequencer(
  cached: Record<string, { duration: number; failed: boolean }> = {},
): LongestFirstSequencer {
  const ctx = {
    config: { root: ROOT },
    cache: { getFileTestResults: (key: string) => cached[key] },
  } as unknown as Vitest;
  return new LongestFirstSequencer(ctx);
}

const files = (specs: TestSpecification[]) => specs.map((s) => path.relative(ROOT, s.moduleId));

describe("the suite's file order", () => {
  it("on a fresh clone: the recorded longest first across projects, never-timed files before all", async () => {
    const campaign = "test/faults/campaign.dynamic.test.ts";
    const short = "test/api/case.test.ts";
    const unit = "test/api/client.test.ts";
    expect(RECORDED[campaign]).toBeGreaterThan(RECORDED[unit] ?? Number.POSITIVE_INFINITY);
    expect(RECORDED[unit]).toBeGreaterThan(RECORDED[short] ?? Number.POSITIVE_INFINITY);
    const sorted = await sequencer().sort([
      spec(short, "unit"),
      spec(unit, "unit"),
      spec("test/never/timed.test.ts"),
      spec(campaign),
    ]);
    expect(files(sorted)).toEqual(["test/never/timed.test.ts", campaign, unit, short]);
  });

  it("groups stay in their order; within one, the last local run's durations and failures come first", async () => {
    const sorted = await sequencer({
      "integration:test/a.test.ts": { duration: 1_000, failed: false },
      "integration:test/b.test.ts": { duration: 9_000, failed: false },
      "integration:test/c.test.ts": { duration: 10, failed: true },
    }).sort([
      spec("test/cli/quickstart.test.ts", "e2e", 1),
      spec("test/a.test.ts"),
      spec("test/b.test.ts"),
      spec("test/c.test.ts"),
    ]);
    expect(files(sorted)).toEqual([
      "test/c.test.ts",
      "test/b.test.ts",
      "test/a.test.ts",
      "test/cli/quickstart.test.ts",
    ]);
  });
});
