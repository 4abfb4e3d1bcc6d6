import { afterAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { FACES, serverArgs } from "../engine/helpers";
import { startTestEmulator } from "../support/emulator";
import { realCli, realCliTitle } from "../support/realPulumi";
import { connection, liveIds, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

/**
 * A developer's stack against the local emulator, which came back the next day on another port and without
 * `--state` (docs/emulator.md, `--state`): the servers in the state are gone, and `gamehost:baseUrl` is set to
 * the new port. refresh still calls the last up's URL; its error says so and what to do, and the docs' steps
 * bring the stack back with one server per declared one, none left behind.
 */
describe.skipIf(!realCli)(realCliTitle("the emulator came back on another port"), () => {
  const setup = useCliEnvironment("emulator-moved");
  const others: RunningEmulator[] = [];
  afterAll(async () => {
    for (const other of others) await other.stop();
  });

  it.each(FACES)(
    "the %s face: refresh names the recorded base URL and the fix; up, then up --refresh, makes the server again",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const yesterday = await startTestEmulator();
      others.push(yesterday);
      const cli = await serversProject(
        setup.root,
        `moved-${face}`,
        yesterday,
        {
          match: serverArgs(yesterday, { tags: { role: "match" } }),
        },
        { face },
      );
      await cli.ok(["up", "--yes", "--skip-preview"]);
      expect(liveIds(yesterday)).toHaveLength(1);
      await yesterday.stop();

      const today = setup.emulator; // another port, nothing kept
      await cli.setConfig(connection(today));
      const refresh = await cli.fails(["refresh", "--yes", "--skip-preview"]);
      expect(refresh).toContain(`Nothing answers at ${yesterday.url}`);
      expect(refresh).toMatch(
        /Without --run-program, `pulumi refresh` \(also the refresh of `pulumi up --refresh`\) and `pulumi destroy` use the gamehost:baseUrl of the last `pulumi up` \(kept in the state\), not one set since: after changing the base URL, run `pulumi up` first\./,
      );
      expect(refresh).not.toContain(today.tokens.user);

      // The fix as told: `pulumi up` records the new URL (it sees no change: the server is in the state),
      // then `pulumi up --refresh` finds the server gone and makes it again.
      await cli.ok(["up", "--yes", "--skip-preview"]);
      expect(liveIds(today, "match")).toEqual([]);
      await cli.ok(["up", "--refresh", "--yes", "--skip-preview"]);
      const live = liveIds(today, "match");
      expect(live).toHaveLength(1);
      expect(
        Object.values(await cli.stateIds(["pulumi-nodejs:dynamic/gamehost:Server", "gamehost:index:Server"])),
      ).toEqual(live);
      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(liveIds(today, "match")).toEqual([]);
      cli.expectNoLeak(today.tokens.user);
    },
  );
});
