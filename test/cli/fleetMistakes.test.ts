import { describe, expect, it } from "vitest";
import { FACES, fixtureIds, liveTagged, serversTagged } from "../engine/helpers";
import { realCli, realCliTitle } from "../support/realPulumi";
import { FLEET_PROJECT, fleetInputs, fleetProject, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const FLEET_TYPE = "pulumi-nodejs:dynamic/gamehost:Fleet";

describe.skipIf(!realCli)(realCliTitle("Fleet mistakes"), () => {
  const setup = useCliEnvironment("fleet-mistakes");

  it("a misspelt datacenter slug, on create and on update: one error naming it, nothing changed; then refresh and destroy where nothing answers: the cause and fix, no stack trace, nothing lost", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const slugs = (setup.emulator.fixture.games[0]?.datacenters ?? []).map((d) => d.slug).sort();
    const fleet = (datacenters: Record<string, number>) =>
      fleetInputs(setup.emulator, { run: "misspelt" }, datacenters);
    const cli = await fleetProject(setup, "misspelt", fleet({ "us-east-alt": 2 }));
    const live = () => liveTagged(setup.emulator, "run", "misspelt");
    const expectNamed = (out: string) => {
      expect(out).toContain(
        `datacenters.us-east-alt: is not a datacenter of the game's cluster: give a datacenter UUID or one of the slugs ${slugs.join(", ")}`,
      );
      expect(out).not.toMatch(/The fleet stopped|run `pulumi up` again/);
    };

    expectNamed(await cli.fails(["up", "--yes", "--skip-preview"]));
    expect(live()).toEqual([]);
    expect(await cli.stateIds([FLEET_TYPE])).toEqual({});

    const atl = slugs.find((s) => s === "us-east-atl") ?? String(slugs[0]);
    await cli.setConfig({ [`${FLEET_PROJECT}:fleet`]: { value: JSON.stringify(fleet({ [atl]: 2 })) } });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const before = live()
      .map((s) => s.id)
      .sort();
    expect(before).toHaveLength(2);
    const recorded = (await cli.exported()).find((r) => r.type === FLEET_TYPE);

    await cli.setConfig({
      [`${FLEET_PROJECT}:fleet`]: { value: JSON.stringify(fleet({ "us-east-alt": 2 })) },
    });
    /** The same servers run, and the fleet's state is the last good run's. */
    const expectUnchanged = async () => {
      expect(
        live()
          .map((s) => s.id)
          .sort(),
      ).toEqual(before);
      expect((await cli.exported()).find((r) => r.type === FLEET_TYPE)?.outputs).toEqual(recorded?.outputs);
    };
    expectNamed(await cli.fails(["up", "--yes", "--skip-preview"]));
    // The misspelt declaration is not recorded.
    await expectUnchanged();

    await cli.setConfig({ [`${FLEET_PROJECT}:fleet`]: { value: JSON.stringify(fleet({ [atl]: 2 })) } });
    await cli.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);

    // Refresh and destroy where nothing answers, on this fleet (a stack of its own made, deployed and destroyed
    // the same program a second time): the SDK's dynamic host printed the provider's error with its stack trace
    // under the stack, for a failed read (refresh) or delete (destroy); the resource's error alone said the
    // cause and the fix. Nothing is lost: the servers run on, the fleet's state is the last good run's.
    await cli.setConfig({ "gamehost:baseUrl": { value: "http://127.0.0.1:9" } });
    for (const command of ["refresh", "destroy"]) {
      const out = await cli.fails([command, "--yes", "--skip-preview", "--run-program"]);
      expect(out, "no stack trace").not.toMatch(/^\s+at /m);
      expect(out).toContain("Nothing answers at http://127.0.0.1:9");
      expect(out).toContain("`pulumi config set gamehost:baseUrl <url>`");
      // Destroy's list of servers the state missed fails with the deletes: the cause is said once.
      if (command === "destroy") expect(out).toContain("failed too, for the same reason.");
      await expectUnchanged();
    }
    await cli.setConfig({ "gamehost:baseUrl": { value: setup.emulator.url } });
    await cli.ok(["destroy", "--yes", "--skip-preview", "--run-program"]);
    expect(live()).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });

  it.each(FACES)(
    "the %s face, counts and rollout bounds out of range: the preview names each and what it takes, nothing made",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const [atl, fra] = (setup.emulator.fixture.games[0]?.datacenters ?? []).map((d) => d.slug);
      const fleet = fleetInputs(
        setup.emulator,
        { run: `bounds-${face}` },
        { [String(atl)]: -1, [String(fra)]: 1.5 },
        { rollout: { maxSurge: -2, maxUnavailable: "abc" } },
      );
      const cli = await fleetProject(setup, `bounds-${face}`, fleet, face);
      const out = await cli.fails(["preview"]);
      const count = "must be a whole number from 0 to 1000";
      expect(out).toContain(`property datacenters.${atl} value {<nil>} has a problem: ${count} (given: -1)`);
      expect(out).toContain(`property datacenters.${fra} value {<nil>} has a problem: ${count} (given: 1.5)`);
      const bound =
        'must be a count (a whole number ≥ 0, e.g. 1) or a whole percentage from "0%" to "100%" (e.g. "25%")';
      expect(out).toContain(`property rollout.maxSurge value {<nil>} has a problem: ${bound} (given: -2)`);
      // The dynamic host cannot tell a secret string from a plain one: it quotes no string given.
      expect(out).toContain(`property rollout.maxUnavailable value {<nil>} has a problem: ${bound}`);
      expect(out).not.toMatch(/Too small|Too big|expected number/);
      expect(serversTagged(setup.emulator, "run", `bounds-${face}`)).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );

  it("a required field left out: the preview names it as required", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const fleet = fleetInputs(setup.emulator, {}, { [fixtureIds(setup.emulator).datacenterId]: 1 });
    // Left out: the template's tags and its memory.
    const { tags: _tags, ...template } = fleet.template;
    const cli = await fleetProject(setup, "no-tags", {
      ...fleet,
      template: { ...template, resources: { cpu: 250 } },
    });
    const out = await cli.fails(["preview"]);
    expect(out).toMatch(/property template\.tags .*is required: a map \(`\{\}` for none\)/);
    expect(out).toMatch(/property template\.resources\.memory .*is required: a number/);
    expect(out).not.toMatch(/received undefined/);
  });
});
