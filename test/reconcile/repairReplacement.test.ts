/**
 * A double Ctrl-C during a replacement (create-before-delete), through the real CLI on both faces: the state
 * keeps the old server and a pending create of its replacement, whose server exists. `gamehost repair` used
 * to take the old server for "a later update recorded this resource anew" and cleared the pending create:
 * the replacement's server was then tracked nowhere, and the next `up` made another one (an orphan per
 * replaced server). Now it records the new server and marks the old one for deletion, as the engine would
 * have left them, so the next `up` deletes the old servers and creates nothing. The same for a Fleet
 * replaced (moved to another environment): its new servers were left to `gamehost sweep`.
 */
import { describe, expect, it } from "vitest";
import {
  fleetInputs,
  fleetProject,
  SCENARIO_TIMEOUT_MS,
  serversProject,
  useCliEnvironment,
} from "../cli/helpers";
import {
  FACES,
  fixtureIds,
  liveTagged,
  SERVERS_KEY,
  serverArgs,
  serversTagged,
  TYPES,
} from "../engine/helpers";
import { realCli, realCliTitle } from "../support/realPulumi";
import { expectStackHoldsLive, runGamehost, upStoppedByDoubleInterrupt } from "./helpers";

const COUNT = 2;

describe.skipIf(!realCli)(realCliTitle("gamehost repair after a double Ctrl-C during a replacement"), () => {
  const setup = useCliEnvironment("repair-replacement");

  it.each(FACES)(
    "the %s face: repair records the replacements, up deletes the replaced: 0 duplicates, 0 orphans",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const run = `repair-replacement-${face}`;
      const servers = (args: string[]) =>
        Object.fromEntries(
          Array.from({ length: COUNT }, (_, i) => [
            `s${i}`,
            serverArgs(setup.emulator, {
              tags: { run },
              readyTimeoutSeconds: 60,
              runtime: { build: fixtureIds(setup.emulator).buildId, arguments: args },
            }),
          ]),
        );
      const cli = await serversProject(setup.root, run, setup.emulator, servers(["--v", "1"]), { face });
      const live = () => liveTagged(setup.emulator, "run", run);

      await cli.ok(["up", "--yes", "--skip-preview"]);
      const first = live().map((s) => s.id);
      expect(first).toHaveLength(COUNT);

      // A runtime change replaces every server; the run is stopped while the replacements wait.
      await cli.setConfig({ [SERVERS_KEY]: { value: JSON.stringify(servers(["--v", "2"])) } });
      const result = await upStoppedByDoubleInterrupt(
        cli,
        setup.emulator,
        "the replacements",
        () => live().length === 2 * COUNT,
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).not.toBe(0);

      const repaired = await runGamehost(cli, ["repair", "--json"]);
      expect(repaired.code, repaired.stderr).toBe(0);
      const report = JSON.parse(repaired.stdout) as {
        pending: number;
        outcomes: Array<{ action: string; serverId?: string; replaces?: string }>;
      };
      console.info(`--- ${face}: gamehost repair\n${repaired.stdout}`);
      expect(report.pending).toBeGreaterThan(0);
      for (const o of report.outcomes) {
        expect(o.action).toBe("imported");
        expect(first).toContain(o.replaces);
      }

      const upOut = await cli.ok(["up", "--yes", "--skip-preview"]);
      expect(upOut).not.toMatch(/pending operations/);
      // One live server per key, each in the stack; the replaced servers are gone.
      const ids = await expectStackHoldsLive(cli, TYPES[face].server, live, COUNT);
      for (const id of first) expect(ids).not.toContain(id);
      // Every server ever made for this run: the first ones and one replacement each, none made twice.
      expect(serversTagged(setup.emulator, "run", run)).toHaveLength(2 * COUNT);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
    },
  );

  it.each(FACES)(
    "the %s face, a Fleet moved to another environment: repair records the new fleet, up deletes the old one",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const run = `repair-replacement-fleet-${face}`;
      const ids = fixtureIds(setup.emulator);
      const datacenters = { [ids.datacenterId]: COUNT };
      const cli = await fleetProject(
        setup,
        run,
        fleetInputs(setup.emulator, { run }, datacenters, { readyTimeoutSeconds: 60 }),
        face,
      );
      const live = () => liveTagged(setup.emulator, "run", run);
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const first = live().map((s) => s.id);
      expect(first).toHaveLength(COUNT);

      const staging = setup.emulator.fixture.games[0]?.environments.find((e) => e.nameId === "staging");
      expect(staging).toBeDefined();
      const moved = fleetInputs(setup.emulator, { run }, datacenters, { readyTimeoutSeconds: 60 });
      moved.environmentId = staging?.id ?? "";
      moved.template.runtime.build = staging?.builds[0]?.id ?? "";
      await cli.setConfig({ "gamehost-cli-fleet:fleet": { value: JSON.stringify(moved) } });
      const result = await upStoppedByDoubleInterrupt(
        cli,
        setup.emulator,
        "the new fleet's servers",
        () => live().length === 2 * COUNT,
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).not.toBe(0);

      const repaired = await runGamehost(cli, ["repair", "--json"]);
      expect(repaired.code, repaired.stderr).toBe(0);
      console.info(`--- ${face} fleet: gamehost repair\n${repaired.stdout}`);
      const report = JSON.parse(repaired.stdout) as { pending: number; outcomes: Array<{ action: string }> };
      expect(report.pending).toBe(1);
      expect(report.outcomes.map((o) => o.action)).toEqual(["imported"]);

      await cli.ok(["up", "--yes", "--skip-preview"]);
      const ids2 = live()
        .map((s) => s.id)
        .sort();
      expect(ids2).toHaveLength(COUNT);
      for (const id of first) expect(ids2).not.toContain(id);
      expect(live().every((s) => s.environment === staging?.id)).toBe(true);
      // Nothing made twice: the first fleet's servers and the new fleet's, once each.
      expect(serversTagged(setup.emulator, "run", run)).toHaveLength(2 * COUNT);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
    },
  );

  it("a Server's pending create that a later `up` made anew is still cleared (the state's server is newer)", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const run = "repair-replacement-anew";
    const cli = await serversProject(setup.root, run, setup.emulator, {
      a: serverArgs(setup.emulator, { tags: { run }, readyTimeoutSeconds: 60 }),
    });
    const live = () => liveTagged(setup.emulator, "run", run);
    await upStoppedByDoubleInterrupt(cli, setup.emulator, "the create", () => live().length === 1);
    const [interrupted] = live();
    // Without repair, `up` makes the server again; the CLI keeps the pending create.
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const repaired = await runGamehost(cli, ["repair", "--json"]);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(JSON.parse(repaired.stdout)).toMatchObject({ pending: 1, outcomes: [{ action: "cleared" }] });
    const tracked = Object.values(await cli.stateIds([TYPES.dynamic.server]));
    expect(tracked).toHaveLength(1);
    expect(tracked).not.toContain(interrupted?.id);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    // What the interrupted create made is left to `gamehost sweep`.
    expect(live().map((s) => s.id)).toEqual([interrupted?.id]);
  });
});
