/**
 * Runs the `gamehost` command (the package's bin, compiled) on a real-CLI project: the same backend,
 * PULUMI_HOME and passphrase as the project's own `pulumi` runs, the pinned CLI on PATH.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { expect } from "vitest";
import type { Server } from "../../src/api/schemas";
import type { RunningEmulator } from "../../src/emulator";
import { serversProject } from "../cli/helpers";
import { fixtureIds, IDEMPOTENCY_TAG, liveTagged, serverArgs } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { userClient } from "../support/emulator";
import { commandOf, processTree } from "../support/processTree";
import { type CliProject, captureOutput, cliEnv } from "../support/realPulumi";
import { until } from "../support/until";

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

/**
 * Ctrl-C twice: the second as soon as the CLI has taken the first (it prints that it is cancelling), so
 * the two never reach the CLI as one signal (which only cancels).
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

/** Resolves once `child` has printed `text` on stdout, or has ended. */
function printed(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve) => {
    let out = "";
    const done = () => {
      child.stdout?.off("data", onData);
      child.off("close", done);
      resolve();
    };
    const onData = (c: Buffer) => {
      out += c.toString();
      if (out.includes(text)) done();
    };
    child.stdout?.on("data", onData);
    child.on("close", done);
  });
}

/** Pauses (SIGSTOP) the gamehost plugin processes under `root`; returns what lets them go on (SIGCONT). */
function pausePlugins(root: number): () => void {
  const paused = processTree(root).filter((pid) => commandOf(pid).includes("pulumi-resource-gamehost"));
  for (const pid of paused) process.kill(pid, "SIGSTOP");
  return () => {
    for (const pid of paused) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // Gone already.
      }
    }
  };
}

/**
 * `pulumi up` ended by {@link doubleInterrupt} while its creates wait: the emulator places nothing until both
 * signals have landed (so every create is still waiting), `made` says when the creates reached the service.
 * The gamehost plugin is paused from before the first signal until the CLI says it terminates: its answer to
 * the engine's Cancel records its servers (what `test/cli/interrupt` covers), and on a busy machine that answer
 * sometimes came before the second signal, leaving nothing pending to repair. (The dynamic face's host does
 * not forward Cancel, so its creates wait anyway.) The up's result, for the caller to check.
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
    await until(made, what);
    const resume = pausePlugins(up.child.pid ?? 0);
    try {
      const terminating = printed(up.child, "received; terminating");
      await doubleInterrupt(up.child);
      await terminating;
    } finally {
      resume();
    }
    return await up.done;
  } finally {
    emulator.setPlacement("auto");
  }
}

/**
 * A stack whose one Server's create a double Ctrl-C left pending, and whose server the service then lost (it
 * crashed): a pending create with nothing behind it, which the state cannot show and a refresh cannot see.
 * The project and the run's live servers (tagged `run`).
 */
export async function pendingCreateOfALostServer(
  setup: { root: string; emulator: RunningEmulator },
  run: string,
): Promise<{ cli: CliProject; live: () => Server[] }> {
  const cli = await serversProject(setup.root, run, setup.emulator, {
    a: serverArgs(setup.emulator, { tags: { run }, readyTimeoutSeconds: 60 }),
  });
  const live = () => liveTagged(setup.emulator, "run", run);
  await upStoppedByDoubleInterrupt(cli, setup.emulator, "the create", () => live().length === 1);
  const [made] = live();
  if (!made) throw new Error("the interrupted up made no server");
  const ids = fixtureIds(setup.emulator);
  await userClient(setup.emulator).deleteServer(ids.gameId, ids.environmentId, made.id);
  expect(live()).toEqual([]);
  return { cli, live };
}

/**
 * What every repair scenario checks after its `up`: the stack's resources of `type` are exactly the live servers,
 * `count` of them, one per idempotency key (no create made its server twice). Returns the live ids, sorted.
 */
export async function expectStackHoldsLive(
  cli: CliProject,
  type: string,
  live: () => Server[],
  count: number,
): Promise<string[]> {
  const state = Object.values(await cli.stateIds([type])).sort();
  const ids = live()
    .map((s) => s.id)
    .sort();
  expect(state).toHaveLength(count);
  expect(ids).toEqual(state);
  expect(new Set(live().map((s) => s.tags[IDEMPOTENCY_TAG])).size).toBe(count);
  return ids;
}
