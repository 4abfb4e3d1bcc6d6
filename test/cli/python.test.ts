/**
 * The Python program of docs/languages.md as written, through the real `pulumi` CLI and its Python host,
 * against the emulator: the SDK generated from the plugin's schema and the `packages:` entry of Pulumi.yaml,
 * which is what `pulumi package add` makes (see ./languages.ts for why the generator runs in process and
 * docs/languages.md for why the CLI's `package add` cannot run here), the SDK installed with pip into a
 * virtualenv with PyPI's `pulumi`. up, outputs, destroy.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { liveServers } from "../support/emulator";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { generateSdk, languagesDocBlock, PLUGIN_DIR, pipInstall, pythonVenv } from "./languages";

describe.skipIf(!realCli)(realCliTitle("the Python program of docs/languages.md"), () => {
  const setup = useCliEnvironment("python");

  it("runs up with the generated SDK, exports the endpoint, and destroys", { timeout: 600_000 }, async () => {
    const sdk = path.join(setup.root, "sdk", "python");
    await generateSdk("python", sdk);
    const { python, env: venv } = pythonVenv();
    const env = { ...venv, ...pipInstall(python, sdk, path.join(setup.root, "site-packages")) };

    const dir = path.join(setup.root, "gamehost-python");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      [
        "name: gamehost-python",
        "runtime: python",
        // What `pulumi package add <plugin folder>` records; the engine then runs the plugin from there.
        "packages:",
        `  gamehost: ${PLUGIN_DIR}`,
        "",
      ].join("\n"),
    );
    fs.writeFileSync(path.join(dir, "__main__.py"), languagesDocBlock("Python", "python"));
    const project = new CliProject(dir, setup.root, env);
    await project.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });

    await project.ok(["up", "--yes", "--skip-preview"]);
    const outputs = await project.outputsJson();
    const [match, ...others] = liveServers(setup.emulator);
    expect(others).toEqual([]);
    expect(match?.tags.role).toBe("match");
    const port = match?.network.ports.game;
    expect(outputs.endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);

    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(setup.emulator)).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });
});
