/**
 * The YAML and Go Fleet programs of docs/fleets.md as written, through the real `pulumi` CLI and its YAML
 * and Go hosts, against the emulator (the plugin run from this repository's plugin folder; the Go SDK made
 * by `pulumi package add`): up makes 2 + 1 ready servers of the fleet, the outputs say so, destroy removes
 * them. (The Python one runs in ./referencePython.test.ts's package-added Python project, with the other
 * Python programs of the docs.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { sectionBlocks } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { expectDocsFleet, fleetsDocBlock, PLUGIN_DIR } from "./languages";

describe.skipIf(!realCli)(realCliTitle("the Fleet programs of docs/fleets.md"), () => {
  const setup = useCliEnvironment("fleet-languages");

  const expectFleet = () => expectDocsFleet(setup.emulator);

  it("YAML: up, outputs, destroy", { timeout: 600_000 }, async () => {
    const dir = path.join(setup.root, "fleet-yaml");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      `name: fleet-yaml\nruntime: yaml\nplugins:\n  providers:\n    - name: gamehost\n      path: ${PLUGIN_DIR}\n${fleetsDocBlock("YAML", "yaml")}`,
    );
    const project = new CliProject(dir, setup.root);
    await project.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });
    await project.ok(["up", "--yes", "--skip-preview"]);
    expect((await project.outputsJson()).atlReady).toBe(2);
    expectFleet();
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(setup.emulator)).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });

  it("Go: pulumi package add, the program built by the Go host, up, outputs, destroy", {
    timeout: 900_000,
  }, async () => {
    const dir = path.join(setup.root, "fleet-go");
    fs.mkdirSync(dir);
    // The project files of docs/languages.md's Go section as written (module, SDK version), with the program of docs/fleets.md.
    for (const block of sectionBlocks("docs/languages.md", "Go").filter(
      (b) => b.file && b.file !== "main.go",
    ))
      fs.writeFileSync(path.join(dir, block.file as string), block.text);
    fs.writeFileSync(path.join(dir, "main.go"), fleetsDocBlock("Go", "go"));
    const project = new CliProject(dir, setup.root);
    await project.ok(["package", "add", PLUGIN_DIR]);
    expect(fs.readFileSync(path.join(dir, "go.mod"), "utf8")).toContain(
      "replace example.com/pulumi-gamehost/sdk/go => ./sdks/gamehost",
    );
    await project.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });
    await project.ok(["up", "--yes", "--skip-preview"]);
    expect((await project.outputsJson()).ready).toEqual({ "us-east-atl": 2, "eu-central-fra": 1 });
    expectFleet();
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(setup.emulator)).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });
});
