/**
 * The YAML, Python and Go Fleet programs of docs/fleets.md as written, through the real `pulumi` CLI and
 * its YAML, Python and Go hosts, against the emulator (the plugin run from this repository's plugin folder;
 * the Python and Go SDKs made by `pulumi package add`): up makes 2 + 1 ready servers of the fleet, the
 * outputs say so, destroy removes them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { sectionBlocks } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { PLUGIN_DIR, PYPI_PULUMI, SCHEMA_FILE } from "./languages";

function fleetsDocBlock(heading: string, lang: string): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, "docs", "fleets.md"), "utf8");
  const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  const block = section?.match(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``))?.[1];
  if (!block) throw new Error(`docs/fleets.md has no \`\`\`${lang} block under "## ${heading}"`);
  return block;
}

describe.skipIf(!realCli)(realCliTitle("the Fleet programs of docs/fleets.md"), () => {
  const setup = useCliEnvironment("fleet-languages");

  const expectFleet = () => {
    const game = setup.emulator.fixture.games[0];
    const bySlug = (slug: string) => game?.datacenters.find((d) => d.slug === slug)?.id;
    const live = liveServers(setup.emulator);
    expect(live.filter((s) => s.datacenter === bySlug("us-east-atl"))).toHaveLength(2);
    expect(live.filter((s) => s.datacenter === bySlug("eu-central-fra"))).toHaveLength(1);
    expect(live.every((s) => s.tags.role === "arena" && s.started_at !== undefined)).toBe(true);
  };

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

  it("Python: pulumi package add, up, outputs, destroy", { timeout: 600_000 }, async () => {
    const dir = path.join(setup.root, "fleet-python");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      ["name: fleet-python", "runtime: python", "packages:", `  gamehost: ${PLUGIN_DIR}`, ""].join("\n"),
    );
    fs.writeFileSync(path.join(dir, "requirements.txt"), `${PYPI_PULUMI}\n`);
    const project = new CliProject(dir, setup.root);
    await project.ok(["package", "add", SCHEMA_FILE]);
    const env = { VIRTUAL_ENV: dir, PATH: cliPath(path.join(dir, "bin")) };
    fs.writeFileSync(path.join(dir, "__main__.py"), fleetsDocBlock("Python", "python"));
    await project.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });
    await project.ok(["up", "--yes", "--skip-preview"], env);
    expect((await project.outputsJson()).ready).toEqual({ "us-east-atl": 2, "eu-central-fra": 1 });
    expectFleet();
    await project.ok(["destroy", "--yes", "--skip-preview"], env);
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
