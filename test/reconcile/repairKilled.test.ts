/**
 * `pulumi up` killed outright (SIGKILL, as a CI job's timeout does) while its creates wait, through the real
 * CLI on both faces, then what docs/reliability.md says to do: `pulumi cancel` (the killed run's lock is
 * left), `gamehost repair`, `pulumi up`: the live servers are exactly the stack's, none twice.
 * The plugin face's plugin ends by itself once its engine is gone; it used to live on, its creates still
 * waiting (and retrying) for nobody, beside the user's next run.
 */
import { describe, expect, it } from "vitest";
import { configure, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "../cli/helpers";
import {
  FACES,
  IDEMPOTENCY_TAG,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  serverArgs,
  serversTagged,
  TYPES,
} from "../engine/helpers";
import { commandOf, processTree } from "../support/processTree";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { runGamehost, until } from "./helpers";

const COUNT = 3;

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
      const cli = programProject(setup.root, run, SERVERS_PROGRAM, { name: SERVERS_PROJECT, plugin: true });
      await configure(cli, {
        "gamehost:baseUrl": { value: setup.emulator.url },
        "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
        [`${SERVERS_PROJECT}:face`]: { value: face },
        [SERVERS_KEY]: {
          value: Object.fromEntries(
            Array.from({ length: COUNT }, (_, i) => [
              `s${i}`,
              // Longer than this test: a create still waiting when the plugin ends was stopped, not timed out.
              serverArgs(setup.emulator, { tags: { run }, readyTimeoutSeconds: 3600 }),
            ]),
          ),
        },
      });
      const live = () =>
        serversTagged(setup.emulator, "run", run).filter((s) => s.destroyed_at === undefined);

      setup.emulator.setPlacement("never");
      let left: number[] = [];
      try {
        const up = cli.start(["up", "--yes", "--skip-preview"]);
        await until("the creates", () => live().length === COUNT);
        left = processTree(up.child.pid ?? 0).slice(1);
        const plugins = left.filter((pid) => commandOf(pid).includes("pulumi-resource-gamehost"));
        up.child.kill("SIGKILL");
        const result = await up.done;
        expect(result.signal).toBe("SIGKILL");
        if (face === "plugin") {
          expect(plugins).toHaveLength(1);
          await until("the plugin to end with its engine", () => plugins.every((pid) => !alive(pid)));
        }
      } finally {
        // The language host and the SDK's dynamic provider host are Pulumi's: they outlive the CLI.
        for (const pid of left.filter(alive)) process.kill(pid, "SIGKILL");
        setup.emulator.setPlacement("auto");
      }

      // The killed run's lock is left: repair says so, and names `pulumi cancel`.
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
      const state = Object.values(await cli.stateIds([TYPES[face].server])).sort();
      const ids = live()
        .map((s) => s.id)
        .sort();
      expect(state).toHaveLength(COUNT);
      expect(ids).toEqual(state);
      expect(new Set(live().map((s) => s.tags[IDEMPOTENCY_TAG])).size).toBe(COUNT);
      expect(serversTagged(setup.emulator, "run", run)).toHaveLength(COUNT);

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(live()).toEqual([]);
    },
  );
});
