/**
 * A Fleet whose creates, then whose deletes, one rate-limit window refuses (stacks side by side used the
 * window up): the error says the service's reason once, naming the servers it stopped, not once per server
 * (a destroy of 22 servers said the same 429, with its request, for each of the 7 refused); what was refused
 * is neither created nor forgotten.
 */
import { describe, expect, it } from "vitest";
import { liveTagged } from "../engine/helpers";
import { realCli, realCliTitle } from "../support/realPulumi";
import { fleetInputs, fleetProject, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const HOUR = 3_600_000;

describe.skipIf(!realCli)(realCliTitle("a rate-limited Fleet"), () => {
  const setup = useCliEnvironment("fleet-rate-limited");

  it("says a 429's reason once for the servers it refused, on create and on delete", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const run = "rate-limited";
    const fleet = (count: number) => fleetInputs(setup.emulator, { run }, { "us-east-atl": count });
    const cli = await fleetProject(setup, run, fleet(2));
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const live = () => liveTagged(setup.emulator, "run", run);
    expect(live()).toHaveLength(2);
    const diagnostics = (out: string) => out.slice(out.indexOf("Diagnostics:"));

    // Scaled to 5: the three creates are refused for an hour.
    await cli.setConfig({ "gamehost-cli-fleet:fleet": { value: JSON.stringify(fleet(5)) } });
    setup.emulator.faults.inject({
      method: "POST",
      path: /\/servers$/,
      kind: "rate_limit",
      retryAfterMs: HOUR,
      count: 3,
    });
    const up = diagnostics(await cli.fails(["up", "--yes", "--skip-preview"]));
    expect(up).toMatch(
      // Named by their slots, the numbers the fleet's status lists (`Servers 2, 3, 4` read as server ids).
      /In datacenter us-east-atl: creating slots 2, 3, 4: The service refuses the create of a server .* until /,
    );
    expect(up.match(/The service refuses the create/g)).toHaveLength(1);
    expect(live()).toHaveLength(2);

    // Destroyed: both deletes are refused for an hour.
    setup.emulator.faults.inject({
      method: "DELETE",
      path: /\/servers\//,
      kind: "rate_limit",
      retryAfterMs: HOUR,
      count: 2,
    });
    const destroy = diagnostics(await cli.fails(["destroy", "--yes", "--skip-preview"]));
    const named = /Deleting the fleet's servers failed for 2 of 2 \(([\w-]+), ([\w-]+): Rate limited/.exec(
      destroy,
    );
    expect(named?.slice(1).sort(), destroy).toEqual(
      live()
        .map((s) => s.id)
        .sort(),
    );
    const error =
      destroy.split("\n").find((l) => l.includes("error: Deleting the fleet's servers failed")) ?? "";
    expect(error.match(/Rate limited/g), destroy).toHaveLength(1);
    expect(live()).toHaveLength(2);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
  });
});
