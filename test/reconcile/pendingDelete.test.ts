/**
 * A replacement whose delete failed (`pulumi up --replace` while the service answers the DELETE with 500s)
 * leaves the replaced server in the state, marked for deletion (`delete: true`): the next `pulumi up`
 * deletes it. The `gamehost` commands must count it as the stack's: `adopt` offered it for import (and the
 * next `up` then destroyed the server just adopted), `drift` called it a stray and `sweep` said no stack
 * tracks it. `drift` reports it as a pending delete, and `reconcile --remediate` has the `up` delete it.
 */
import { describe, expect, it } from "vitest";
import { configure, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "../cli/helpers";
import {
  fixtureIds,
  liveTagged,
  SERVER_TYPE,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  serverArgs,
} from "../engine/helpers";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { runGamehost } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("gamehost commands and a server pending deletion"), () => {
  const setup = useCliEnvironment("pending-delete", { admin: true });

  it("a replaced server whose delete failed is the stack's: not adopted, not a stray, a pending delete that reconcile --remediate deletes", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const run = "pending-delete";
    const ids = fixtureIds(setup.emulator);
    const cli = programProject(setup.root, run, SERVERS_PROGRAM, { name: SERVERS_PROJECT });
    await configure(cli, {
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
      // One try per call: the injected 500s fail the delete at once.
      "gamehost:maxRetries": { value: "0" },
      [SERVERS_KEY]: { value: { lobby: serverArgs(setup.emulator, { tags: { run } }) } },
    });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const before = await cli.stateIds([SERVER_TYPE]);

    setup.emulator.faults.inject({ method: "DELETE", kind: "error_500", count: 100 });
    const urn = `urn:pulumi:dev::${SERVERS_PROJECT}::${SERVER_TYPE}::lobby`;
    const replaced = await cli.fails(["up", "--yes", "--skip-preview", "--replace", urn]);
    expect(replaced).toContain("500");
    setup.emulator.faults.clear();
    const pending = (await cli.exported()).filter((r) => r.type === SERVER_TYPE && r.delete === true);
    expect(pending.map((r) => r.id)).toEqual([before.lobby]);
    expect(liveTagged(setup.emulator, "run", run)).toHaveLength(2);

    const scope = ["--game", ids.gameId, "--environment", ids.environmentId, "--tag", `run=${run}`];
    const adopt = await runGamehost(cli, ["adopt", ...scope, "--json"]);
    expect(adopt.code, adopt.stderr).toBe(0);
    expect(JSON.parse(adopt.stdout)).toEqual({ resources: [] });
    const drift = await runGamehost(cli, ["drift", "--json"]);
    expect(drift.code, drift.stdout + drift.stderr).toBe(3);
    expect(JSON.parse(drift.stdout)).toMatchObject({
      drifted: [],
      strays: [],
      pendingDeletes: [{ urn, id: before.lobby }],
    });
    const sweep = await runGamehost(cli, ["sweep", ...scope, "--json"]);
    expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
    expect(JSON.parse(sweep.stdout)).toMatchObject({ strays: [] });

    // A remediating pass's up deletes it: one live server, the state's.
    const pass = await runGamehost(cli, ["reconcile", "--once", "--remediate"]);
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    expect(pass.stdout).toContain("1 pending deletes; remediated by up (delete-replaced 1)");
    const after = await cli.stateIds([SERVER_TYPE]);
    expect(liveTagged(setup.emulator, "run", run).map((s) => s.id)).toEqual([after.lobby]);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveTagged(setup.emulator, "run", run)).toEqual([]);
  });
});
