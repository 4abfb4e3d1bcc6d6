/**
 * Shared pieces of the real-CLI scenarios: each file's emulator and temp root, the config the programs
 * need (as CLI config entries), and the assertions every scenario ends with.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import type { EmulatorOptions, RunningEmulator } from "../../src/emulator";
import {
  type Face,
  fixtureIds,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  type ServerArgsJson,
} from "../engine/helpers";
import { liveServers, startTestEmulator } from "../support/emulator";
import { pluginProviderYaml } from "../support/examples";
import { type CliConfigEntry, CliProject, programProject, realCli, tempRoot } from "../support/realPulumi";
import { type WatchedProcess, type WatchReport, watchMemory } from "../support/watchdog";

/** Generous: one CLI command is 10-20 s on the loaded machines, a scenario runs a dozen. */
export const SCENARIO_TIMEOUT_MS = 900_000;

/** The suite's Fleet program (test/cli/programs/fleet), run by the real CLI on either face. */
export const FLEET_PROGRAM = path.join(__dirname, "programs", "fleet");
/** Its project name: the namespace of its config (`<project>:face`, `<project>:fleet`). */
export const FLEET_PROJECT = "gamehost-cli-fleet";

/**
 * A file's emulator and temp root, started before its tests (only when a CLI can run them).
 * @param options the emulator's, over the tests' fast placement (e.g. `{ admin: true }` for its faults API)
 */
export function useCliEnvironment(
  label: string,
  options: EmulatorOptions = {},
): {
  readonly emulator: RunningEmulator;
  readonly root: string;
} {
  let emulator: RunningEmulator | undefined;
  let root: string | undefined;
  beforeAll(async () => {
    if (!realCli) return;
    emulator = await startTestEmulator(options);
    root = tempRoot(label);
  });
  afterAll(async () => {
    await emulator?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the CLI environment is used before its beforeAll ran");
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    get root() {
      return started(root);
    },
  };
}

/** Provider connection config: the base URL, and the user token as a secret. */
export function connection(emulator: RunningEmulator): Record<string, CliConfigEntry> {
  return {
    "gamehost:baseUrl": { value: emulator.url },
    "gamehost:token": { value: emulator.tokens.user, secret: true },
  };
}

/**
 * The suite's servers program (one Server per entry of its `servers` config) in `root/<folder>`, with the
 * plugin, its stack `stack` made and configured: the connection, `servers` (name → args) and, when given, the
 * face (the program's default is the dynamic one).
 */
export async function serversProject(
  root: string,
  folder: string,
  emulator: RunningEmulator,
  servers: Record<string, ServerArgsJson>,
  { face, stack }: { face?: Face; stack?: string } = {},
): Promise<CliProject> {
  const cli = programProject(root, folder, SERVERS_PROGRAM, { name: SERVERS_PROJECT, plugin: true });
  await configure(
    cli,
    {
      ...connection(emulator),
      ...(face ? { [`${SERVERS_PROJECT}:face`]: { value: face } } : {}),
      [SERVERS_KEY]: { value: servers },
    },
    stack,
  );
  return cli;
}

/** Ids of live servers, sorted. */
export function liveIds(emulator: RunningEmulator, role?: string): string[] {
  return liveServers(emulator)
    .filter((s) => role === undefined || s.tags.role === role)
    .map((s) => s.id)
    .sort();
}

/** Every request since the last reset only read (a preview, a refresh preview): GETs, nothing that changes. */
export function expectOnlyReads(emulator: RunningEmulator): void {
  const changing = emulator.requests.filter((r) => !r.route.startsWith("GET "));
  expect(
    changing.map((r) => r.route),
    "requests that change something",
  ).toEqual([]);
}

/** The `Resources:` summary the CLI printed at the end of a run, as `kind: count` (`+ 4 created` → `created: 4`). */
export function summaryOf(stdout: string): Record<string, number> {
  const block = stdout.split("\nResources:\n")[1]?.split("\n\n")[0] ?? "";
  const out: Record<string, number> = {};
  for (const line of block.split("\n")) {
    const match = /^\s+(?:[-+~]+\s*)?(\d+) (?:to )?([a-z-]+)/.exec(line);
    if (match) out[match[2] ?? ""] = Number(match[1]);
  }
  return out;
}

/** The last thing a scenario checks: the token in no output, no project or backend file, no export. */
export async function expectTokenNowhere(project: CliProject, token: string): Promise<void> {
  // `pulumi stack export` runs through `ok`, so its output joins what expectNoLeak searches.
  await project.exported();
  project.expectNoLeak(token);
}

/** Stack config entries; a non-string value is set as JSON (`Config.getObject`). */
export type CliConfig = Record<string, { value: unknown; secret?: boolean }>;

/** `pulumi stack init <stack>` and `config set` of each entry (JSON for non-strings). */
export async function configure(cli: CliProject, config: CliConfig, stack = "dev"): Promise<void> {
  await cli.configure(
    Object.fromEntries(
      Object.entries(config).map(([key, { value, secret }]) => [
        key,
        { value: typeof value === "string" ? value : JSON.stringify(value), ...(secret ? { secret } : {}) },
      ]),
    ),
    stack,
  );
}

/**
 * A Fleet's inputs in the emulator's first game and environment, on its first build: `tags`, one UDP game port
 * (host routing), 250 mCPU and 256 MB, and `datacenters`; `rest` adds or replaces top-level inputs (`rollout`, …).
 */
export function fleetInputs(
  emulator: RunningEmulator,
  tags: Record<string, string>,
  datacenters: Record<string, number>,
  rest: Record<string, unknown> = {},
) {
  const ids = fixtureIds(emulator);
  return {
    gameId: ids.gameId,
    environmentId: ids.environmentId,
    template: {
      tags,
      runtime: { build: ids.buildId },
      network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
      resources: { cpu: 250, memory: 256 },
    },
    datacenters,
    ...rest,
  };
}

/**
 * A project `root/<folder>` running {@link FLEET_PROGRAM} with the plugin, its stack connected to the emulator and
 * declaring `fleet`, on `face` (else the program's default, the dynamic face).
 */
export async function fleetProject(
  setup: { root: string; emulator: RunningEmulator },
  folder: string,
  fleet: unknown,
  face?: Face,
): Promise<CliProject> {
  const cli = programProject(setup.root, folder, FLEET_PROGRAM, { name: FLEET_PROJECT, plugin: true });
  await configure(cli, {
    ...connection(setup.emulator),
    ...(face ? { [`${FLEET_PROJECT}:face`]: { value: face } } : {}),
    [`${FLEET_PROJECT}:fleet`]: { value: fleet },
  });
  return cli;
}

/** A YAML project `root/<name>` with the plugin and `body` after its header, its stack connected to the emulator. */
export async function yamlProject(
  setup: { root: string; emulator: RunningEmulator },
  name: string,
  body = "",
): Promise<CliProject> {
  const dir = path.join(setup.root, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${name}\nruntime: yaml\n${pluginProviderYaml()}${body}`,
  );
  const project = new CliProject(dir, setup.root);
  await project.configure(connection(setup.emulator));
  return project;
}

const MB = 1024 * 1024;

/**
 * Bounds of a failing program's run: a failure must be reported at once, not after the program grew to GBs
 * (docs/known-issues.md). The watchdog kills the CLI's process tree above `killAboveBytes`, long before it
 * can hurt the machine; the CPU bound is what a spinning failure exceeds (wall time on a loaded machine
 * measures the machine); the wall bound, far above any healthy run, catches a hang.
 */
export const PROGRAM_BOUNDS = {
  killAboveBytes: 1024 * MB,
  peakBytes: 500 * MB,
  cpuMs: 10_000,
  wallMs: 45_000,
} as const;

/** What a watched CLI run printed and how its processes behaved. */
export interface WatchedRun {
  /** The CLI's exit code. */
  code: number | null;
  output: string;
  report: WatchReport;
}

/** `pulumi <args>` under the memory watchdog (test/support/watchdog.ts). */
export async function watchedRun(
  project: CliProject,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<WatchedRun> {
  const { child, done } = project.start(args, env);
  const watch = watchMemory(child.pid as number, PROGRAM_BOUNDS.killAboveBytes);
  const result = await done.catch((error: unknown) => {
    watch.stop();
    throw error;
  });
  const report = watch.stop();
  return { code: result.code, output: `${result.stdout}\n${result.stderr}`, report };
}

/**
 * The run's program (the language host's `node …/@pulumi/pulumi/cmd/run/index.js`, the busiest should
 * there be more) stayed within {@link PROGRAM_BOUNDS}, and nothing was killed; returns it.
 */
export function expectProgramBounded(report: WatchReport): WatchedProcess {
  expect(report.killed, `the watchdog killed ${report.killed?.command}`).toBeUndefined();
  const program = report.processes
    .filter((p) => p.command.includes("cmd/run/index.js"))
    .sort((a, b) => b.cpuMs - a.cpuMs)[0];
  if (!program)
    throw new Error(`no program process among ${report.processes.map((p) => p.command).join("\n")}`);
  expect(program.peakRssBytes, "the program's peak RSS").toBeLessThan(PROGRAM_BOUNDS.peakBytes);
  expect(program.cpuMs, "the program's CPU time").toBeLessThan(PROGRAM_BOUNDS.cpuMs);
  expect(program.lastSeenMs - program.firstSeenMs, "the program's wall time").toBeLessThan(
    PROGRAM_BOUNDS.wallMs,
  );
  return program;
}
