/**
 * `gamehost reconcile --remediate` on a stack whose program throws (a bug in it, or a project whose
 * program lives in an Automation API script, which `up` cannot run from the folder): the pass's line
 * names the exception, not only the CLI's `Running program '…' failed with an unhandled exception:`, whose
 * reason the CLI prints on the next line.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "../cli/helpers";
import { fixtureIds, serverArgs, TYPES } from "../engine/helpers";
import { userClient } from "../support/emulator";
import { realCli, realCliTitle } from "../support/realPulumi";
import { runGamehost } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("gamehost reconcile on a program that throws"), () => {
  const setup = useCliEnvironment("remediate-throws");

  it("names the program's exception in the pass's line", { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    const run = "throws";
    const cli = await serversProject(setup.root, run, setup.emulator, {
      a: serverArgs(setup.emulator, { tags: { run } }),
    });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const { a } = await cli.stateIds([TYPES.dynamic.server]);
    const ids = fixtureIds(setup.emulator);
    await userClient(setup.emulator).deleteServer(ids.gameId, ids.environmentId, a ?? "");

    const broken = path.join(cli.dir, "broken");
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, "index.js"), 'throw new Error("the build catalog is unreachable");\n');
    const yaml = path.join(cli.dir, "Pulumi.yaml");
    fs.writeFileSync(yaml, fs.readFileSync(yaml, "utf8").replace(/^main: .*$/m, "main: broken/"));

    const r = await runGamehost(cli, ["reconcile", "--once", "--remediate"]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /pass 1 \(start, [\d.]+s\): error: Running program '.*' failed with an unhandled exception: Error: the build catalog is unreachable$/,
    );
  });
});
