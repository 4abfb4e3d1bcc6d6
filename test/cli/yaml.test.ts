/**
 * `examples/yaml-quickstart` as its README says to run it from a clone, through the real `pulumi` CLI and its
 * YAML language host, against the emulator: the example is copied to a temp project (its `file:../..`
 * reference pointed at this clone, the one change the move needs), and the README's "From a clone" commands
 * run line by line (`npm install` links the clone without the registry; the emulator's URL and token are
 * this file's emulator's).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { docBlock, shellCommands } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { shell } from "./shell";

const EXAMPLE = path.join(REPO_ROOT, "examples", "yaml-quickstart");
const CLONE_REFERENCE = '"pulumi-gamehost": "file:../.."';

describe.skipIf(!realCli)(realCliTitle("examples/yaml-quickstart through the YAML host"), () => {
  const setup = useCliEnvironment("yaml");

  it("runs up, reports both endpoints, and destroys", { timeout: 600_000 }, async () => {
    const dir = path.join(setup.root, "yaml-quickstart");
    // The project, not its README (whose commands name the emulator's well-known token).
    fs.cpSync(EXAMPLE, dir, { recursive: true, filter: (f) => path.basename(f) !== "README.md" });
    const manifest = fs.readFileSync(path.join(dir, "package.json"), "utf8");
    expect(manifest).toContain(CLONE_REFERENCE);
    fs.writeFileSync(
      path.join(dir, "package.json"),
      manifest.replace(CLONE_REFERENCE, `"pulumi-gamehost": ${JSON.stringify(`file:${REPO_ROOT}`)}`),
    );
    const game = setup.emulator.fixture.games[0];
    expect([game?.nameId, game?.datacenters[0]?.slug]).toEqual(["space-race", "us-east-atl"]);
    const project = new CliProject(dir, setup.root);
    const commands = shellCommands(
      docBlock("examples/yaml-quickstart/README.md", "From a clone of this repository", "sh"),
      [
        ["http://127.0.0.1:8787", setup.emulator.url],
        ["emu_user_alice", setup.emulator.tokens.user],
      ],
    );
    expect(commands.at(-1)).toBe("pulumi up");
    for (const command of commands) await shell(project, command);
    // Linked, not fetched: the registry has no pulumi-gamehost.
    expect(fs.lstatSync(path.join(dir, "node_modules", "pulumi-gamehost")).isSymbolicLink()).toBe(true);

    const outputs = await project.outputsJson();
    const live = liveServers(setup.emulator);
    expect(live).toHaveLength(2);
    const match = live.find((s) => s.id === outputs.matchServerId);
    const lobby = live.find((s) => s.id !== outputs.matchServerId);
    const endpoint = (port?: { public_hostname?: string; public_port?: number }) =>
      `${port?.public_hostname}:${port?.public_port}`;
    expect(outputs.matchEndpoint).toBe(endpoint(match?.network.ports.game));
    expect(outputs.lobbyEndpoint).toBe(endpoint(lobby?.network.ports.web));
    expect(match?.tags.role).toBe("match");
    expect(lobby?.runtime.arguments).toEqual(["--mode", "lobby"]);

    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(setup.emulator)).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });
});
