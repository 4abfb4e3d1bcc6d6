/**
 * A stack of another project named in full but misspelt (`--other-stack organization/matchmaking/prdo`, or
 * `sweep --stack …`) failed with the hint to do what was done: "does not exist in <this folder> (stacks: …);
 * name a stack of another project in full, as org/project/stack". It now names the stacks that project has.
 *
 * The CLI is a stand-in on PATH that answers `version`, `stack ls` and `stack ls --all`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStack } from "../../src/reconcile/workspace";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-other-stack-"));
const MINE = [{ name: "prod", current: true, updateInProgress: false }];
const ALL = [
  ...MINE,
  { name: "organization/matchmaking/dev", current: false, updateInProgress: false },
  { name: "organization/matchmaking/prod", current: false, updateInProgress: false },
];

const savedPath = process.env.PATH;
beforeAll(() => {
  const bin = path.join(root, "bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, "pulumi"),
    [
      "#!/bin/sh",
      'case "$*" in',
      "  version*) echo v3.274.1 ;;",
      `  *--all*) echo '${JSON.stringify(ALL)}' ;;`,
      `  stack*) echo '${JSON.stringify(MINE)}' ;;`,
      "esac",
    ].join("\n"),
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(root, "Pulumi.yaml"), "name: game\nruntime: nodejs\n");
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
});
afterAll(() => {
  process.env.PATH = savedPath;
  fs.rmSync(root, { recursive: true, force: true });
});

describe("another project's stack, named in full", () => {
  it("opens when the backend has it", async () => {
    const stack = await openStack(
      { cwd: root, stack: "organization/matchmaking/prod" },
      { anyProject: true },
    );
    expect(stack.name).toBe("organization/matchmaking/prod");
  });

  it("misspelt, fails naming the stacks of its project, not asking for the full name it has", async () => {
    const opening = openStack({ cwd: root, stack: "organization/matchmaking/prdo" }, { anyProject: true });
    await expect(opening).rejects.toThrow(
      'stack "organization/matchmaking/prdo" does not exist on the backend (stacks of project matchmaking: organization/matchmaking/dev, organization/matchmaking/prod)',
    );
    const none = openStack({ cwd: root, stack: "organization/matchmakng/prod" }, { anyProject: true });
    await expect(none).rejects.toThrow("(stacks of project matchmakng: none)");
  });
});
