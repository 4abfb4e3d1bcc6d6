/**
 * `gamehost reconcile --once --remediate` after a double Ctrl-C, through the real CLI: the pass's repair
 * resolves the pending creates, and the `up` the interruption cut short is still to finish. A pending create
 * whose server never came (cleared) leaves a declared server that neither the state nor the service has,
 * which drift (a refresh) cannot see: the pass must not say "no drift" and exit 0 with that server missing,
 * but run its remediating `up`, which makes it once.
 */
import { describe, expect, it } from "vitest";
import { SCENARIO_TIMEOUT_MS, useCliEnvironment } from "../cli/helpers";
import { TYPES } from "../engine/helpers";
import { realCli, realCliTitle } from "../support/realPulumi";
import { pendingCreateOfALostServer, runGamehost } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("reconcile after a double Ctrl-C"), () => {
  const setup = useCliEnvironment("reconcile-interrupted");

  it("a cleared pending create: the pass runs its up, and the declared server runs once", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { cli, live } = await pendingCreateOfALostServer(setup, "reconcile-cleared");

    const pass = await runGamehost(cli, ["reconcile", "--once", "--remediate"]);
    expect(pass.code, `${pass.stdout}${pass.stderr}`).toBe(0);
    expect(pass.stdout).toMatch(
      /repaired 1 pending operations; .*1 interrupted create to finish; remediated by up \(create 1\)/,
    );
    const [server] = live();
    expect(live()).toHaveLength(1);
    expect(Object.values(await cli.stateIds([TYPES.dynamic.server]))).toEqual([server?.id]);

    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
