/**
 * What docs/installation-configuration.md says of a changed `gamehost:token`, through the real CLI on both
 * faces: Pulumi keeps the provider's configuration of the last program run in the state (the token
 * encrypted), so `pulumi refresh` (no program run) still reaches the service with the old token after the
 * config changed, and `--run-program` uses the new one (here a wrong one: its error names the key). That
 * run keeps the wrong token in the state: a plain `destroy` after the right one is set again still fails,
 * and `destroy --run-program` (what docs/troubleshooting.md says to do) removes the fleet.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FACES, fixtureIds, serversTagged } from "../engine/helpers";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { configure, connection, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const PROGRAM = path.join(__dirname, "programs", "fleet");
const PROJECT = "gamehost-cli-fleet";

describe.skipIf(!realCli)(realCliTitle("the provider's config kept in the state"), () => {
  const setup = useCliEnvironment("config-in-state");

  it.each(FACES)(
    "the %s face: refresh uses the last up's token, --run-program the new one",
    {
      timeout: SCENARIO_TIMEOUT_MS,
    },
    async (face) => {
      const ids = fixtureIds(setup.emulator);
      const cli = programProject(setup.root, `config-${face}`, PROGRAM, { name: PROJECT, plugin: true });
      await configure(cli, {
        ...connection(setup.emulator),
        [`${PROJECT}:face`]: { value: face },
        [`${PROJECT}:fleet`]: {
          value: {
            gameId: ids.gameId,
            environmentId: ids.environmentId,
            template: {
              tags: { run: `config-${face}` },
              runtime: { build: ids.buildId },
              network: { ports: { web: { protocol: "http", internalPort: 8080 } } },
              resources: { cpu: 250, memory: 256 },
            },
            datacenters: { [ids.datacenterId]: 1 },
          },
        },
      });
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const live = () =>
        serversTagged(setup.emulator, "run", `config-${face}`).filter((s) => s.destroyed_at === undefined);
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
      expect(await cli.fails(["destroy", "--yes", "--skip-preview"])).toMatch(/The token is not valid/);
      expect(live()).toHaveLength(1);
      await cli.ok(["destroy", "--yes", "--skip-preview", "--run-program"]);
      expect(live()).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );
});
