/**
 * A stack of another project named in full but misspelt (`--other-stack organization/matchmaking/prdo`, or
 * `sweep --stack …`) failed with the hint to do what was done: "does not exist in <this folder> (stacks: …);
 * name a stack of another project in full, as org/project/stack". It now names the stacks that project has.
 *
 * The CLI is a stand-in on PATH that answers `version`, `stack ls` and `stack ls --all`.
 */
import { describe, expect, it } from "vitest";
import { openStack } from "../../src/reconcile/workspace";
import { useStandInCli } from "../support/standInCli";

const MINE = [{ name: "prod", current: true, updateInProgress: false }];
const ALL = [
  ...MINE,
  { name: "organization/matchmaking/dev", current: false, updateInProgress: false },
  { name: "organization/matchmaking/prod", current: false, updateInProgress: false },
];

const { root } = useStandInCli({
  prefix: "gamehost-other-stack-",
  project: "game",
  match: '"$*"',
  arms: [
    "version*) echo v3.274.1 ;;",
    `*--all*) echo '${JSON.stringify(ALL)}' ;;`,
    `stack*) echo '${JSON.stringify(MINE)}' ;;`,
  ],
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
