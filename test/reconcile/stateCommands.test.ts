/**
 * docs/reconcile.md, "After Pulumi's state commands", through the real CLI on the plugin's face: `pulumi state
 * delete` forgets a running server (the next `up` makes a second one; `drift` and `sweep` list the forgotten
 * one, and `gamehost adopt` brings it back under a name of its own: it wrote the name the stack's new server
 * has, and `pulumi import --file` failed with `already exists`), and `pulumi stack rm --force` of a project's
 * only stack leaves its servers running, which the page's commands (an empty stack to sweep from) delete.
 * Each command block is run as written.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { configure, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "../cli/helpers";
import {
  fixtureIds,
  liveTagged,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  serverArgs,
  TYPES,
} from "../engine/helpers";
import { docBlock, shellCommands } from "../support/docBlocks";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { runGamehost } from "./helpers";

const SECTION = "After Pulumi's state commands";
const SERVER_TYPE = TYPES.plugin.server;

describe.skipIf(!realCli)(realCliTitle("what Pulumi's state commands leave running"), () => {
  const setup = useCliEnvironment("state-commands");

  it("state delete (the forgotten server swept or adopted), then stack rm --force of the only stack (swept as the page says)", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const run = "state-commands";
    const ids = fixtureIds(setup.emulator);
    const cli = programProject(setup.root, run, SERVERS_PROGRAM, { name: SERVERS_PROJECT, plugin: true });
    const live = () => liveTagged(setup.emulator, "run", run).map((s) => s.id);
    await configure(cli, {
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
      [`${SERVERS_PROJECT}:face`]: { value: "plugin" },
      [SERVERS_KEY]: { value: { lobby: serverArgs(setup.emulator, { tags: { run, name: "lobby" } }) } },
    });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const forgotten = (await cli.stateIds([SERVER_TYPE])).lobby;

    await cli.ok(["state", "delete", `urn:pulumi:dev::${SERVERS_PROJECT}::${SERVER_TYPE}::lobby`, "--yes"]);
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const tracked = (await cli.stateIds([SERVER_TYPE])).lobby;
    expect(live().sort()).toEqual([forgotten, tracked].sort());
    const drift = await runGamehost(cli, ["drift", "--json"]);
    expect(drift.code, drift.stderr).toBe(3);
    expect((JSON.parse(drift.stdout) as { strays: Array<{ serverId: string }> }).strays).toEqual([
      expect.objectContaining({ serverId: forgotten }),
    ]);
    const scope = ["--game", ids.gameId, "--environment", ids.environmentId];
    const listed = await runGamehost(cli, ["sweep", ...scope, "--stack", "dev", "--json"]);
    expect(listed.code, listed.stdout + listed.stderr).toBe(3);
    expect((JSON.parse(listed.stdout) as { strays: Array<{ serverId: string }> }).strays).toEqual([
      expect.objectContaining({ serverId: forgotten }),
    ]);

    // Adopted, under a name the stack does not use: its `name` tag is the new server's too.
    const file = path.join(setup.root, "adopt.json");
    const adopted = await runGamehost(cli, ["adopt", ...scope, "--tag", `run=${run}`, "--out", file]);
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      resources: [
        { type: SERVER_TYPE, name: "lobby-2", id: `${ids.gameId}/${ids.environmentId}/${forgotten}` },
      ],
    });
    await cli.ok(["import", "--file", file, "--yes", "--generate-code=false"]);
    expect(await cli.stateIds([SERVER_TYPE])).toEqual({ lobby: tracked, "lobby-2": forgotten });
    await cli.ok(["state", "unprotect", "--all", "--yes"]);

    await cli.ok(["stack", "rm", "dev", "--force", "--yes"]);
    expect(live().sort()).toEqual([forgotten, tracked].sort());
    const refused = await runGamehost(cli, ["sweep", ...scope]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("no stack is selected");

    const block = docBlock("docs/reconcile.md", SECTION, "sh");
    const commands = shellCommands(block, [
      ["<url>", setup.emulator.url],
      ["<token>", setup.emulator.tokens.user],
      ["<gameId>", ids.gameId],
      ["<environmentId>", ids.environmentId],
    ]);
    for (const command of commands) {
      const [program, ...args] = command.split(/\s+/);
      if (program === "pulumi") await cli.ok(args);
      else {
        expect(args[0], command).toBe("gamehost");
        const result = await runGamehost(cli, args.slice(1));
        expect(result.code, `${command}\n${result.stdout}${result.stderr}`).toBe(0);
        for (const id of [forgotten, tracked]) expect(result.stdout).toContain(`deleted  server ${id}`);
      }
    }
    expect(live()).toEqual([]);
    await cli.fails(["stack", "select", "sweep"]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
