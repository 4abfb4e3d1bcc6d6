/**
 * `gamehost drift` opens a named stack without listing the stacks first: the CLI's failure for a stack
 * that does not exist (`error: no stack named 'nope' found`, from the refresh preview, the export or the
 * config read, as v3.274.1 prints it) becomes the one line `openStack` gives for it, naming the stacks
 * that exist. Any other failure, including one about another stack (a StackReference the refresh reads),
 * is passed on unchanged.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { CommandError } from "../../src/reconcile/errors";
import { unknownStack } from "../../src/reconcile/workspace";

const DIR = "/work/project";

/** The part of a Stack that unknownStack uses; `listed` counts its `pulumi stack ls` runs. */
function stackNamed(name: string, stacks: string[] | Error) {
  const counter = { listed: 0 };
  const stack = {
    name,
    workspace: {
      workDir: DIR,
      listStacks: async () => {
        counter.listed++;
        if (stacks instanceof Error) throw stacks;
        return stacks.map((n) => ({ name: n, current: n === "dev" }));
      },
    },
  } as unknown as Stack;
  return { stack, counter };
}

const cliFailure = (stderr: string) =>
  new CommandError(`the refresh preview of stack nope failed: ${stderr.replace(/^error:\s*/, "")}`);

describe("unknownStack", () => {
  it("maps the CLI's failure for this stack to the line naming the stacks that exist", async () => {
    const { stack, counter } = stackNamed("nope", ["dev", "staging"]);
    const mapped = await unknownStack(stack, cliFailure("error: no stack named 'nope' found"));
    expect(mapped).toBeInstanceOf(CommandError);
    expect((mapped as Error).message).toBe(`stack "nope" does not exist in ${DIR} (stacks: dev, staging)`);
    expect(counter.listed).toBe(1);
  });

  it("knows the stack by its qualified name too, and says none when there is no stack", async () => {
    const { stack } = stackNamed("nope", []);
    const mapped = await unknownStack(stack, cliFailure("error: no stack named 'acme/proj/nope' found"));
    expect((mapped as Error).message).toBe(`stack "nope" does not exist in ${DIR} (stacks: none)`);
  });

  it("passes on a failure about another stack, and any other failure, without listing", async () => {
    const { stack, counter } = stackNamed("dev", ["dev"]);
    const other = cliFailure("error: no stack named 'shared-network' found");
    expect(await unknownStack(stack, other)).toBe(other);
    const locked = new CommandError("the stack is currently locked by 1 lock(s)");
    expect(await unknownStack(stack, locked)).toBe(locked);
    expect(counter.listed).toBe(0);
  });

  it("passes the CLI's failure on when the listing fails too", async () => {
    const { stack } = stackNamed("nope", new Error("backend unreachable"));
    const failure = cliFailure("error: no stack named 'nope' found");
    expect(await unknownStack(stack, failure)).toBe(failure);
  });
});
