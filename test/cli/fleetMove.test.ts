import { describe, expect, it } from "vitest";
import { fixtureIds, serversTagged } from "../engine/helpers";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  configure,
  connection,
  FLEET_PROGRAM,
  FLEET_PROJECT,
  SCENARIO_TIMEOUT_MS,
  useCliEnvironment,
} from "./helpers";

describe.skipIf(!realCli)(realCliTitle("a Fleet moved to the native face"), () => {
  const setup = useCliEnvironment("fleet-move");

  it("state delete + import: the same servers, keyed by the program's slugs, then no changes", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const ids = fixtureIds(setup.emulator);
    const slug = setup.emulator.fixture.games[0]?.datacenters[0]?.slug ?? "";
    const fleet = {
      gameId: ids.gameId,
      environmentId: ids.environmentId,
      template: {
        tags: { run: "move" },
        runtime: { build: ids.buildId },
        network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
        resources: { cpu: 250, memory: 256 },
      },
      datacenters: { [slug]: 2 },
      rollout: { maxSurge: "25%", maxUnavailable: "25%" },
    };
    const cli = programProject(setup.root, "move", FLEET_PROGRAM, { name: FLEET_PROJECT, plugin: true });
    await configure(cli, { ...connection(setup.emulator), [`${FLEET_PROJECT}:fleet`]: { value: fleet } });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const live = () =>
      serversTagged(setup.emulator, "run", "move")
        .filter((s) => s.destroyed_at === undefined)
        .map((s) => s.id)
        .sort();
    const before = live();
    expect(before).toHaveLength(2);
    const dynamic = (await cli.exported()).find((r) => r.type === "pulumi-nodejs:dynamic/gamehost:Fleet");
    expect(dynamic?.id).toMatch(new RegExp(`^${ids.gameId}/${ids.environmentId}/[0-9a-f-]{36}$`));

    await cli.ok(["state", "delete", dynamic?.urn ?? "", "--yes"]);
    await cli.setConfig({
      [`${FLEET_PROJECT}:face`]: { value: "plugin" },
      [`${FLEET_PROJECT}:import`]: { value: dynamic?.id ?? "" },
    });
    setup.emulator.resetRequests();
    await cli.ok(["up", "--yes"]);
    expect(setup.emulator.requests.filter((r) => !r.route.startsWith("GET "))).toEqual([]);
    expect(live()).toEqual(before);
    const out = await cli.outputsJson();
    expect(Object.keys(out.status as object)).toEqual([slug]);
    expect(`${ids.gameId}/${ids.environmentId}/${out.fleetKey}`).toBe(dynamic?.id);
    await cli.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);

    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
