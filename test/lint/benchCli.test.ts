// Which benchmarks need a Pulumi CLI, as README and BENCHMARKS.md say: the benches whose scripts drive the CLI
// (bench/lib/cli.mjs), read from bench/run.mjs, not a list copied here. A contributor without a CLI learns from
// the docs which ones to leave out of `--only`.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");

/** The ids of the benches whose script imports the CLI driver. */
function benchesThroughTheCli(): number[] {
  const benches = [...read("bench/run.mjs").matchAll(/\{ id: (\d+), script: "([^"]+)"/g)];
  expect(benches.length).toBeGreaterThan(0);
  return benches
    .filter(([, , script]) => /from "\.\/lib\/cli\.mjs"/.test(read(path.join("bench", script ?? ""))))
    .map(([, id]) => Number(id));
}

/** "8", "8 and 11", "8, 11 and 12" → their numbers. */
const idsIn = (list: string | undefined) => (list ?? "").split(/,\s*|\s+and\s+/).map(Number);

describe("the benches that need a pulumi CLI", () => {
  const expected = benchesThroughTheCli();

  it("are the ones README's Development section names", () => {
    const line = read("README.md")
      .split("\n")
      .find((l) => l.startsWith("- `npm run bench`"));
    expect(idsIn(/bench(?:es)? ([\d, and]+?) through the real CLI/.exec(line ?? "")?.[1])).toEqual(expected);
  });

  it("are the ones BENCHMARKS.md's commands name", () => {
    const line = read("BENCHMARKS.md")
      .split("\n")
      .find((l) => l.startsWith("npm run bench "));
    expect(idsIn(/bench(?:es)? ([\d, and]+?) needs? a pulumi CLI/.exec(line ?? "")?.[1])).toEqual(expected);
  });
});
