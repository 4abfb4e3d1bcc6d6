/**
 * A server recorded before it was ready (a partial create) that the service then no longer knows: the
 * emulator restarted without `--state` while `pulumi up` waited, through the real CLI. The next plain `up`
 * waits for it again and meets a not-found: its error must say what happened and what to run (`pulumi up
 * --refresh`), not "check the server id" (the user gave none). That command then makes the server once.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { serverArgs, TYPES } from "../engine/helpers";
import { liveServers, startTestEmulator } from "../support/emulator";
import { realCli, realCliTitle } from "../support/realPulumi";
import { SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("a server gone before it was ready"), () => {
  const setup = useCliEnvironment("gone-before-ready");
  let restarted: RunningEmulator | undefined;
  afterAll(async () => {
    await restarted?.stop();
  });

  it("the dynamic face: the up names `pulumi up --refresh`, which makes the server once", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const first = setup.emulator;
    first.setPlacement("never");
    const cli = await serversProject(setup.root, "gone", first, {
      a: serverArgs(first, { tags: { role: "gone" }, readyTimeoutSeconds: 1 }),
    });
    // Never placed: recorded as a partial create, with its id.
    expect(await cli.fails(["up", "--yes", "--skip-preview"])).toMatch(/was not ready after 1s/);
    const [recorded] = Object.values(await cli.stateIds([TYPES.dynamic.server]));
    expect(recorded).toBeDefined();

    // The service restarts without its data, on the same URL.
    const port = first.port;
    await first.stop();
    restarted = await startTestEmulator({ port });
    expect(liveServers(restarted)).toEqual([]);

    const failed = await cli.fails(["up", "--yes", "--skip-preview"]);
    expect(failed).toContain(`Server ${recorded} was created, but the service no longer knows it`);
    expect(failed).toContain("run `pulumi up --refresh`");
    expect(failed).not.toContain("check the server id");

    await cli.ok(["up", "--refresh", "--yes", "--skip-preview"]);
    const live = liveServers(restarted).map((s) => s.id);
    expect(live).toHaveLength(1);
    expect(Object.values(await cli.stateIds([TYPES.dynamic.server]))).toEqual(live);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(restarted)).toEqual([]);
    cli.expectNoLeak(restarted.tokens.user);
  });
});
