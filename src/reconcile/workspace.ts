/**
 * The stack a `gamehost` command works on: the Pulumi project in a folder (`--cwd`, default the current
 * one) and its selected stack (`--stack` for another), opened through Pulumi's Automation API. The real
 * `pulumi` on PATH does every deployment; a problem is one line naming what to fix.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  ConcurrentUpdateError,
  LocalWorkspace,
  PulumiCommand,
  Stack,
  type StackSummary,
  type Workspace,
} from "@pulumi/pulumi/automation";
import { CommandError } from "./errors";

/** Where to find the stack. */
export interface StackTarget {
  /** The project folder (holds Pulumi.yaml). */
  cwd: string;
  /** The stack name; the folder's selected stack when absent. */
  stack?: string | undefined;
}

/** The engine's report of a provider plugin that ended before acknowledging its Cancel. */
const PREMATURE = /^error: Detected that (.+?) exited prematurely\.?$/;
const DUMP_HEADER = "we have dumped the STDOUT and STDERR streams of the plugin:";

/**
 * What a plugin the CLI reported as "exited prematurely" printed (its most telling line), from the dump
 * the CLI appends to that report; `undefined` when it printed nothing.
 */
function pluginDump(lines: readonly string[]): string | undefined {
  const at = lines.findIndex((l) => l.includes(DUMP_HEADER));
  if (at < 0) return undefined;
  const first = lines[at]?.slice((lines[at]?.indexOf(DUMP_HEADER) ?? 0) + DUMP_HEADER.length) ?? "";
  const dump: string[] = [first];
  for (const l of lines.slice(at + 1)) {
    const t = l.trim();
    if (t.startsWith("error:") || t === "Resources:" || /^(stdout|stderr|err\?):/.test(t)) break;
    dump.push(l);
  }
  const printed = dump.map((l) => l.trim()).filter((l) => l !== "");
  const telling = printed.find((l) => /^(\w*Error\b|error\b|pulumi-resource-\w+:)/i.test(l)) ?? printed[0];
  return telling && telling.length > 300 ? `${telling.slice(0, 300)}…` : telling;
}

/**
 * The line of a CLI failure worth showing: the last `error: …` line the CLI printed. The engine's
 * "Detected that <plugin> exited prematurely" report is never shown alone as the cause: the CLI makes it
 * both when a plugin crashed and when a plugin did not answer its Cancel within 5 s as the CLI closed it
 * (a CPU-starved one; then nothing failed), and it comes after the deployment's own error. It is named
 * for what it is, with what the plugin printed.
 */
export function cliMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // The Automation API's message is `code: N\n stdout: …\n stderr: …`: a stream's first line carries its label.
  const lines = text.split("\n").map((l) => l.trim().replace(/^(stdout|stderr):\s*/, ""));
  const errors = lines.filter((l) => l.startsWith("error:"));
  const premature = errors.map((l) => PREMATURE.exec(l)).find((m) => m !== null);
  const cause = errors.filter((l) => !PREMATURE.test(l)).at(-1);
  const strip = (l: string) => l.replace(/^error:\s*/, "").trim();
  if (!premature) {
    const line = cause ?? lines.find((l) => l !== "" && !/^code: -?\d+$/.test(l)) ?? text;
    return strip(withReason(lines, line));
  }
  const plugin = path.basename(premature[1] ?? "the provider plugin");
  const printed = pluginDump(lines);
  const report = printed
    ? `the Pulumi CLI reports that the provider plugin ${plugin} exited prematurely; it printed: ${printed}`
    : `the Pulumi CLI reports that the provider plugin ${plugin} "exited prematurely", and it printed nothing ` +
      "(the CLI says so too of a plugin that did not answer its Cancel within 5 s as the CLI closed it)";
  return cause ? `${strip(cause)} (${report})` : report;
}

/**
 * `line` with the reason the CLI printed under it, when it ends in a colon: a program's unhandled
 * exception is `error: Running program '…' failed with an unhandled exception:` and, on the next line of
 * its Diagnostics, the exception itself (`Error: No entrypoint found in …`), which is the part to fix.
 */
function withReason(lines: readonly string[], line: string): string {
  if (!line.endsWith(":")) return line;
  const reason = lines.slice(lines.lastIndexOf(line) + 1).find((l) => l !== "");
  return reason === undefined || reason.startsWith("at ") ? line : `${line} ${reason}`;
}

/** How to open a stack. */
export interface OpenOptions {
  /**
   * Check with `pulumi stack ls` that a stack named by `--stack` exists before any other CLI run (default
   * true). Without it the first command run on the stack fails for an unknown one: pass that failure
   * through {@link unknownStack} for the same one-line message. A selected stack is always listed (the
   * listing is how its name is known).
   */
  verify?: boolean;
  /**
   * Also open a stack of another project of the backend, named in full (`org/project/stack`): sweep
   * compares with every stack using the environment, whatever its project. Only its state is read.
   */
  anyProject?: boolean;
}

/** The CLI's answer for a stack the backend does not have (the name as given, or qualified). */
const NO_STACK = /no stack named '([^']*)' found/g;

/** The message for a stack that does not exist, naming those that do. */
const missing = (name: string, dir: string, known: readonly string[], anyProject = false) =>
  new CommandError(
    `stack ${JSON.stringify(name)} does not exist in ${dir} (stacks: ${known.join(", ") || "none"})` +
      (anyProject ? "; name a stack of another project in full, as org/project/stack" : ""),
  );

/**
 * The `pulumi stack ls` each workspace's {@link openStack} ran, for {@link siblingStacks} of the same
 * command: the stacks do not change between the two, and each listing is a CLI run (about 0.15 CPU-s).
 */
const listings = new WeakMap<Workspace, Promise<StackSummary[]>>();

/** Whether two stack names name one stack: as given (`prod`) or qualified (`org/project/prod`). */
const sameStack = (a: string, b: string) => a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);

/**
 * `error` as reported: when the CLI failed because the stack does not exist (a stack opened with
 * `verify: false`), the same one-line message as {@link openStack} gives (one `pulumi stack ls`, only on
 * this path); any other error unchanged.
 */
export async function unknownStack(stack: Stack, error: unknown): Promise<unknown> {
  const text = error instanceof Error ? error.message : String(error);
  // Only this stack: a refresh may also read another stack (a StackReference) that is gone.
  const named = [...text.matchAll(NO_STACK)].map((m) => m[1] ?? "");
  if (!named.some((n) => sameStack(n, stack.name))) return error;
  const known = await stack.workspace.listStacks().then(
    (stacks) => stacks.map((s) => s.name),
    () => undefined,
  );
  return known ? missing(stack.name, stack.workspace.workDir, known) : error;
}

let cli: Promise<PulumiCommand> | undefined;

/**
 * The `pulumi` on PATH, asked its version once per process. A Stack needs the version (it picks how the CLI
 * sends the engine's events: a gRPC server above v3.205, a tailed file below), and each LocalWorkspace
 * created without a command runs `pulumi version` itself (0.3 s each): a sweep or drift over several stacks
 * ran it once per stack. Started, not awaited, by the first open, so what the caller loads next overlaps it.
 */
function theCli(): Promise<PulumiCommand> {
  cli ??= PulumiCommand.get();
  return cli;
}

/** Opens the project's workspace and its stack, or fails naming the folder or stack. */
export async function openStack(target: StackTarget, options: OpenOptions = {}): Promise<Stack> {
  const dir = path.resolve(target.cwd);
  if (!fs.existsSync(dir)) throw new CommandError(`--cwd ${dir}: no such folder`);
  if (!["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"].some((f) => fs.existsSync(path.join(dir, f)))) {
    throw new CommandError(
      `${dir} is no Pulumi project (no Pulumi.yaml): pass the project's folder with --cwd`,
    );
  }
  // The run starts here, as the call is made, so that what the caller loads next overlaps it.
  const creating = theCli().then((pulumiCommand) =>
    LocalWorkspace.create({
      workDir: dir,
      pulumiCommand,
      // PULUMI_SKIP_CONFIRMATIONS=true counts as --yes, which the CLI refuses with a refresh preview (the
      // drift check): the Automation API passes --yes itself wherever a command needs it.
      envVars: { PULUMI_SKIP_CONFIRMATIONS: "false" },
    }),
  );
  let workspace: LocalWorkspace;
  try {
    workspace = await creating;
  } catch (error) {
    throw new CommandError(`cannot open the Pulumi project in ${dir}: ${cliMessage(error)}`);
  }
  // `Stack.select` runs `pulumi stack select`, which would change the folder's selected stack for the
  // user's next `pulumi` (as `pulumi --stack X preview` does not). Every command a Stack runs passes
  // `--stack` itself, so the selection is left alone; whether the stack exists is checked below, or (not
  // verified) by the first command run on it.
  workspace.selectStack = async () => {};
  if (target.stack !== undefined && options.verify === false) return Stack.select(target.stack, workspace);
  // One `pulumi stack ls` answers both which stack is selected and which exist.
  const listing = workspace.listStacks();
  listings.set(workspace, listing);
  const stacks = await listing.catch((error: unknown) => {
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
  if (found) return Stack.select(found, workspace);
  if (options.anyProject && name.split("/").length === 3) {
    const all = await workspace.listStacks({ all: true }).catch((error: unknown) => {
      throw new CommandError(`cannot list the stacks of the backend: ${cliMessage(error)}`);
    });
    if (all.some((s) => s.name === name)) return Stack.select(name, workspace);
    // Named in full already: the hint to do so would send the user round; the project's stacks show a slip.
    const project = name.split("/")[1];
    const theirs = all.map((s) => s.name).filter((n) => n.split("/")[1] === project);
    throw new CommandError(
      `stack ${JSON.stringify(name)} does not exist on the backend (stacks of project ${project}: ${theirs.join(", ") || "none"})`,
    );
  }
  throw missing(name, dir, known, options.anyProject);
}

/** The largest state export read (a stack of thousands of resources is tens of MB). */
const EXPORT_MAX_BYTES = 1024 * 1024 * 1024;

/**
 * `pulumi stack export` of `stack`, its secrets left encrypted. What the commands read (scopes, tags, ids,
 * pending creates) is never read from a secret, `pulumi stack import` takes the encrypted form back (repair),
 * and `stack.exportStack()` always passes `--show-secrets`, whose decryption (a passphrase's key
 * derivation) is most of the export's CPU: about 0.27 CPU-s against 0.10 without it (v3.274.1, a
 * passphrase stack).
 */
export async function exportEncrypted(stack: Stack): Promise<{ version: number; deployment?: unknown }> {
  const ws = stack.workspace;
  // As the Automation API runs the CLI (its workspace's settings, marked as an Automation API run).
  const env = {
    ...process.env,
    ...(ws.pulumiHome ? { PULUMI_HOME: ws.pulumiHome } : {}),
    ...ws.envVars,
    PULUMI_AUTOMATION_API: "true",
  };
  const args = ["stack", "export", "--stack", stack.name, "--non-interactive"];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      ws.pulumiCommand.command,
      args,
      { cwd: ws.workDir, env, maxBuffer: EXPORT_MAX_BYTES, encoding: "utf8" },
      (error, out, err) => {
        if (!error) return resolve(out);
        // The Automation API's form of a failed CLI run, which cliMessage and unknownStack read.
        reject(new Error(`code: ${error.code ?? -1}\n stdout: ${out}\n stderr: ${err}`));
      },
    );
  });
  const exported = JSON.parse(stdout) as { version?: unknown; deployment?: unknown };
  if (typeof exported.version !== "number")
    throw new Error("pulumi stack export printed no deployment version");
  return { version: exported.version, deployment: exported.deployment };
}

/**
 * The other stacks of `stack`'s project (its folder's backend), but those in `known`. Each owns its servers
 * whether a command names it or not: a sweep from `prod` must not delete `staging`'s servers, adopt must not
 * offer them, drift must not call them strays. Only their states are read.
 */
export async function siblingStacks(stack: Stack, known: readonly Stack[] = []): Promise<Stack[]> {
  const workspace = stack.workspace;
  const listed = await (listings.get(workspace) ?? workspace.listStacks()).catch((error: unknown) => {
    throw new CommandError(`cannot list the stacks of ${workspace.workDir}: ${cliMessage(error)}`);
  });
  const taken = [stack, ...known].map((s) => s.name);
  const siblings = listed.filter(({ name }) => !taken.some((t) => sameStack(t, name)));
  return Promise.all(siblings.map(({ name }) => Stack.select(name, workspace)));
}

/** A stack another update holds (the backend's lock): nothing was changed. */
class StackLockedError extends CommandError {}

/**
 * A locked stack, as one line (repair, and a reconcile pass). The CLI's own message ends with "delete the
 * lock file with `pulumi cancel`", which is right for a dead update only: while an `up` runs, its creates
 * are the pending creates repair sees, and a cancel would let repair record them beside that `up`.
 */
export function lockError(stack: Stack, error: unknown): CommandError {
  return new StackLockedError(
    `stack ${stack.name} is locked by another update (${cliMessage(error)}); nothing was changed. ` +
      "Wait for it to end (or `pulumi cancel` a dead one).",
  );
}

/** Whether `error` is the backend refusing a second update of a stack, not yet told as {@link lockError}. */
export const isLocked = (error: unknown): boolean =>
  !(error instanceof StackLockedError) &&
  (error instanceof ConcurrentUpdateError ||
    /currently locked by|Another update is currently in progress/.test(String(error)));
