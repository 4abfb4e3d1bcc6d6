/**
 * The suite's file order: longest first, across projects, so that the last files to start are short ones.
 *
 * Vitest's own order (by the previous run's durations, which a fresh clone has not, else by file size, and one
 * project after another) started the two fault campaigns, the integration project's longest files but among its
 * smallest, last: for over a minute one worker ran them while the other had nothing left, on a suite that is
 * CPU-bound on two cores. Durations come from this machine's last run when Vitest has them (a contributor's
 * loop), else from test/support/fileDurations.json (a CI run's, refreshed by `npm run test:durations`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds per test file (path from the repository root), as recorded by scripts/test-durations.mjs. */
const RECORDED: Readonly<Record<string, number>> = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, "fileDurations.json"), "utf8"),
) as Record<string, number>;

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join("/");
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      const recorded = RECORDED[file];
      return {
        failed: cached?.failed === true,
        ms: cached?.duration ?? (recorded === undefined ? undefined : recorded * 1000),
      };
    };
    const facts = new Map(files.map((spec) => [spec, known(spec)]));
    const fact = (spec: TestSpecification) => facts.get(spec) ?? { failed: false, ms: undefined };
    return [...files].sort((a, b) => {
      // Groups run one after the other (vitest.config.mts puts e2e in a group of its own).
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      const [fa, fb] = [fact(a), fact(b)];
      // What failed last time first, then files never timed (a new file may be long), then the longest.
      if (fa.failed !== fb.failed) return fa.failed ? -1 : 1;
      const never = Number.MAX_SAFE_INTEGER;
      return (fb.ms ?? never) - (fa.ms ?? never);
    });
  }
}
