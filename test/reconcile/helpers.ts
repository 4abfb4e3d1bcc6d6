/**
 * Runs the `gamehost` command (the package's bin, compiled) on a real-CLI project: the same backend,
 * PULUMI_HOME and passphrase as the project's own `pulumi` runs, the pinned CLI on PATH.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import type { RunningEmulator } from "../../src/emulator";
import { REPO_ROOT } from "../support/dist";
import { type CliProject, captureOutput, cliEnv } from "../support/realPulumi";

export const GAMEHOST_BIN = path.join(REPO_ROOT, "dist", "reconcile", "cli.js");

export interface GamehostRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `gamehost <args>` in the project's folder (or `cwd`), with the project's backend. */
export function gamehost(
  cli: CliProject,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): { child: ReturnType<typeof spawn>; done: Promise<GamehostRun> } {
  const child = spawn(process.execPath, [GAMEHOST_BIN, ...args], {
    cwd: options.cwd ?? cli.dir,
    env: cliEnv(cli.home, { PULUMI_BACKEND_URL: `file://${cli.backend}`, ...options.env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = captureOutput(child);
  const done = new Promise<GamehostRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: output.stdout, stderr: output.stderr }));
  });
  return { child, done };
}

/** Runs `gamehost <args>` to its end. */
export function runGamehost(
  cli: CliProject,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<GamehostRun> {
  return gamehost(cli, args, options).done;
}

/** Polls `check` every 50 ms until it holds; fails naming `what` after `ms`. */
export async function until(what: string, check: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Ctrl-C twice: the second as soon as the CLI has taken the first (it prints that it is cancelling), so
 * the two never reach the CLI as one signal (which only cancels), and the plugin's Cancel has no time to
 * end its creates first (then nothing would be pending: the plugin records its servers on a cancel).
 */
export function doubleInterrupt(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    let printed = "";
    const onData = (c: Buffer) => {
      printed += c.toString();
      if (!printed.includes("received; cancelling")) return;
      child.stdout?.off("data", onData);
      child.kill("SIGINT");
      resolve();
    };
    child.stdout?.on("data", onData);
    child.kill("SIGINT");
  });
}

/**
 * `pulumi up` ended by {@link doubleInterrupt} while its creates wait: the emulator places nothing until both
 * signals have landed (so every create is still waiting), `made` says when the creates reached the service.
 * The up's result, for the caller to check.
 */
export async function upStoppedByDoubleInterrupt(
  cli: CliProject,
  emulator: RunningEmulator,
  what: string,
  made: () => boolean,
): Promise<Awaited<ReturnType<CliProject["start"]>["done"]>> {
  emulator.setPlacement("never");
  try {
    const up = cli.start(["up", "--yes", "--skip-preview"]);
    await until(what, made);
    await doubleInterrupt(up.child);
    return await up.done;
  } finally {
    emulator.setPlacement("auto");
  }
}
