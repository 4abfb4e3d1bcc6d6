/**
 * `pulumi up` killed outright (SIGKILL, as a CI job's timeout does) while its creates wait, through the real
 * CLI on both faces, then what docs/reliability.md says to do: `pulumi cancel` (the killed run's lock is
 * left), `gamehost repair`, `pulumi up`: the live servers are exactly the stack's, none twice.
 * Each face's provider ends by itself once its engine is gone: the plugin, and the SDK's dynamic provider
 * host once it runs our code. Both used to live on, the plugin's creates still waiting (and retrying) for
 * nobody beside the user's next run, the dynamic host idle for good (about 150 MB each). A LobbyHistoryExport's pending create
 * (the quickstart killed while it exports) is cleared by repair: kept, every later `up` warned of it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { connection, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "../cli/helpers";
import { FACES, fixtureIds, liveTagged, serverArgs, serversTagged, TYPES } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { liveServers } from "../support/emulator";
import { quickstartOnFace } from "../support/examples";
import { commandOf, processTree } from "../support/processTree";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { until } from "../support/until";
import { expectStackHoldsLive, runGamehost } from "./helpers";

const COUNT = 3;
const TROUBLESHOOTING = fs.readFileSync(path.join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");
const LOCKED = "the stack is currently locked by 1 lock(s)";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!realCli)(realCliTitle("pulumi up killed with SIGKILL during creates"), () => {
  const setup = useCliEnvironment("repair-killed");

  it.each(FACES)(
    "the %s face: pulumi cancel, gamehost repair, up: 0 duplicates, 0 orphans",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const run = `repair-killed-${face}`;
      const servers = Object.fromEntries(
        Array.from({ length: COUNT }, (_, i) => [
          `s${i}`,
          // Longer than this test: a create still waiting when the plugin ends was stopped, not timed out.
          serverArgs(setup.emulator, { tags: { run }, readyTimeoutSeconds: 3600 }),
        ]),
      );
      const cli = await serversProject(setup.root, run, setup.emulator, servers, { face });
      const live = () => liveTagged(setup.emulator, "run", run);

      setup.emulator.setPlacement("never");
      let left: number[] = [];
      try {
        const up = cli.start(["up", "--yes", "--skip-preview"]);
        await until(() => live().length === COUNT, "the creates");
        left = processTree(up.child.pid ?? 0).slice(1);
        // The face's provider: our plugin, or the SDK's dynamic provider host (and the `sh` of its wrapper).
        const providers = left.filter((pid) =>
          /pulumi-resource-gamehost|pulumi-resource-pulumi-nodejs|cmd\/dynamic-provider/.test(commandOf(pid)),
        );
        up.child.kill("SIGKILL");
        const result = await up.done;
        expect(result.signal).toBe("SIGKILL");
        expect(providers).toHaveLength(face === "plugin" ? 1 : 2);
        await until(() => providers.every((pid) => !alive(pid)), "the provider to end with its engine");
      } finally {
        // The language host is Pulumi's: it outlives the CLI.
        for (const pid of left.filter(alive)) process.kill(pid, "SIGKILL");
        setup.emulator.setPlacement("auto");
      }

      // The killed run's lock is left: the CLI's next `up` refuses, as docs/troubleshooting.md quotes it; repair
      // says so too, and names `pulumi cancel`.
      const lockedUp = await cli.fails(["up", "--yes", "--skip-preview"]);
      expect(lockedUp).toContain(LOCKED);
      expect(TROUBLESHOOTING).toContain(`| \`${LOCKED}`);
      const locked = await runGamehost(cli, ["repair"]);
      expect(locked.code).toBe(1);
      expect(locked.stderr).toContain("pulumi cancel");
      await cli.ok(["cancel", "--yes"]);

      const repaired = await runGamehost(cli, ["repair", "--json"]);
      expect(repaired.code, repaired.stderr).toBe(0);
      const report = JSON.parse(repaired.stdout) as { pending: number; outcomes: Array<{ action: string }> };
      expect(report.pending).toBe(COUNT);
      expect(report.outcomes.map((o) => o.action)).toEqual(Array(COUNT).fill("imported"));

      await cli.ok(["up", "--yes", "--skip-preview"]);
      await expectStackHoldsLive(cli, TYPES[face].server, live, COUNT);
      expect(serversTagged(setup.emulator, "run", run)).toHaveLength(COUNT);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
    },
  );

  it.each(FACES)(
    "the %s face, the quickstart killed while it exports: repair clears the export's pending create",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const { emulator } = setup;
      // Servers another test of this file left (when it failed) are not this project's.
      const others = new Set(liveServers(emulator).map((s) => s.id));
      const live = () => liveServers(emulator).filter((s) => !others.has(s.id));
      const project = new CliProject(quickstartOnFace(setup.root, face), setup.root);
      await project.configure({
        ...connection(emulator),
        "gamehost-quickstart:game": { value: fixtureIds(emulator).gameNameId },
      });
      // The export's POST is held, and the servers wait unplaced, until the CLI is killed.
      emulator.faults.inject({
        method: "POST",
        path: "/cloud/games/:game/matchmaker/lobbies/export-history",
        kind: "latency",
        latencyMs: 45_000,
      });
      emulator.setPlacement("never");
      let left: number[] = [];
      try {
        const up = project.start(["up", "--yes", "--skip-preview"]);
        let printed = "";
        up.child.stdout?.on("data", (c: Buffer) => {
          printed += c.toString();
        });
        await until(() => {
          const exporting = /LobbyHistoryExport yesterday creating/.test(printed);
          return exporting && live().length === 2;
        }, "the export and the servers' creates");
        left = processTree(up.child.pid ?? 0).slice(1);
        up.child.kill("SIGKILL");
        await up.done;
      } finally {
        for (const pid of left.filter(alive)) process.kill(pid, "SIGKILL");
        emulator.faults.clear();
        emulator.setPlacement("auto");
      }
      await project.ok(["cancel", "--yes"]);

      const repaired = await runGamehost(project, ["repair", "--json"]);
      expect(repaired.code, repaired.stderr).toBe(0);
      const report = JSON.parse(repaired.stdout) as { outcomes: Array<{ urn: string; action: string }> };
      const actions = Object.fromEntries(report.outcomes.map((o) => [o.urn.split("::").pop(), o.action]));
      expect(actions).toEqual({ lobby: "imported", match: "imported", yesterday: "cleared" });

      const upOut = await project.ok(["up", "--yes", "--skip-preview"]);
      expect(upOut).not.toMatch(/pending operations/);
      const exported = JSON.parse(await project.ok(["stack", "export"])) as {
        deployment: { pending_operations?: unknown[] };
      };
      expect(exported.deployment.pending_operations ?? []).toEqual([]);
      const state = Object.values(await project.stateIds([TYPES[face].server])).sort();
      expect(
        live()
          .map((s) => s.id)
          .sort(),
      ).toEqual(state);
      expect(state).toHaveLength(2);

      await project.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
    },
  );
});
