/**
 * A `gamehost` command asks the CLI its version once, however many stacks it opens, and lists its project's
 * stacks once: openStack's `pulumi stack ls` (which stack is selected, which exist) also answers siblingStacks (the stacks that own their servers whether the command names them or
 * not). Each listing is a CLI run of its own, about 0.15 CPU-s, in every drift, sweep and adopt.
 *
 * The CLI is a stand-in on PATH that logs its arguments and answers `version` and `stack ls`.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { openStack, siblingStacks } from "../../src/reconcile/workspace";
import { useStandInCli } from "../support/standInCli";

const STACKS = [
  { name: "dev", current: true, updateInProgress: false },
  { name: "staging", current: false, updateInProgress: false },
];

const { root, runsFile } = useStandInCli({
  prefix: "gamehost-stack-listing-",
  project: "listing",
  match: '"$1"',
  arms: ["version) echo v3.274.1 ;;", `stack) echo '${JSON.stringify(STACKS)}' ;;`],
  logRuns: true,
});

const runsOf = (command: string) =>
  fs
    .readFileSync(runsFile, "utf8")
    .split("\n")
    .filter((run) => run.startsWith(command));
const stackLists = () => runsOf("stack ls");

describe("a command's stacks", () => {
  it("are listed once for the stack it opens and the project's other stacks", async () => {
    const stack = await openStack({ cwd: root, stack: "dev" });
    const siblings = await siblingStacks(stack);
    expect(siblings.map((s) => s.name)).toEqual(["staging"]);
    expect(stackLists()).toHaveLength(1);
  });

  it("ask the CLI its version once, however many stacks the command opens", async () => {
    // A sweep or drift naming several stacks opened a workspace each, and each ran `pulumi version`.
    await openStack({ cwd: root, stack: "dev" });
    await openStack({ cwd: root, stack: "staging" }, { anyProject: true });
    await openStack({ cwd: root, stack: "dev" }, { verify: false });
    // This file's first test opened one too: one run in all.
    expect(runsOf("version")).toHaveLength(1);
  });
});
