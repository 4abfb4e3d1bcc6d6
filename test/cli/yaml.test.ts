/**
 * `examples/yaml-quickstart` as written, through the real `pulumi` CLI and its YAML language host, against
 * the emulator: the example is copied to a temp project, and only its `plugins.providers` path is pointed at
 * this repo's `plugin/` folder (what `npm install` would put in node_modules), as its README says.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { liveServers } from "../support/emulator";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";

const EXAMPLE = path.join(REPO_ROOT, "examples", "yaml-quickstart");
const PLUGIN_ENTRY = "path: ./node_modules/pulumi-gamehost/plugin";

describe.skipIf(!realCli)(realCliTitle("examples/yaml-quickstart through the YAML host"), () => {
  const setup = useCliEnvironment("yaml");

  it("runs up, reports both endpoints, and destroys", { timeout: 600_000 }, async () => {
    const dir = path.join(setup.root, "yaml-quickstart");
    fs.cpSync(EXAMPLE, dir, { recursive: true });
    const manifest = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
    expect(manifest).toContain(PLUGIN_ENTRY);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      manifest.replace(PLUGIN_ENTRY, `path: ${path.join(REPO_ROOT, "plugin")}`),
    );
    const game = setup.emulator.fixture.games[0];
    const project = new CliProject(dir, setup.root);
    await project.configure({
      game: { value: game?.nameId ?? "" },
      datacenter: { value: game?.datacenters[0]?.slug ?? "" },
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });

    await project.ok(["up", "--yes", "--skip-preview"]);
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
