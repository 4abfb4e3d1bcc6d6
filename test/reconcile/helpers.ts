/**
 * Runs the `gamehost` command (the package's bin, compiled) on a real-CLI project: the same backend,
 * PULUMI_HOME and passphrase as the project's own `pulumi` runs, the pinned CLI on PATH.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { REPO_ROOT } from "../support/dist";
import { type CliProject, cliEnv } from "../support/realPulumi";

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
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<GamehostRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
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
