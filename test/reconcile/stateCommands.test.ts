/**
 * docs/reconcile.md, "After Pulumi's state commands", through the real CLI: `pulumi state delete` forgets a
 * running server (the next `up` makes a second one; `drift` lists the forgotten one as a stray and `sweep`
 * deletes it), and `pulumi stack rm --force` of a project's only stack leaves its servers running, which the
 * page's commands (an empty stack to sweep from) delete. Each command block is run as written.
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
import { docBlock, shellCommands } from "../support/docBlocks";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { runGamehost } from "./helpers";

const SECTION = "After Pulumi's state commands";

describe.skipIf(!realCli)(realCliTitle("what Pulumi's state commands leave running"), () => {
  const setup = useCliEnvironment("state-commands");

  it("state delete, then stack rm --force of the only stack: the servers left are found and swept as the page says", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const run = "state-commands";
    const ids = fixtureIds(setup.emulator);
    const cli = programProject(setup.root, run, SERVERS_PROGRAM, { name: SERVERS_PROJECT });
    const live = () => liveTagged(setup.emulator, "run", run).map((s) => s.id);
    await configure(cli, {
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
      [SERVERS_KEY]: { value: { lobby: serverArgs(setup.emulator, { tags: { run } }) } },
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
    const swept = await runGamehost(cli, ["sweep", ...scope, "--stack", "dev", "--delete", "--yes"]);
    expect(swept.code, swept.stdout + swept.stderr).toBe(0);
    expect(live()).toEqual([tracked]);

    await cli.ok(["stack", "rm", "dev", "--force", "--yes"]);
    expect(live()).toEqual([tracked]);
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
        expect(result.stdout).toContain(`deleted  server ${tracked}`);
      }
    }
    expect(live()).toEqual([]);
    await cli.fails(["stack", "select", "sweep"]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
