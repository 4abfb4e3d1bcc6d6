import { describe, expect, it } from "vitest";
import type { Server } from "../../src/api/schemas";
import type { RunningEmulator } from "../../src/emulator";
import { FACES, type Face, fixtureIds, ROUTES } from "../engine/helpers";
import { userClient } from "../support/emulator";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { until } from "../support/until";
import {
  type CliConfig,
  configure,
  connection,
  FLEET_PROGRAM,
  FLEET_PROJECT,
  SCENARIO_TIMEOUT_MS,
  useCliEnvironment,
} from "./helpers";

const FLEET_TAG = "pulumi-gamehost/fleet";
const SLOT_TAG = "pulumi-gamehost/fleet-slot";

interface DatacenterStatus {
  datacenter: string;
  readyCount: number;
  servers: { id: string; build: string; state: string; endpoints: Record<string, string> }[];
}

function fleetArgs(emulator: RunningEmulator, build: string, datacenters: Record<string, number>) {
  const ids = fixtureIds(emulator);
  return {
    gameId: ids.gameId,
    environmentId: ids.environmentId,
    template: {
      tags: { role: "arena" },
      runtime: { build },
      network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
      resources: { cpu: 250, memory: 256 },
    },
    datacenters,
    readyTimeoutSeconds: 20,
  };
}

const routeCounts = (emulator: RunningEmulator) => {
  const counts: Record<string, number> = {};
  for (const r of emulator.requests)
    if (!r.route.startsWith("GET ")) counts[r.route] = (counts[r.route] ?? 0) + 1;
  return counts;
};

/**
 * Checks, at every instant the fleet's server timeline changes (a create, a placement, a delete), that each
 * datacenter had ≥ count − maxUnavailable ready servers and ≤ count + maxSurge live ones.
 */
function expectBoundsHeld(
  servers: readonly Server[],
  from: number,
  bounds: Record<string, { count: number; maxSurge: number; maxUnavailable: number }>,
): number {
  let instants = 0;
  for (const [datacenter, { count, maxSurge, maxUnavailable }] of Object.entries(bounds)) {
    const here = servers.filter((s) => s.datacenter === datacenter);
    const times = [
      ...new Set(
        here.flatMap((s) => [s.created_at, s.started_at, s.destroyed_at]).filter((t) => t !== undefined),
      ),
    ]
      .filter((t) => t >= from)
      .sort((a, b) => a - b);
    for (const t of times) {
      const alive = here.filter(
        (s) => s.created_at <= t && (s.destroyed_at === undefined || s.destroyed_at > t),
      );
      const ready = alive.filter((s) => s.started_at !== undefined && s.started_at <= t);
      expect(alive.length, `live servers in ${datacenter} at ${t}`).toBeLessThanOrEqual(count + maxSurge);
      expect(ready.length, `ready servers in ${datacenter} at ${t}`).toBeGreaterThanOrEqual(
        count - maxUnavailable,
      );
      instants++;
    }
  }
  return instants;
}

describe.skipIf(!realCli)(realCliTitle("Fleet"), () => {
  const setup = useCliEnvironment("fleet");

  const project = async (face: Face, run: string, fleet: unknown) => {
    const cli = programProject(setup.root, run, FLEET_PROGRAM, { name: FLEET_PROJECT, plugin: true });
    const config: CliConfig = {
      ...connection(setup.emulator),
      [`${FLEET_PROJECT}:face`]: { value: face },
      [`${FLEET_PROJECT}:fleet`]: { value: fleet },
    };
    await configure(cli, config);
    return cli;
  };

  it.each(FACES)(
    "the %s face: 2 × 3 servers, scale 3 → 5, a bounded rollout, a stopped rollout finished, 2 dead servers replaced, SIGINT mid-rollout then up converges with 0 duplicates and 0 orphans",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const { emulator } = setup;
      const ids = fixtureIds(emulator);
      const game = emulator.fixture.games[0];
      const [atl, fra] = [game?.datacenters[0], game?.datacenters[1]];
      if (!atl || !fra) throw new Error("the fixture has fewer than 2 datacenters");
      const builds =
        game?.environments.find((e) => e.id === ids.environmentId)?.builds.map((b) => b.id) ?? [];
      const [buildA, buildB] = builds as [string, string];
      // One datacenter by slug, one by id: both forms are keys of `datacenters`.
      const fleetType = face === "plugin" ? "gamehost:index:Fleet" : "pulumi-nodejs:dynamic/gamehost:Fleet";
      const recorded = async () => (await cli.exported()).find((r) => r.type === fleetType)?.outputs ?? {};
      let args = fleetArgs(emulator, buildA, { [atl.slug]: 3, [fra.id]: 3 });
      const cli = await project(face, `fleet-${face}`, args);
      const set = async (next: typeof args) => {
        args = next;
        await cli.setConfig({ [`${FLEET_PROJECT}:fleet`]: { value: JSON.stringify(next) } });
      };

      emulator.resetRequests();
      await cli.ok(["up", "--yes", "--skip-preview"]);
      let out = await cli.outputsJson();
      const fleetKey = String(out.fleetKey);
      const members = () => emulator.servers().filter((s) => s.tags[FLEET_TAG] === fleetKey);
      const live = () => members().filter((s) => s.destroyed_at === undefined);
      const stateIds = (o: Record<string, unknown>) =>
        Object.values(o.status as Record<string, DatacenterStatus>)
          .flatMap((d) => d.servers.map((s) => s.id))
          .sort();
      expect(routeCounts(emulator)).toEqual({ [ROUTES.createServer]: 6 });
      let status = out.status as Record<string, DatacenterStatus>;
      expect(Object.keys(status).sort()).toEqual([atl.slug, fra.id].sort());
      for (const [key, dc] of Object.entries(status)) {
        expect(dc.readyCount, key).toBe(3);
        expect(dc.servers.map((s) => s.state)).toEqual(["ready", "ready", "ready"]);
        const byId = new Map(live().map((s) => [s.id, s]));
        for (const s of dc.servers) {
          const server = byId.get(s.id);
          expect(server?.datacenter).toBe(dc.datacenter);
          const port = server?.network.ports.game;
          expect(s.endpoints.game).toBe(`${port?.public_hostname}:${port?.public_port}`);
          expect(s.build).toBe(buildA);
        }
      }
      expect(stateIds(out)).toEqual(
        live()
          .map((s) => s.id)
          .sort(),
      );
      // One checkpoint entry for the six servers.
      expect(Object.keys(await cli.stateIds([fleetType]))).toEqual(["arena"]);

      emulator.resetRequests();
      await cli.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
      expect(routeCounts(emulator)).toEqual({});

      // Scale 3 → 5 in one datacenter: two creates and nothing else.
      await set({ ...args, datacenters: { [atl.slug]: 5, [fra.id]: 3 } });
      emulator.resetRequests();
      await cli.ok(["up", "--yes", "--skip-preview"]);
      expect(routeCounts(emulator)).toEqual({ [ROUTES.createServer]: 2 });
      expect(live()).toHaveLength(8);

      // A build change: both bounds at every instant (defaults 25 %: count 5 → surge 2, unavailable 1;
      // count 3 → surge 1, unavailable 0).
      const rollStart = Date.now();
      await set({ ...args, template: { ...args.template, runtime: { build: buildB } } });
      await cli.ok(["up", "--yes", "--skip-preview"]);
      out = await cli.outputsJson();
      expect(out.generation).toBe(2);
      expect(live().map((s) => s.runtime.build)).toEqual(Array(8).fill(buildB));
      const bounds = {
        [atl.id]: { count: 5, maxSurge: 2, maxUnavailable: 1 },
        [fra.id]: { count: 3, maxSurge: 1, maxUnavailable: 0 },
      };
      expect(expectBoundsHeld(members(), rollStart, bounds)).toBeGreaterThan(16);
      expect(stateIds(out)).toEqual(
        live()
          .map((s) => s.id)
          .sort(),
      );

      // Faults mid-rollout: every create of the service fails (after the rollout began), the run stops
      // and records exactly what exists; the next `up` finishes the rollout.
      const failStart = Date.now();
      await set({ ...args, template: { ...args.template, runtime: { build: buildA } } });
      const stopped = cli.start(["up", "--yes", "--skip-preview"]);
      await until(
        () => live().some((s) => s.runtime.build === buildA && s.started_at !== undefined),
        "the first new server",
      );
      emulator.faults.inject({
        method: "POST",
        path: "/games/:game/environments/:env/servers",
        kind: "error_500",
        count: 1000,
      });
      const failed = await stopped.done;
      emulator.faults.clear();
      expect(failed.code, failed.stdout).not.toBe(0);
      expect(`${failed.stdout}${failed.stderr}`).toMatch(/The fleet stopped/);
      // The stack's outputs keep the last successful run's values: the fleet's own state says what exists.
      out = await recorded();
      expect(stateIds(out)).toEqual(
        live()
          .map((s) => s.id)
          .sort(),
      );
      const builds1 = live().map((s) => s.runtime.build);
      expect(builds1).toContain(buildB); // the rollout had not finished
      emulator.resetRequests();
      await cli.ok(["up", "--yes", "--skip-preview"]);
      out = await cli.outputsJson();
      expect(live().map((s) => s.runtime.build)).toEqual(Array(8).fill(buildA));
      expect(stateIds(out)).toEqual(
        live()
          .map((s) => s.id)
          .sort(),
      );
      expectBoundsHeld(members(), failStart, bounds);

      // Two servers die; refresh sees it; the next up replaces exactly those two.
      const client = userClient(emulator);
      status = out.status as Record<string, DatacenterStatus>;
      const victims = [status[atl.slug]?.servers[0]?.id, status[fra.id]?.servers[1]?.id] as string[];
      for (const id of victims) await client.deleteServer(ids.gameId, ids.environmentId, id);
      await cli.ok(["refresh", "--yes", "--skip-preview"]);
      out = await recorded();
      expect(stateIds(out)).toHaveLength(6);
      expect(stateIds(out)).not.toContain(victims[0]);
      emulator.resetRequests();
      await cli.ok(["up", "--yes", "--skip-preview"]);
      expect(routeCounts(emulator)).toEqual({ [ROUTES.createServer]: 2 });
      expect(live()).toHaveLength(8);
      // Every live server has its own slot in its datacenter: no duplicates.
      const slots = live().map((s) => `${s.datacenter}/${s.tags[SLOT_TAG]}`);
      expect(new Set(slots).size).toBe(slots.length);

      // SIGINT mid-rollout (no server of the new build is ever placed), then `up` converges with 0 duplicates
      // and 0 orphans. On this fleet rather than one of its own, which made, deployed and destroyed the same
      // program a second time. The dynamic provider host has no Cancel: its waits run to readyTimeoutSeconds.
      await set({ ...args, template: { ...args.template, runtime: { build: buildB } } });
      emulator.setPlacement("never");
      let interrupted: Awaited<ReturnType<typeof cli.run>>;
      try {
        const up = cli.start(["up", "--yes", "--skip-preview"]);
        await until(() => live().some((s) => s.runtime.build === buildB), "the rollout's first creates");
        up.child.kill("SIGINT");
        interrupted = await up.done;
      } finally {
        emulator.setPlacement("auto");
      }
      expect(interrupted.code, interrupted.stdout).not.toBe(0);
      await cli.ok(["up", "--yes", "--skip-preview"]);
      // 0 orphans: every live server of the fleet is in its state; 0 duplicates: 8, each in its own slot.
      out = await recorded();
      expect(
        live()
          .map((s) => s.id)
          .sort(),
      ).toEqual(stateIds(out));
      expect(live()).toHaveLength(8);
      expect(live().every((s) => s.runtime.build === buildB && s.started_at !== undefined)).toBe(true);
      const converged = live().map((s) => `${s.datacenter}/${s.tags[SLOT_TAG]}`);
      expect(new Set(converged).size).toBe(8);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
      cli.expectNoLeak(emulator.tokens.user);
    },
  );
});
