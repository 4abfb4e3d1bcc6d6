/**
 * Everyday resource options on a dynamic Fleet, as a user operating a stack writes them, through the real CLI.
 * `replaceOnChanges: ["datacenters"]` made a count change an update without a word: Pulumi's dynamic provider
 * host tells the engine that something changed but not which property, so the engine cannot match the option
 * (the plugin's face replaces). The program now warns, naming the option's entries and what replaces instead,
 * and the servers are counted on the emulator after each step: none lost, none duplicated. `retainOnDelete`
 * then leaves a replaced and a destroyed fleet's servers running in no state, which docs/reconcile.md's table of
 * what Pulumi leaves behind did not list; `gamehost sweep` deletes them, as the row it has now says.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureIds } from "../engine/helpers";
import { runGamehost } from "../reconcile/helpers";
import { REPO_ROOT } from "../support/dist";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  configure,
  connection,
  FLEET_PROGRAM,
  FLEET_PROJECT,
  fleetInputs,
  liveIds,
  SCENARIO_TIMEOUT_MS,
  summaryOf,
  useCliEnvironment,
} from "./helpers";

describe.skipIf(!realCli)(realCliTitle("resource options on a dynamic Fleet"), () => {
  const setup = useCliEnvironment("fleet-options");

  it("replaceOnChanges on a property the fleet updates in place warns naming it and the ways to replace; retainOnDelete leaves servers sweep deletes", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = setup;
    const dc = fixtureIds(emulator).datacenterId;
    const cli = programProject(setup.root, "options", FLEET_PROGRAM, { name: FLEET_PROJECT, plugin: true });
    await configure(cli, {
      ...connection(emulator),
      [`${FLEET_PROJECT}:fleet`]: { value: fleetInputs(emulator, { role: "opts" }, { [dc]: 1 }) },
      [`${FLEET_PROJECT}:options`]: { value: { replaceOnChanges: ["datacenters", "template.tags"] } },
    });
    const warning =
      'Fleet "arena": replaceOnChanges has no effect on a dynamic resource for datacenters, template.tags';

    const created = await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(created).toContain(warning);
    const first = liveIds(emulator, "opts");
    expect(first).toHaveLength(1);

    // The count change the user meant to replace the fleet: an update, said so, the first server kept.
    await cli.setConfig({
      [`${FLEET_PROJECT}:fleet`]: {
        value: JSON.stringify(fleetInputs(emulator, { role: "opts" }, { [dc]: 2 })),
      },
    });
    const scaled = await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(scaled).toContain(warning);
    expect(scaled).toContain("pulumi up --replace");
    expect(scaled).toContain("gamehost.native.Fleet");
    expect(summaryOf(scaled)).toMatchObject({ updated: 1 });
    const second = liveIds(emulator, "opts");
    expect(second).toHaveLength(2);
    expect(second).toEqual(expect.arrayContaining(first));

    // retainOnDelete: `up --replace` keeps the old fleet's two servers running beside the new two, and a destroy
    // keeps those too; Pulumi forgets them without calling the service. `gamehost sweep` (the doc's row) deletes them.
    const reconcile = fs.readFileSync(path.join(REPO_ROOT, "docs", "reconcile.md"), "utf8");
    expect(reconcile).toContain(
      "| `retainOnDelete: true` on a `Server` or `Fleet`, then a destroy, a replacement or the resource taken out of the program |",
    );
    await cli.setConfig({
      [`${FLEET_PROJECT}:options`]: { value: JSON.stringify({ retainOnDelete: true }) },
    });
    // The engine deletes a replaced resource by the options in its state: an `up` records the new one first.
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const urn = `urn:pulumi:dev::${FLEET_PROJECT}::pulumi-nodejs:dynamic/gamehost:Fleet::arena`;
    await cli.ok(["up", "--yes", "--skip-preview", "--replace", urn]);
    const replaced = liveIds(emulator, "opts");
    expect(replaced).toHaveLength(4);
    expect(replaced).toEqual(expect.arrayContaining(second));
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveIds(emulator, "opts")).toEqual(replaced);
    const ids = fixtureIds(emulator);
    const scope = ["--game", ids.gameId, "--environment", ids.environmentId, "--stack", "dev"];
    const swept = await runGamehost(cli, ["sweep", ...scope, "--delete", "--yes"]);
    expect(swept.code, swept.stdout + swept.stderr).toBe(0);
    expect(swept.stdout).toContain("4 servers no stack of dev tracks, deleted");
    expect(liveIds(emulator)).toEqual([]);
  });
});
