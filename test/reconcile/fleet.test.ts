/**
 * A Fleet under the `gamehost` command, through the real CLI: a double Ctrl-C during the fleet's create
 * leaves a pending create whose servers carry the fleet's key. `sweep` does not offer them (nor, once
 * recorded, the fleet's servers) for deletion; `repair` records the fleet, and the next `up` makes no
 * second fleet. Without it the next `up` made a new fleet (a new key) beside the first: every server twice.
 * A double Ctrl-C during a scale-up, then the change reverted: `repair` refreshes the fleet, and the next `up`
 * deletes what the interrupted update made (before, it saw nothing to do and left them, in no state); a
 * `reconcile --remediate` pass runs that `up` itself.
 * A pending create the next `up` made anew is cleared, and what it had made is left to `sweep`. Servers
 * of a fleet that die are drift (its `status` changed; before, `drift` said "no drift" and `reconcile
 * --remediate` never replaced them), and `reconcile --once --remediate` replaces exactly those. A stack
 * of Fleets alone is checked as one of Servers: a server a script left with the fleet's template tags is
 * a stray, a rejected token is an error, and the `reconcile` loop watches the fleet's game (before, its
 * servers' scope and tags were not read: `drift` said "no drift", exit 0, with a stray beside the fleet or
 * with a token the service refuses, and no change to the game started a pass).
 */

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import {
  FLEET_PROJECT,
  fleetInputs,
  fleetProject,
  SCENARIO_TIMEOUT_MS,
  useCliEnvironment,
  yamlProject,
} from "../cli/helpers";
import { FACES, type Face, fixtureIds, liveTagged } from "../engine/helpers";
import { dist } from "../support/dist";
import { liveServers } from "../support/emulator";
import { realCli, realCliTitle } from "../support/realPulumi";
import { until } from "../support/until";
import { gamehost, runGamehost, upStoppedByDoubleInterrupt } from "./helpers";

const FLEET_TAG = "pulumi-gamehost/fleet";
const SLOT_TAG = "pulumi-gamehost/fleet-slot";
const COUNT = 6;

interface Exported {
  deployment: { pending_operations?: Array<{ type: string; resource: { urn: string } }> };
}

/** The fleet of each test: `count` servers (tagged `role: arena` and its run) in the first datacenter. */
function fleetArgs(emulator: RunningEmulator, run: string, count = COUNT) {
  const datacenters = { [fixtureIds(emulator).datacenterId]: count };
  return fleetInputs(emulator, { role: "arena", run }, datacenters, { readyTimeoutSeconds: 60 });
}

describe.skipIf(!realCli)(realCliTitle("gamehost repair and sweep with a Fleet"), () => {
  const setup = useCliEnvironment("fleet-repair");
  const client = () =>
    new (dist.api().GamehostClient)({ baseUrl: setup.emulator.url, token: setup.emulator.tokens.user });

  // A test that fails leaves its servers: deleted here, so that the next test's sweep (of the whole environment)
  // finds only what that test made, and fails only for a fault of its own.
  afterEach(async () => {
    const ids = fixtureIds(setup.emulator);
    for (const server of liveServers(setup.emulator))
      await client().deleteServer(ids.gameId, ids.environmentId, server.id);
  });

  /** A fleet stack whose `up` was ended by a double Ctrl-C during the fleet's create. */
  async function interrupted(face: Face, run: string) {
    const cli = await fleetProject(setup, run, fleetArgs(setup.emulator, run), face);
    const live = () => liveTagged(setup.emulator, "run", run);
    const result = await upStoppedByDoubleInterrupt(
      cli,
      setup.emulator,
      "the fleet's creates",
      () => live().length === COUNT,
    );
    expect(result.code, `${result.stdout}\n${result.stderr}`).not.toBe(0);
    const exported = JSON.parse(await cli.ok(["stack", "export"])) as Exported;
    const pending = (exported.deployment.pending_operations ?? []).filter((p) => p.type === "creating");
    expect(pending.map((p) => p.resource.urn)).toEqual([expect.stringMatching(/Fleet::arena$/)]);
    return { cli, live };
  }

  const scope = () => {
    const ids = fixtureIds(setup.emulator);
    return ["--game", ids.gameId, "--environment", ids.environmentId];
  };

  it.each(FACES)(
    "the %s face: sweep leaves the fleet's servers alone; repair, then up: one fleet, no server twice",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const { cli, live } = await interrupted(face, `fleet-repair-${face}`);
      const made = live();
      const fleetKey = made[0]?.tags[FLEET_TAG];

      // Not strays: the pending create's key is the stack's (repair records them).
      const swept = await runGamehost(cli, ["sweep", ...scope(), "--json"]);
      expect(swept.code, swept.stderr).toBe(0);
      expect((JSON.parse(swept.stdout) as { strays: unknown[] }).strays).toEqual([]);

      const repaired = await runGamehost(cli, ["repair"]);
      expect(repaired.code, repaired.stderr).toBe(0);
      expect(repaired.stdout).toContain("1 imported, 0 cleared, 0 kept");
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const out = await cli.outputsJson();
      expect(out.fleetKey).toBe(fleetKey);
      // The servers the interrupted create made, none twice, all in the fleet's state.
      expect(
        live()
          .map((s) => s.id)
          .sort(),
      ).toEqual(made.map((s) => s.id).sort());
      const recorded = Object.values(out.status as Record<string, { servers: { id: string }[] }>)
        .flatMap((d) => d.servers.map((s) => s.id))
        .sort();
      expect(recorded).toEqual(made.map((s) => s.id).sort());
      expect(new Set(live().map((s) => s.tags[SLOT_TAG])).size).toBe(COUNT);
      await cli.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);

      // A recorded fleet's servers are the stack's: sweep lists none, drift sees no drift.
      const again = await runGamehost(cli, ["sweep", ...scope(), "--json"]);
      expect(again.code, again.stderr).toBe(0);
      expect((JSON.parse(again.stdout) as { strays: unknown[] }).strays).toEqual([]);
      const drift = await runGamehost(cli, ["drift"]);
      expect(drift.code, `${drift.stdout}${drift.stderr}`).toBe(0);

      // A hard interruption of an update (a scale-up whose creates wait), then the program put back as it
      // was (a reverted commit): the state still holds the fleet as it was before that update, so the next
      // `up` sees inputs equal to the recorded ones and changes nothing. `repair` reads the fleet in: the
      // `up` after it deletes the servers the interrupted update made. (Before, repair said "no pending
      // creates, nothing to repair" and the `up` left them running, in no state: 8 live, 6 recorded.)
      const fleetConfig = (count: number) => ({
        [`${FLEET_PROJECT}:fleet`]: {
          value: JSON.stringify(fleetArgs(setup.emulator, `fleet-repair-${face}`, count)),
        },
      });
      await cli.setConfig(fleetConfig(COUNT + 2));
      const scaling = await upStoppedByDoubleInterrupt(
        cli,
        setup.emulator,
        "the scale-up's creates",
        () => live().length === COUNT + 2,
      );
      expect(scaling.code, `${scaling.stdout}\n${scaling.stderr}`).not.toBe(0);
      const pendingUpdate = JSON.parse(await cli.ok(["stack", "export"])) as Exported;
      expect((pendingUpdate.deployment.pending_operations ?? []).map((p) => p.type)).toEqual(["updating"]);
      await cli.setConfig(fleetConfig(COUNT));
      // On the plugin face as a person does it (repair, then up); on the dynamic face as a reconcile pass does
      // (its repair refreshed the fleet, so its drift found none, and it ran no remediating up).
      if (face === "plugin") {
        const refreshed = await runGamehost(cli, ["repair"]);
        expect(refreshed.code, refreshed.stderr).toBe(0);
        expect(refreshed.stdout).toMatch(/^refreshed urn:\S+Fleet::arena: /m);
        await cli.ok(["up", "--yes", "--skip-preview"]);
      } else {
        const pass = await runGamehost(cli, ["reconcile", "--once", "--remediate"]);
        expect(pass.code, `${pass.stdout}${pass.stderr}`).toBe(0);
        expect(pass.stdout).toMatch(
          /repaired 1 pending operations; no drift; 1 interrupted fleet update to finish; remediated by up \(update 1\)/,
        );
      }
      const reverted = await cli.outputsJson();
      const recordedNow = Object.values(reverted.status as Record<string, { servers: { id: string }[] }>)
        .flatMap((d) => d.servers.map((s) => s.id))
        .sort();
      expect(
        live()
          .map((s) => s.id)
          .sort(),
      ).toEqual(recordedNow);
      expect(live()).toHaveLength(COUNT);
      await cli.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );

  it("a pending create an `up` made anew is cleared; sweep then lists what it had made; that fleet's dead servers are drift, remediated", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { cli, live } = await interrupted("dynamic", "fleet-repair-anew");
    const orphans = live().map((s) => s.id);
    // Without repair, `up` makes the fleet again, with a new key; the CLI keeps the pending create.
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const repaired = await runGamehost(cli, ["repair", "--json"]);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(JSON.parse(repaired.stdout)).toMatchObject({ pending: 1, outcomes: [{ action: "cleared" }] });
    const swept = await runGamehost(cli, ["sweep", ...scope(), "--delete", "--yes", "--json"]);
    expect(swept.code, swept.stderr).toBe(0);
    expect((JSON.parse(swept.stdout) as { deleted: string[] }).deleted.sort()).toEqual(orphans.sort());
    expect(live()).toHaveLength(COUNT);

    // The fleet the `up` made anew is the stack's: no drift. Two of its servers die: drift (its `status`
    // changed), and `reconcile --once --remediate` replaces exactly those. (On this stack rather than one of its
    // own: that one made, deployed and destroyed the same fleet a second time.)
    const clean = await runGamehost(cli, ["drift"]);
    expect(clean.code, `${clean.stdout}${clean.stderr}`).toBe(0);
    const ids = fixtureIds(setup.emulator);
    const victims = live()
      .slice(0, 2)
      .map((s) => s.id);
    for (const id of victims) await client().deleteServer(ids.gameId, ids.environmentId, id);
    const drifted = await runGamehost(cli, ["drift", "--json"]);
    expect(drifted.code, drifted.stderr).toBe(3);
    expect(JSON.parse(drifted.stdout)).toMatchObject({
      drifted: [{ name: "arena", kind: "changed", properties: ["status"] }],
    });
    const fixed = await runGamehost(cli, ["reconcile", "--once", "--remediate"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(/drift: changed arena; remediated by up/);
    expect(live()).toHaveLength(COUNT);
    expect(live().map((s) => s.id)).not.toContain(victims[0]);
    const after = await runGamehost(cli, ["drift"]);
    expect(after.code, `${after.stdout}${after.stderr}`).toBe(0);

    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
  });

  it.each(FACES)(
    "the %s face, a stack of Fleets alone: drift finds a stray with the template's tags; a rejected token is exit 1",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const run = `fleet-strays-${face}`;
      const cli = await fleetProject(setup, run, fleetArgs(setup.emulator, run, 2), face);
      await cli.ok(["up", "--yes", "--skip-preview"]);
      const clean = await runGamehost(cli, ["drift"]);
      expect(clean.code, `${clean.stdout}${clean.stderr}`).toBe(0);

      // A script's leftover: the fleet's template tags, in its environment, made outside any stack.
      const ids = fixtureIds(setup.emulator);
      const stray = await client().createServer(ids.gameId, ids.environmentId, {
        datacenter: ids.datacenterId,
        tags: { role: "arena", run },
        runtime: { build: ids.buildId },
        network: { ports: { game: { protocol: "udp", internal_port: 7777, routing: { host: {} } } } },
        resources: { cpu: 250, memory: 256 },
      });
      const drifted = await runGamehost(cli, ["drift", "--json"]);
      expect(drifted.code, drifted.stderr).toBe(3);
      const report = JSON.parse(drifted.stdout) as { strays: { serverId: string }[]; strayTags: object };
      expect(report.strays.map((s) => s.serverId)).toEqual([stray.id]);
      expect(report.strayTags).toEqual({ role: "arena", run });
      const once = await runGamehost(cli, ["reconcile", "--once"]);
      expect(once.code, once.stdout + once.stderr).toBe(3);
      expect(once.stdout).toContain("drift: none tracked; 1 strays");
      await client().deleteServer(ids.gameId, ids.environmentId, stray.id);

      // The loop watches the fleet's game: a change to it starts a pass at once.
      const loop = gamehost(cli, ["reconcile", "--interval", "10m"]);
      let output = "";
      loop.child.stdout?.on("data", (c: Buffer) => {
        output += c.toString();
      });
      await until(() => /pass 1 /.test(output), "the first pass", 180_000);
      setup.emulator.mutate.setGameDisplayName(ids.gameId, `Space Race (${run})`);
      await until(() => /pass 2 \(watch/.test(output), "a pass started by the watch", 180_000);
      loop.child.kill("SIGTERM");
      expect((await loop.done).code).toBe(0);

      // A rejected token: one line, exit 1, the token nowhere (the refresh reads the state's token).
      await cli.setConfig({ "gamehost:token": { value: "rejected-token-0000", secret: true } });
      const rejected = await runGamehost(cli, ["drift"]);
      expect(rejected.code, `${rejected.stdout}${rejected.stderr}`).toBe(1);
      expect(rejected.stderr.trim().split("\n")).toHaveLength(1);
      expect(rejected.stderr).toMatch(/^gamehost drift: The token is not valid.*gamehost:token/);
      expect(rejected.stdout + rejected.stderr).not.toContain("rejected-token-0000");
      await cli.setConfig({ "gamehost:token": { value: setup.emulator.tokens.user, secret: true } });

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(liveTagged(setup.emulator, "run", run)).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );

  it("adopt writes a fleet no stack tracks as one Fleet entry, not its servers; import, preview: no changes", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    // A fleet whose stack was removed (`pulumi stack rm --force`): its servers run on, no stack's.
    const run = "fleet-adopt";
    const made = await fleetProject(setup, run, fleetArgs(setup.emulator, run, 2));
    await made.ok(["up", "--yes", "--skip-preview"]);
    const fleetKey = String((await made.outputsJson()).fleetKey);
    await made.ok(["stack", "rm", "--force", "--yes"]);
    const live = () => liveTagged(setup.emulator, "run", run);
    expect(live()).toHaveLength(2);

    const cli = await yamlProject(setup, "fleet-adopt-yaml");
    const ids = fixtureIds(setup.emulator);
    const file = path.join(setup.root, "fleet-adopt.json");
    const adopted = await runGamehost(cli, [
      ...["adopt", "--game", ids.gameId, "--environment", ids.environmentId],
      ...["--tag", `run=${run}`, "--out", file],
    ]);
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain("wrote 0 servers and 1 fleet");
    // Before, each server was a `gamehost:index:Server` entry: two owners of one server once imported.
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      resources: [
        {
          type: "gamehost:index:Fleet",
          name: `fleet-${fleetKey.slice(0, 8)}`,
          id: `${ids.gameId}/${ids.environmentId}/${fleetKey}`,
        },
      ],
    });
    const code = path.join(setup.root, "fleet-adopt.yaml");
    await cli.ok(["import", "--file", file, "--yes", "--out", code]);
    fs.appendFileSync(path.join(cli.dir, "Pulumi.yaml"), fs.readFileSync(code, "utf8"));
    await cli.ok(["preview", "--expect-no-changes"]);
    await cli.ok(["state", "unprotect", "--all", "--yes"]);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
