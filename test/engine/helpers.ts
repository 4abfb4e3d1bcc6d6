/**
 * Shared pieces of the engine scenarios: stack config built from the emulator's fixture (as
 * `harness/demo.mjs` builds it), the config-driven `servers` program, and the check that the API token
 * never leaks into a checkpoint or a run's diagnostics.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import type { ConfigEntry, JsonValue, RunResult, Stack, Step } from "../../harness/src";
import type { Server } from "../../src/api/schemas";
import type { RunningEmulator } from "../../src/emulator";
import { dist } from "../support/dist";
import { startTestEmulator } from "../support/emulator";

/** What an engine scenario file runs against: its own emulator and a folder for its checkpoints. */
export interface EngineEnvironment {
  /** The file's emulator (started before its first test). */
  readonly emulator: RunningEmulator;
  /** A checkpoint path of its own in the file's folder: `<name>.json`, or a fresh numbered one. */
  checkpointFile(name?: string): string;
  /** The file's temp folder (its checkpoints' folder), for copies of programs. */
  readonly root: string;
}

/**
 * Starts an emulator and a checkpoint folder before the calling file's tests and removes both after
 * them. `label` names the folder, so a leftover one says which file made it.
 */
export function useEngineEnvironment(label: string): EngineEnvironment {
  let emulator: RunningEmulator | undefined;
  let stateDir: string | undefined;
  let stacks = 0;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `gamehost-engine-${label}-`));
  });
  afterAll(async () => {
    await emulator?.stop();
    if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the engine environment is used before its beforeAll ran");
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    checkpointFile: (name = `stack-${++stacks}`) => path.join(started(stateDir), `${name}.json`),
    get root() {
      return started(stateDir);
    },
  };
}

/** The quickstart example, run unchanged. */
export { QUICKSTART_DIR } from "../support/examples";
/** The fixture program declaring one Server per entry of its `servers` config. */
export const SERVERS_PROGRAM = path.join(__dirname, "programs", "servers");
/** Project (and config namespace) of {@link SERVERS_PROGRAM}. */
export const SERVERS_PROJECT = "gamehost-engine-servers";

/** Resource type tokens of the package's dynamic resources. */
export const SERVER_TYPE = "pulumi-nodejs:dynamic/gamehost:Server";
export const EXPORT_TYPE = "pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport";

/** The two faces of the resources: dynamic providers, and the provider plugin (`pulumi-gamehost/native`). */
export type Face = "dynamic" | "plugin";
export const FACES: readonly Face[] = ["dynamic", "plugin"];

/** Type tokens of each face's resources. */
export const TYPES: Record<Face, { server: string; export: string }> = {
  dynamic: { server: SERVER_TYPE, export: EXPORT_TYPE },
  plugin: { server: "gamehost:index:Server", export: "gamehost:index:LobbyHistoryExport" },
};

/** Config that makes the servers program use `face`. */
export function faceConfig(face: Face): Record<string, ConfigEntry> {
  return { [`${SERVERS_PROJECT}:face`]: { value: face } };
}

/** Emulator routes of the server API and of exports (the ones a preview must never call). */
export const ROUTES = {
  games: "GET /cloud/games",
  game: "GET /cloud/games/:game",
  createServer: "POST /games/:game/environments/:env/servers",
  listServers: "GET /games/:game/environments/:env/servers",
  listDatacenters: "GET /games/:game/environments/:env/datacenters",
  listBuilds: "GET /games/:game/environments/:env/builds",
  getServer: "GET /games/:game/environments/:env/servers/:server",
  deleteServer: "DELETE /games/:game/environments/:env/servers/:server",
  exportHistory: "POST /cloud/games/:game/matchmaker/lobbies/export-history",
  downloadExport: "GET /__exports/:upload/export.csv",
} as const;

/** The ids the programs need, from the emulator's fixture (the main game's `prod` environment). */
export interface FixtureIds {
  gameId: string;
  environmentId: string;
  datacenterId: string;
  buildId: string;
  gameName: string;
  /** Name id of the game, e.g. `space-race`. */
  gameNameId: string;
  environmentNames: string[];
}

export function fixtureIds(emulator: RunningEmulator): FixtureIds {
  const game = emulator.fixture.games[0];
  if (!game) throw new Error("the emulator fixture has no game");
  const environment = game.environments.find((e) => e.nameId === "prod") ?? game.environments[0];
  const datacenter = game.datacenters[0];
  const build = environment?.builds[0];
  if (!environment || !datacenter || !build)
    throw new Error("the fixture game lacks an environment, datacenter or build");
  return {
    gameId: game.id,
    environmentId: environment.id,
    datacenterId: datacenter.id,
    buildId: build.id,
    gameName: game.displayName,
    gameNameId: game.nameId,
    environmentNames: game.environments.map((e) => e.nameId),
  };
}

/** Provider connection config: the base URL, and the user token as a secret. */
export function connectionConfig(emulator: RunningEmulator): Record<string, ConfigEntry> {
  return {
    "gamehost:baseUrl": { value: emulator.url },
    "gamehost:token": { value: emulator.tokens.user, secret: true },
  };
}

/** The quickstart's stack config, as `harness/demo.mjs` builds it: names only, no UUID. */
export function quickstartConfig(emulator: RunningEmulator): Record<string, ConfigEntry> {
  return {
    ...connectionConfig(emulator),
    "gamehost-quickstart:game": { value: emulator.fixture.games[0]?.nameId ?? "" },
    "gamehost-quickstart:environment": { value: "prod" },
    "gamehost-quickstart:buildTags": { value: { channel: "stable" } },
  };
}

/** A plain-JSON `ServerArgs` for the servers program: one HTTP port behind game guard, small resources. */
export type ServerArgsJson = { [key: string]: JsonValue };

export function serverArgs(emulator: RunningEmulator, overrides: ServerArgsJson = {}): ServerArgsJson {
  const ids = fixtureIds(emulator);
  return {
    gameId: ids.gameId,
    environmentId: ids.environmentId,
    datacenter: ids.datacenterId,
    tags: { role: "web" },
    runtime: { build: ids.buildId },
    network: { ports: { web: { protocol: "http", internalPort: 8080 } } },
    resources: { cpu: 250, memory: 256 },
    readyTimeoutSeconds: 10,
    ...overrides,
  };
}

/** Config key of the servers program's declarations. */
export const SERVERS_KEY = `${SERVERS_PROJECT}:servers`;

/** Config entry declaring `servers` (name → args) to the servers program. */
export function serversEntry(servers: Record<string, ServerArgsJson>): ConfigEntry {
  return { value: servers };
}

/** Custom steps of the program's resources as `name: op` pairs, in the order applied. */
export function opsOf(steps: readonly Step[]): string[] {
  return steps
    .filter((s) => s.custom && !s.type.startsWith("pulumi:providers:"))
    .map((s) => `${s.name}: ${s.op}${s.replaced ? " (replaced)" : ""}`);
}

/** Emulator route names of requests since the last reset, sorted (for calls whose order is not fixed). */
export function routesCalled(emulator: RunningEmulator): string[] {
  return emulator.requests.map((r) => r.route).sort();
}

/** Servers in the emulator carrying `tag = value`, destroyed ones included. */
export function serversTagged(emulator: RunningEmulator, tag: string, value: string): Server[] {
  return emulator.servers().filter((s) => s.tags[tag] === value);
}

/** Live servers in the emulator carrying `tag = value`. */
export function liveTagged(emulator: RunningEmulator, tag: string, value: string): Server[] {
  return serversTagged(emulator, tag, value).filter((s) => s.destroyed_at === undefined);
}

/** The reserved idempotency tag of the Server resource. */
export const IDEMPOTENCY_TAG = dist.pkg().IDEMPOTENCY_TAG;

/** Every message a run produced: diagnostics, step errors, the run error. */
function runText(result: RunResult): string {
  return [
    ...result.diagnostics.map((d) => d.message),
    ...result.steps.flatMap((s) => [s.error ?? "", ...(s.initErrors ?? [])]),
    result.error ?? "",
  ].join("\n");
}

/**
 * Asserts the secret (the API token) is neither in the raw checkpoint bytes nor in anything the run
 * reported. Returns the result, so a run reads `const up = expectNoLeak(token, stack, await stack.up())`.
 */
export function expectNoLeak(secret: string, stack: Stack, result: RunResult): RunResult {
  expect(secret.length).toBeGreaterThan(0);
  expect(runText(result).includes(secret), "the token appears in the run's diagnostics").toBe(false);
  if (fs.existsSync(stack.checkpointFile)) {
    const raw = fs.readFileSync(stack.checkpointFile);
    expect(raw.includes(secret), "the token appears in the checkpoint file").toBe(false);
  }
  return result;
}

/** The state of one resource of the stack by name, secrets still wrapped. */
export function stateOf(stack: Stack, name: string) {
  return stack.resources().find((r) => r.custom && r.urn.endsWith(`::${name}`) && !r.delete);
}
