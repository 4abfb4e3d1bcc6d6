import { describe, expect, it } from "vitest";
import { FACES, fixtureIds, liveTagged, SERVERS_KEY, serverArgs } from "../engine/helpers";
import { docBlock, shellCommands } from "../support/docBlocks";
import { realCli, realCliTitle } from "../support/realPulumi";
import {
  fleetInputs,
  fleetProject,
  liveIds,
  SCENARIO_TIMEOUT_MS,
  serversProject,
  useCliEnvironment,
} from "./helpers";

/** The docs section whose commands rotate a stack's token. */
const ROTATING = { page: "docs/installation-configuration.md", section: "Rotating the token" } as const;

describe.skipIf(!realCli)(realCliTitle("the provider's config kept in the state"), () => {
  const setup = useCliEnvironment("config-in-state");

  it.each(FACES)(
    "the %s face: refresh uses the last up's token, --run-program the new one; the docs' rotation takes it",
    {
      timeout: SCENARIO_TIMEOUT_MS,
    },
    async (face) => {
      const fleet = fleetInputs(
        setup.emulator,
        { run: `config-${face}` },
        { [fixtureIds(setup.emulator).datacenterId]: 1 },
      );
      const cli = await fleetProject(setup, `config-${face}`, fleet, face);
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const live = () => liveTagged(setup.emulator, "run", `config-${face}`);
      const wrong = "emu_user_nobody";
      await cli.setConfig({ "gamehost:token": { value: wrong, secret: true } });

      setup.emulator.resetRequests();
      await cli.ok(["refresh", "--skip-preview"]);
      const listed = setup.emulator.requests.filter((r) => r.route.startsWith("GET /games/"));
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.every((r) => r.status === 200)).toBe(true);

      const failed = await cli.fails(["refresh", "--skip-preview", "--run-program"]);
      expect(failed).toMatch(/The token is not valid.*set gamehost:token/);
      expect(failed).not.toContain(wrong);

      // That run of the program kept the wrong token in the state: with the right one set again, a destroy
      // that does not run the program still sends the wrong one (docs/troubleshooting.md); --run-program
      // takes the config.
      await cli.setConfig({ "gamehost:token": { value: setup.emulator.tokens.user, secret: true } });
      // The refusal says why a token just set is not the one sent, and the fix (issue: "set gamehost:token"
      // alone, to a user who had just set it).
      const stale = await cli.fails(["destroy", "--yes", "--skip-preview"]);
      expect(stale).toMatch(/The token is not valid/);
      expect(stale).toMatch(
        /Without --run-program, `pulumi refresh` and `pulumi destroy` send the gamehost:token of the last `pulumi up` \(kept in the state\), not one set since: after changing the token, run `pulumi up` first\./,
      );
      expect(stale).not.toContain(wrong);
      expect(live()).toHaveLength(1);
      // installation-configuration.md's "Rotating the token", as written: after its `up`, a destroy that does
      // not run the program sends the token set last.
      const rotate = shellCommands(docBlock(ROTATING.page, ROTATING.section, "sh"), [
        ["<new token>", setup.emulator.tokens.user],
      ]);
      expect(rotate.map((c) => c.split(/\s+/).slice(0, 2).join(" "))).toEqual(["pulumi config", "pulumi up"]);
      for (const command of rotate) await cli.ok(command.split(/\s+/).slice(1));
      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );

  it.each(FACES)(
    "the %s face: an up that moves a server to another game with that game's token says nothing of the state's token",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const { emulator } = setup;
      const other = emulator.fixture.games[1];
      const otherEnvironment = other?.environments[0];
      const otherBuild = otherEnvironment?.builds[0];
      const otherDatacenter = other?.datacenters[0];
      const otherToken = other && emulator.tokens.cloud[other.id];
      if (!other || !otherEnvironment || !otherBuild || !otherDatacenter || !otherToken)
        throw new Error("the fixture's second game lacks an environment, build, datacenter or cloud token");
      const role = `moved-${face}`;
      const cli = await serversProject(
        setup.root,
        role,
        emulator,
        { web: serverArgs(emulator, { tags: { role } }) },
        {
          face,
        },
      );
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const [first] = liveIds(emulator, role);

      // The replacement's create, in the other game, takes its token; the delete of the first server, in a
      // game that token cannot reach, is refused. The provider has the token just set, so "run pulumi up
      // first" (refresh's and destroy's advice) would send the user round in circles.
      const moved = serverArgs(emulator, {
        tags: { role },
        gameId: other.id,
        environmentId: otherEnvironment.id,
        datacenter: otherDatacenter.id,
        runtime: { build: otherBuild.id },
      });
      await cli.setConfig({
        "gamehost:token": { value: otherToken, secret: true },
        [SERVERS_KEY]: { value: JSON.stringify({ web: moved }) },
      });
      const refused = await cli.fails(["up", "--yes", "--skip-preview"]);
      expect(refused).toContain(first);
      expect(refused).not.toContain("Without --run-program");
      expect(refused).not.toContain(otherToken);
      expect(liveIds(emulator, role)).toHaveLength(2);

      // With a token that reaches both games, the next up finishes the replacement.
      await cli.setConfig({ "gamehost:token": { value: emulator.tokens.user, secret: true } });
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const [second] = liveIds(emulator, role);
      expect(liveIds(emulator, role)).toEqual([second]);
      expect(second).not.toBe(first);
      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(liveIds(emulator, role)).toEqual([]);
    },
  );
});
