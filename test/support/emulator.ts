import type { EmulatorOptions, RunningEmulator } from "../../src/emulator";
import { dist } from "./dist";

/** The ids a server spec needs, taken from the emulator's fixture (the main game's first environment). */
export interface ServerTarget {
  gameId: string;
  environmentId: string;
  datacenter: string;
  build: string;
  /** A second datacenter, to change a spec. */
  otherDatacenter: string;
}

export function serverTarget(emulator: RunningEmulator): ServerTarget {
  const game = emulator.fixture.games[0]!;
  const environment = game.environments[0]!;
  return {
    gameId: game.id,
    environmentId: environment.id,
    datacenter: game.datacenters[0]!.id,
    otherDatacenter: game.datacenters[1]!.id,
    build: environment.builds[0]!.id,
  };
}

/** Starts the compiled emulator with fast placement, for tests. */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return dist.emulator().startEmulator({ placementDelayMs: 20, watchHoldMs: 500, ...options });
}

/** The compiled package's API client, as the emulator's user: for what a script does outside Pulumi. */
export function userClient(emulator: RunningEmulator) {
  return new (dist.api().GamehostClient)({ baseUrl: emulator.url, token: emulator.tokens.user });
}

/**
 * A server's body as a script posts it outside Pulumi (`createServer`, wire names): one HTTP port, small
 * resources, the given datacenter, build and tags.
 */
export function wireServerBody(datacenter: string, build: string, tags: Record<string, string>) {
  return {
    datacenter,
    tags,
    runtime: { build },
    network: { ports: { web: { protocol: "http" as const, internal_port: 8080 } } },
    resources: { cpu: 250, memory: 256 },
  };
}

/** Servers in the emulator that are not destroyed. */
export function liveServers(emulator: RunningEmulator) {
  return emulator.servers().filter((s) => s.destroyed_at === undefined);
}

/**
 * Arguments of a Server (camelCase, as a program or a provider gets them) in the emulator's first game,
 * environment and datacenter: one HTTP port behind game guard, small resources. `overrides` replace
 * top-level fields.
 */
export function serverArgs<O extends Record<string, unknown>>(emulator: RunningEmulator, overrides?: O) {
  const target = serverTarget(emulator);
  return {
    gameId: target.gameId,
    environmentId: target.environmentId,
    datacenter: target.datacenter,
    tags: { role: "web" } as Record<string, string>,
    runtime: { build: target.build },
    network: { ports: { web: { protocol: "http" as const, internalPort: 8080 } } },
    resources: { cpu: 250, memory: 256 },
    ...overrides,
  };
}
