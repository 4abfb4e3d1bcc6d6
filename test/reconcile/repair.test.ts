/**
 * A double Ctrl-C during creates, through the real CLI on both faces: the second SIGINT ends `pulumi up`
 * at once and leaves pending creates in the state (the servers they made exist, tracked nowhere). Left
 * alone, the next `up` creates every one again. `gamehost repair` records the server each pending create
 * made (found by the key in its inputs), then `up` converges: the live servers of the run are exactly the
 * stack's, none twice, none orphaned.
 */
import { describe, expect, it } from "vitest";
import { configure, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "../cli/helpers";
import {
  FACES,
  liveTagged,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  serverArgs,
  TYPES,
} from "../engine/helpers";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  expectStackHoldsLive,
  pendingCreateOfALostServer,
  runGamehost,
  upStoppedByDoubleInterrupt,
} from "./helpers";

const COUNT = 8;

interface Exported {
  deployment: { pending_operations?: Array<{ type: string; resource: { urn: string } }> };
}

describe.skipIf(!realCli)(realCliTitle("gamehost repair after a double Ctrl-C"), () => {
  const setup = useCliEnvironment("repair");

  it.each(FACES)(
    "the %s face: repair, then up: 0 duplicates, 0 orphans",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const run = `repair-${face}`;
      const names = Array.from({ length: COUNT }, (_, i) => `s${i}`);
      const servers = Object.fromEntries(
        names.map((n) => [n, serverArgs(setup.emulator, { tags: { run }, readyTimeoutSeconds: 60 })]),
      );
      const cli = await serversProject(setup.root, run, setup.emulator, servers, { face });
      const live = () => liveTagged(setup.emulator, "run", run);

      const result = await upStoppedByDoubleInterrupt(
        cli,
        setup.emulator,
        "the creates",
        () => live().length === COUNT,
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).not.toBe(0);

      const before = JSON.parse(await cli.ok(["stack", "export"])) as Exported;
      const pending = (before.deployment.pending_operations ?? []).filter((p) => p.type === "creating");
      const tracked = Object.keys(await cli.stateIds([TYPES[face].server]));
      console.info(`--- ${face}: ${pending.length} pending creates, ${tracked.length} servers in the state`);
      // The interruption this command exists for: creates the state does not finish.
      expect(pending.length).toBeGreaterThan(0);
      expect(pending.length + tracked.length).toBe(COUNT);

      // A dry run reports and changes nothing.
      const dry = await runGamehost(cli, ["repair", "--dry-run", "--json"]);
      expect(dry.code, dry.stderr).toBe(0);
      const planned = JSON.parse(dry.stdout) as { pending: number; outcomes: Array<{ action: string }> };
      expect(planned.pending).toBe(pending.length);
      expect(planned.outcomes.every((o) => o.action === "imported")).toBe(true);
      // As a person reads it: what it would do, never "imported" (which would send them to `up`, and `up` would
      // create every server again).
      const dryLines = await runGamehost(cli, ["repair", "--dry-run"]);
      expect(dryLines.code, dryLines.stderr).toBe(0);
      expect(dryLines.stdout).not.toMatch(/^imported |\d+ imported/m);
      expect(dryLines.stdout).toMatch(/^would import urn:pulumi:/m);
      expect(dryLines.stdout).toContain(
        `dev (dry run, nothing changed): ${pending.length} to import, 0 to clear, 0 kept`,
      );
      const still = JSON.parse(await cli.ok(["stack", "export"])) as Exported;
      expect(still.deployment.pending_operations ?? []).toHaveLength(
        before.deployment.pending_operations?.length ?? 0,
      );

      const repaired = await runGamehost(cli, ["repair"]);
      console.info(`--- ${face}: gamehost repair\n${repaired.stdout}${repaired.stderr}`);
      expect(repaired.code, repaired.stderr).toBe(0);
      expect(repaired.stdout).toContain(`${pending.length} imported, 0 cleared, 0 kept`);
      const after = JSON.parse(await cli.ok(["stack", "export"])) as Exported;
      expect(after.deployment.pending_operations ?? []).toEqual([]);

      // A second repair has nothing to do.
      const again = await runGamehost(cli, ["repair", "--json"]);
      expect(JSON.parse(again.stdout)).toMatchObject({ pending: 0, outcomes: [] });

      const upOut = await cli.ok(["up", "--yes", "--skip-preview"]);
      expect(upOut).not.toMatch(/pending operations/);
      await expectStackHoldsLive(cli, TYPES[face].server, live, COUNT);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );

  it("a pending create whose server is gone is cleared, and up makes it once", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { cli, live } = await pendingCreateOfALostServer(setup, "repair-gone");
    const repaired = await runGamehost(cli, ["repair", "--json"]);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(JSON.parse(repaired.stdout)).toMatchObject({ pending: 1, outcomes: [{ action: "cleared" }] });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(live()).toHaveLength(1);
    expect(Object.values(await cli.stateIds([TYPES.dynamic.server]))).toEqual(live().map((s) => s.id));
  });

  it("bad input: a folder that is no project, an unknown stack: one line, exit 1; --stack selects nothing", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const cli = programProject(setup.root, "repair-bad", SERVERS_PROGRAM, {
      name: SERVERS_PROJECT,
      plugin: true,
    });
    await configure(cli, { [SERVERS_KEY]: { value: {} } });
    const noProject = await runGamehost(cli, ["repair", "--cwd", setup.root]);
    expect(noProject.code).toBe(1);
    expect(noProject.stderr.trim().split("\n")).toHaveLength(1);
    expect(noProject.stderr).toContain("is no Pulumi project");
    const unknown = await runGamehost(cli, ["repair", "--stack", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(
      `gamehost repair: stack "nope" does not exist in ${cli.dir} (stacks: dev)`,
    );
    // drift lists no stacks before its refresh preview: the CLI's failure for the unknown stack is mapped
    // to the same line.
    const unknownDrift = await runGamehost(cli, ["drift", "--stack", "nope"], {
      env: { GAMEHOST_BASE_URL: setup.emulator.url, GAMEHOST_TOKEN: setup.emulator.tokens.user },
    });
    expect(unknownDrift.code).toBe(1);
    expect(unknownDrift.stderr.trim()).toBe(
      `gamehost drift: stack "nope" does not exist in ${cli.dir} (stacks: dev)`,
    );
    // `--stack` works on another stack without selecting it, as `pulumi --stack other preview` does.
    await cli.ok(["stack", "init", "other"]);
    await cli.ok(["stack", "select", "dev"]);
    const other = await runGamehost(cli, ["drift", "--stack", "other"], {
      env: { GAMEHOST_BASE_URL: setup.emulator.url, GAMEHOST_TOKEN: setup.emulator.tokens.user },
    });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout.trim()).toBe("other: no drift");
    expect((await cli.ok(["stack", "--show-name"])).trim()).toBe("dev");
    const usage = await runGamehost(cli, ["repair", "--bogus"]);
    expect(usage.code).toBe(2);
    const help = await runGamehost(cli, ["repair", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes:");
  });
});
