/**
 * The Python program of docs/languages.md as written, through the real `pulumi` CLI and its Python host,
 * against the emulator: `pulumi package add` of the shipped schema file generates the local SDK and installs
 * it with PyPI's `pulumi` into the project's virtualenv; the `packages:` entry of Pulumi.yaml (what
 * `package add <plugin folder>` records) runs the plugin. up, outputs, destroy.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { liveServers } from "../support/emulator";
import { CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { languagesDocBlock, PLUGIN_DIR, PYPI_PULUMI, SCHEMA_FILE } from "./languages";

describe.skipIf(!realCli)(realCliTitle("the Python program of docs/languages.md"), () => {
  const setup = useCliEnvironment("python");

  it("makes its SDK with pulumi package add, runs up, exports the endpoint, and destroys", {
    timeout: 600_000,
  }, async () => {
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
    // As `pulumi new python` writes it, pinned to the PyPI release the other Python scenarios use.
    fs.writeFileSync(path.join(dir, "requirements.txt"), `${PYPI_PULUMI}\n`);
    const project = new CliProject(dir, setup.root);
    // The shipped schema file (docs/languages.md: the plugin folder form needs a current nodejs host): the
    // CLI generates sdks/gamehost, adds it to requirements.txt and installs both into the project's virtualenv.
    const added = await project.ok(["package", "add", SCHEMA_FILE]);
    expect(added).toContain("import pulumi_gamehost as gamehost");
    expect(fs.readFileSync(path.join(dir, "requirements.txt"), "utf8")).toBe(
      `${PYPI_PULUMI}\n./sdks/gamehost\n`,
    );
    // The v3.68.0 host made that virtualenv in the project folder and runs the `python` first on PATH.
    const env = {
      VIRTUAL_ENV: dir,
      PATH: cliPath(path.join(dir, "bin")),
    };
    fs.writeFileSync(path.join(dir, "__main__.py"), languagesDocBlock("Python", "python"));
    await project.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });

    await project.ok(["up", "--yes", "--skip-preview"], env);
    const outputs = await project.outputsJson();
    const [match, ...others] = liveServers(setup.emulator);
    expect(others).toEqual([]);
    expect(match?.tags.role).toBe("match");
    const port = match?.network.ports.game;
    expect(outputs.endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);

    await project.ok(["destroy", "--yes", "--skip-preview"], env);
    expect(liveServers(setup.emulator)).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });
});
