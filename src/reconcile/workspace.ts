/**
 * The stack a `gamehost` command works on: the Pulumi project in a folder (`--cwd`, default the current
 * one) and its selected stack (`--stack` for another), opened through Pulumi's Automation API. The real
 * `pulumi` on PATH does every deployment; a problem is one line naming what to fix.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";

/** A failure the command reports as one line (exit code 1). */
export class CommandError extends Error {
  override readonly name = "CommandError";
}

/** A bad command line (a flag's value, a missing flag): one line naming the flag and what is allowed, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Where to find the stack. */
export interface StackTarget {
  /** The project folder (holds Pulumi.yaml). */
  cwd: string;
  /** The stack name; the folder's selected stack when absent. */
  stack?: string | undefined;
}

/** The last line of a CLI failure worth showing (the CLI prints `error: …`). */
export function cliMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const errors = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("error:"));
  const line = errors.at(-1) ?? text.split("\n").find((l) => l.trim() !== "") ?? text;
  return line.replace(/^error:\s*/, "").trim();
}

/** Opens the project's workspace and its stack, or fails naming the folder or stack. */
export async function openStack(target: StackTarget): Promise<Stack> {
  const dir = path.resolve(target.cwd);
  if (!fs.existsSync(dir)) throw new CommandError(`--cwd ${dir}: no such folder`);
  if (!["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"].some((f) => fs.existsSync(path.join(dir, f)))) {
    throw new CommandError(
      `${dir} is no Pulumi project (no Pulumi.yaml): pass the project's folder with --cwd`,
    );
  }
  let workspace: LocalWorkspace;
  try {
    // PULUMI_SKIP_CONFIRMATIONS=true counts as --yes, which the CLI refuses with a refresh preview (the
    // drift check): the Automation API passes --yes itself wherever a command needs it.
    workspace = await LocalWorkspace.create({
      workDir: dir,
      envVars: { PULUMI_SKIP_CONFIRMATIONS: "false" },
    });
  } catch (error) {
    throw new CommandError(`cannot open the Pulumi project in ${dir}: ${cliMessage(error)}`);
  }
  // One `pulumi stack ls` answers both which stack is selected and which exist.
  const stacks = await workspace.listStacks().catch((error: unknown) => {
    throw new CommandError(`cannot list the stacks of ${dir}: ${cliMessage(error)}`);
  });
  const name = target.stack ?? stacks.find((s) => s.current)?.name;
  if (name === undefined) {
    throw new CommandError(
      `no stack is selected in ${dir}: pass --stack NAME or run \`pulumi stack select\``,
    );
  }
  const known = stacks.map((s) => s.name);
  const found = known.find((n) => n === name || n.endsWith(`/${name}`));
  if (!found) {
    throw new CommandError(
      `stack ${JSON.stringify(name)} does not exist in ${dir} (stacks: ${known.join(", ") || "none"})`,
    );
  }
  // `Stack.select` runs `pulumi stack select`, which would change the folder's selected stack for the
  // user's next `pulumi` (as `pulumi --stack X preview` does not). Every command a Stack runs passes
  // `--stack` itself, and the stack is known to exist (above), so the selection is left alone.
  workspace.selectStack = async () => {};
  return Stack.select(found, workspace);
}
