/**
 * The plugin as a Node.js single executable application (scripts/build-sea.mjs), for users with no Node.js:
 * built from dist/, it answers `--version` with no `node` anywhere on PATH, and the real `pulumi` CLI starts it
 * from a plugin folder holding only that file, with a PATH of nothing but the CLI and its YAML host: the YAML
 * program of docs/languages.md goes up and down against the emulator. (Its size and spawn-to-port time
 * against today's plugin: bench/sea-startup.mjs, BENCHMARKS.md.)
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { docBlock } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";

const PLUGIN_ENTRY = "path: ./node_modules/pulumi-gamehost/plugin";

/** The file `name` resolves to on the suite's CLI PATH. */
function which(name: string): string {
  const found = spawnSync("bash", ["-c", `command -v ${name}`], {
    encoding: "utf8",
    env: { ...process.env, PATH: cliPath() },
  });
  expect(found.status, `${name} on PATH`).toBe(0);
  return fs.realpathSync(found.stdout.trim());
}

describe.skipIf(!realCli)(realCliTitle("the plugin as a single executable, with no Node.js"), () => {
  const setup = useCliEnvironment("sea");
  let pluginDir: string;
  let bin: string;

  beforeAll(() => {
    if (!realCli) return;
    pluginDir = path.join(setup.root, "plugin");
    const built = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts", "build-sea.mjs"), pluginDir], {
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(built.status, built.stderr).toBe(0);
    // A PATH with the CLI and its YAML host only: no node, no npm.
    bin = path.join(setup.root, "bin");
    fs.mkdirSync(bin);
    for (const name of ["pulumi", "pulumi-language-yaml"]) fs.symlinkSync(which(name), path.join(bin, name));
  }, 320_000);

  it("is one file that runs with no node on PATH", () => {
    expect(fs.readdirSync(pluginDir)).toEqual(["pulumi-resource-gamehost"]);
    const version = spawnSync(path.join(pluginDir, "pulumi-resource-gamehost"), ["--version"], {
      encoding: "utf8",
      env: { PATH: bin },
    });
    expect(version.stdout.trim()).toMatch(/^pulumi-resource-gamehost \d+\.\d+\.\d+/);
    expect(spawnSync("node", ["--version"], { env: { PATH: bin } }).error).toBeDefined();
  });

  it("is started by the real CLI for the YAML program of docs/languages.md: up and destroy", {
    timeout: 600_000,
  }, async () => {
    const dir = path.join(setup.root, "yaml");
    fs.mkdirSync(dir);
    const manifest = docBlock("docs/languages.md", "YAML", "yaml").text;
    expect(manifest).toContain(PLUGIN_ENTRY);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), manifest.replace(PLUGIN_ENTRY, `path: ${pluginDir}`));
    const project = new CliProject(dir, setup.root, { PATH: bin });
    await project.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });
    await project.ok(["up", "--yes", "--skip-preview"]);
    const [match, ...others] = liveServers(setup.emulator);
    expect(others).toEqual([]);
    const port = match?.network.ports.game;
    expect((await project.outputsJson()).endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(setup.emulator)).toEqual([]);
  });
});
