/**
 * A Fleet whose creates one rate-limit window refuses (stacks side by side used the window up): the error
 * says the service's reason once, naming the servers it stopped, not once per server (with 20 servers the
 * same sentence 20 times buried the rest); nothing is created, and the stack records no server.
 */
import { describe, expect, it } from "vitest";
import { liveTagged } from "../engine/helpers";
import { realCli, realCliTitle } from "../support/realPulumi";
import { fleetInputs, fleetProject, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("a rate-limited Fleet"), () => {
  const setup = useCliEnvironment("fleet-rate-limited");

  it("says the 429's reason once for the servers it refused", { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    const run = "rate-limited";
    const cli = await fleetProject(setup, run, fleetInputs(setup.emulator, { run }, { "us-east-atl": 4 }));
    const hour = 3_600_000;
    setup.emulator.faults.inject({
      method: "POST",
      path: /\/servers$/,
      kind: "rate_limit",
      retryAfterMs: hour,
      count: 4,
    });
    const up = await cli.fails(["up", "--yes", "--skip-preview"]);
    const diagnostics = up.slice(up.indexOf("Diagnostics:"));
    expect(diagnostics).toMatch(
      /In datacenter us-east-atl: Servers 0, 1, 2, 3: The service refuses the create of a server .* until /,
    );
    expect(diagnostics.match(/The service refuses the create/g)).toHaveLength(1);
    expect(liveTagged(setup.emulator, "run", run)).toEqual([]);
  });
});
