/**
 * The YAML, Python and Go sections of docs/languages.md as written, through the real `pulumi` CLI and its
 * language hosts, against one emulator: each section's `file=` blocks are written into a fresh project and
 * its command block runs line by line in a shell, with only what the page says stands for something else
 * replaced (`pulumi-gamehost`, the install source, by this clone; the emulator's URL by this file's
 * emulator's). `pulumi up` must leave one live match server whose endpoint is the stack's output, `pulumi
 * destroy` none; the page's emulator line (under "2. Configure it") starts the emulator in the Python
 * project's folder, where the package is under `.gamehost`; no plugin is downloaded (every CLI run has automatic plugin acquisition off, so a download
 * would fail the run) and the token is written nowhere.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { type DocBlock, docBlock, sectionBlocks, shellCommands } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { freePort } from "../support/freePort";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { Background, onFreePort } from "./docCommands";
import { useCliEnvironment } from "./helpers";
import { shell } from "./shell";

const PAGE = "docs/languages.md";
const DOCS_EMULATOR = "http://127.0.0.1:8787";

describe.skipIf(!realCli)(realCliTitle(`the YAML, Python and Go sections of ${PAGE}`), () => {
  const setup = useCliEnvironment("languages-docs");

  /** The section's project, written from its `file=` blocks, and its one command block. */
  function projectOf(section: string): { project: CliProject; commands: DocBlock } {
    const blocks = sectionBlocks(PAGE, section).filter((b) => !b.noRun);
    const dir = path.join(setup.root, `docs-${section.toLowerCase()}`);
    fs.mkdirSync(dir);
    for (const block of blocks.filter((b) => b.file)) {
      fs.writeFileSync(path.join(dir, block.file as string), block.text);
    }
    const commands = blocks.filter((b) => b.lang === "sh");
    expect(commands, `${section}: one runnable sh block`).toHaveLength(1);
    expect(blocks.every((b) => b.file || b.lang === "sh")).toBe(true);
    return { project: new CliProject(dir, setup.root), commands: commands[0] as DocBlock };
  }

  /** Runs the section's commands; after `pulumi up`, checks the one server and the endpoint output. */
  async function runSection(section: string, installLine: string) {
    const { project, commands } = projectOf(section);
    const lines = shellCommands(commands, [
      [installLine, installLine.replace(/pulumi-gamehost$/, REPO_ROOT)],
      [DOCS_EMULATOR, setup.emulator.url],
      ["emu_user_alice", setup.emulator.tokens.user],
    ]);
    const ran: string[] = [];
    for (const line of lines) {
      const out = await shell(project, line);
      ran.push(out);
      expect(out).not.toMatch(/Downloading (provider|plugin)|plugin install/i);
      if (line.startsWith("pulumi up")) {
        const [match, ...others] = liveServers(setup.emulator);
        expect(others).toEqual([]);
        expect(match?.tags.role).toBe("match");
        const prod = setup.emulator.fixture.games[0]?.environments.find((e) => e.nameId === "prod");
        expect(prod?.builds.find((b) => b.id === match?.runtime.build)?.tags.channel).toBe("stable");
        const port = match?.network.ports.game;
        expect((await project.outputsJson()).endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);
      }
    }
    expect(lines.at(-1)).toMatch(/^pulumi destroy/);
    expect(liveServers(setup.emulator)).toEqual([]);
    return { project, output: ran.join("\n") };
  }

  it("YAML: the plugin from node_modules, up and destroy", { timeout: 600_000 }, async () => {
    await runSection("YAML", "npm install pulumi-gamehost");
  });

  it("Python: package add records the plugin folder and makes venv; up and destroy with venv's Python", {
    timeout: 900_000,
  }, async () => {
    const { project } = await runSection("Python", "npm install --prefix .gamehost pulumi-gamehost");
    // The page's emulator line, in this project's folder (the package under .gamehost): it starts.
    const [start, ...more] = onFreePort(docBlock(PAGE, "2. Configure it", "sh"), String(await freePort()));
    expect(more).toEqual([]);
    const emulator = new Background(project, start as string);
    try {
      await emulator.waitFor(/Press Ctrl\+C to stop\./);
    } finally {
      emulator.kill();
    }
    // README.md's commands for these languages are the ones that just ran.
    const ran = shellCommands(docBlock(PAGE, "Python", "sh"));
    for (const line of shellCommands(docBlock("README.md", "YAML, Python and Go", "bash")))
      expect(ran).toContain(line);
    const manifest = fs.readFileSync(path.join(project.dir, "Pulumi.yaml"), "utf8");
    expect(manifest).toContain("packages:\n  gamehost: ./.gamehost/node_modules/pulumi-gamehost/plugin\n");
    expect(fs.readFileSync(path.join(project.dir, "requirements.txt"), "utf8")).toBe(
      "pulumi>=3.0.0,<4.0.0\n./sdks/gamehost\n",
    );
    // The virtualenv is where the runtime option says, and nowhere else (not the project folder itself).
    expect(fs.existsSync(path.join(project.dir, "venv", "pyvenv.cfg"))).toBe(true);
    expect(fs.existsSync(path.join(project.dir, "pyvenv.cfg"))).toBe(false);
    project.expectNoLeak(setup.emulator.tokens.user);
  });

  it("Go: package add links the SDK into go.mod; the program builds, runs up and destroy through the Go host", {
    timeout: 900_000,
  }, async () => {
    const { project } = await runSection("Go", "npm install --prefix .gamehost pulumi-gamehost");
    expect(fs.readFileSync(path.join(project.dir, "go.mod"), "utf8")).toContain(
      "replace example.com/pulumi-gamehost/sdk/go => ./sdks/gamehost",
    );
    expect(fs.readFileSync(path.join(project.dir, "Pulumi.yaml"), "utf8")).toContain(
      "packages:\n  gamehost: ./.gamehost/node_modules/pulumi-gamehost/plugin\n",
    );
  });
});
