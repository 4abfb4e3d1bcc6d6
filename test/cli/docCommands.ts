/**
 * The command blocks of the docs that start the emulator's CLI, run as written (docs/testing.md, "How the docs
 * are tested"). The docs start it on port 8787; this is the one place a test moves that port, to a free one, so
 * that test files running beside each other never collide: {@link onFreePort} replaces it in a block's text and
 * nothing else. A line that starts the emulator in the foreground (a user runs the rest in a second terminal, as
 * the blocks say) or with `&` keeps running here too, as a {@link Background} process, until the test stops it
 * as a user does: Ctrl+C, a SIGINT to its process group. A TypeScript block that is a script (top-level await, on
 * `pulumi-gamehost/api` or `/emulator`) is type-checked strictly as an ES module and run by `node`
 * ({@link startScript}). A GitHub workflow block is read as GitHub reads it ({@link jobOf}).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { expect } from "vitest";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { blockId, type DocBlock } from "../support/docBlocks";
import { linkNodeModules } from "../support/examples";
import { writeCheckedModule } from "../support/moduleScript";
import { type CliProject, captureOutput, cliEnv } from "../support/realPulumi";
import { until } from "../support/until";

/**
 * Gives the project `dir` the package as `npm install` would: the repository's node_modules, where
 * `pulumi-gamehost` is this clone (whose build leaves its bins executable, as npm's install does).
 */
export function installPackage(dir: string): void {
  linkNodeModules(dir);
}

/** The port the docs start the emulator on. */
export const DOCUMENTED_PORT = "8787";

/**
 * The commands of `block` with the documented port replaced by `port` (it must occur): one per line, a line
 * ending in `\` joined to the next, comments and blank lines dropped.
 */
export function onFreePort(block: DocBlock, port: string): string[] {
  expect(block.text, `${blockId(block)} starts or calls the emulator on port ${DOCUMENTED_PORT}`).toContain(
    DOCUMENTED_PORT,
  );
  return block.text
    .replaceAll(DOCUMENTED_PORT, port)
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((l) => l.replace(/(^|\s)#.*$/, "").trim())
    .filter((l) => l !== "");
}

/**
 * Runs one command line of a block to its end, as bash in the project's folder with the CLI runs' environment
 * and `env` added (a variable the page has the reader set); its stdout and stderr apart (curl prints its
 * progress to stderr), failing with both on a non-zero exit.
 */
export async function runLine(
  project: CliProject,
  command: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string }> {
  const child = spawn("bash", ["-euo", "pipefail", "-c", command], {
    cwd: project.dir,
    env: cliEnv(project.home, { PULUMI_BACKEND_URL: `file://${project.backend}`, ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = captureOutput(child);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  expect(code, `\`${command}\`:\n${output.stdout}\n${output.stderr}`).toBe(0);
  return { stdout: output.stdout, stderr: output.stderr };
}

/** A command that keeps running (the emulator), in a process group of its own, with what it printed so far. */
export class Background {
  private readonly child: ChildProcess;
  private readonly output: { readonly stdout: string; readonly stderr: string };
  private readonly exited: Promise<number | null>;

  constructor(project: CliProject, command: string, env: NodeJS.ProcessEnv = {}) {
    this.child = spawn("bash", ["-c", command], {
      cwd: project.dir,
      env: cliEnv(project.home, { PULUMI_BACKEND_URL: `file://${project.backend}`, ...env }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.output = captureOutput(this.child);
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
  }

  /** What it printed, stdout then stderr. */
  get printed(): string {
    return `${this.output.stdout}${this.output.stderr}`;
  }

  /** Waits until its output matches `ready`; fails with the output when it exits first or takes too long. */
  async waitFor(ready: RegExp): Promise<RegExpExecArray> {
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    await until(() => exited || ready.test(this.printed), `output matching ${ready}`);
    const match = ready.exec(this.printed);
    if (!match) throw new Error(`exited before printing ${ready}:\n${this.printed}`);
    return match;
  }

  /**
   * Stops it as a user does: Ctrl+C (SIGINT to its process group) for a command in the foreground of its
   * terminal; SIGTERM for one started with `&` (bash has it ignore SIGINT). Resolves with the exit code of the
   * command's shell once every process of the group has closed its output.
   */
  async stop(signal: "SIGINT" | "SIGTERM" = "SIGINT"): Promise<number | null> {
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, signal);
    } catch {
      // the group is gone already
    }
    return this.exited;
  }

  /** Ends whatever of it still runs (after a failed test), without waiting. */
  kill(): void {
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Writes `source` to `dir/<name>.mts`, type-checks it (strict, `nodenext`, as an ES module for its top-level
 * await; `dir` has the package in its node_modules) and starts its JavaScript with `node` in `dir`.
 */
export function startScript(dir: string, name: string, source: string): Script {
  const js = writeCheckedModule(dir, name, source);
  return new Script(spawn(process.execPath, [js], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }));
}

/** A running script (asynchronous: an emulator in the test's process answers it from the event loop). */
export class Script {
  private readonly output: { readonly stdout: string; readonly stderr: string };
  /** Its exit code, once it has exited. */
  readonly exited: Promise<number | null>;

  constructor(private readonly child: ChildProcess) {
    this.output = captureOutput(child);
    this.exited = new Promise((resolve) => child.on("close", (code) => resolve(code)));
  }

  get stdout(): string {
    return this.output.stdout;
  }

  get stderr(): string {
    return this.output.stderr;
  }

  /** Waits until it has printed `lines` lines to stdout (failing if it exits first); returns them. */
  async lines(count: number): Promise<string[]> {
    const printed = () => this.stdout.split("\n").slice(0, -1);
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    await until(() => exited || printed().length >= count, `${count} lines of output`);
    expect(printed().length, `stdout:\n${this.stdout}\nstderr:\n${this.stderr}`).toBeGreaterThanOrEqual(
      count,
    );
    return printed().slice(0, count);
  }

  /** Ends it if it still runs (after a failed test). */
  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

const WorkflowStep = z.object({
  name: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  with: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
const Workflow = z.object({ jobs: z.record(z.string(), z.object({ steps: z.array(WorkflowStep) })) });

/** The one job of a GitHub workflow's text, its steps as GitHub reads them (YAML, then their shape checked). */
export function jobOf(workflow: string): z.infer<typeof Workflow>["jobs"][string] {
  const jobs = Object.values(Workflow.parse(parseYaml(workflow)).jobs);
  expect(jobs, "the workflow has one job").toHaveLength(1);
  return jobs[0] as z.infer<typeof Workflow>["jobs"][string];
}
