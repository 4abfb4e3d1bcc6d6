/**
 * `pulumi import gamehost:index:Server <name> <gameId>/<environmentId>/<serverId>` through the real CLI, of a
 * server made beforehand straight through the emulator's API, in a project of each language: the code it
 * prints with `--out` (YAML by the YAML host, TypeScript and Python by the pinned build's hosts, see
 * ./languages.ts), put as printed into that project's program (TypeScript type-checked against
 * `pulumi-gamehost/native`, Python on the SDK `pulumi package add` makes), gives a preview with no changes.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { docBlock, shellCommands } from "../support/docBlocks";
import { serverTarget, userClient } from "../support/emulator";
import { linkNodeModules, QUICKSTART_DIR } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { generateSdk, PLUGIN_DIR, pipInstall, pythonVenv, SCHEMA_FILE } from "./languages";

const SERVER = "gamehost:index:Server";
const PASSWORD = "imported-db-password-4f1c";
const ADOPTING = "docs/adopting-servers.md";
const IMPORT_SECTION = "With the provider plugin: `pulumi import`";
/** What the page says each language's printed code starts with: the line that imports the package. */
function documentedImport(language: string): string {
  const page = fs.readFileSync(path.join(REPO_ROOT, ADOPTING), "utf8");
  const line = new RegExp(`^- ${language}: \`([^\`]+)\``, "m").exec(page)?.[1];
  if (!line) throw new Error(`${ADOPTING} says nothing of the ${language} code \`pulumi import\` prints`);
  return line;
}

/** A Pulumi.yaml of a project `name` in `runtime`, with the plugin from this repo. */
function manifest(name: string, runtime: string): string {
  return [
    `name: ${name}`,
    `runtime: ${runtime}`,
    "plugins:",
    "  providers:",
    "    - name: gamehost",
    `      path: ${PLUGIN_DIR}`,
    "",
  ].join("\n");
}

describe.skipIf(!realCli)(realCliTitle("pulumi import and the code it generates"), () => {
  const setup = useCliEnvironment("import");

  /**
   * A project of its own in `language` (its own stack and backend), configured for the emulator, that has
   * run `pulumi import <Server> match <importId> --out <file>`; returns the project and the code it printed.
   */
  async function imported(
    language: string,
    runtime: string,
    importId: string,
    extraEnv: NodeJS.ProcessEnv = {},
  ): Promise<{ project: CliProject; code: string }> {
    const name = `gamehost-import-${language}`;
    const dir = path.join(setup.root, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), manifest(name, runtime));
    const project = new CliProject(dir, setup.root, extraEnv);
    await project.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });
    const out = path.join(setup.root, `match-${language}.code`);
    // docs/adopting-servers.md's command as written, its id placeholder filled, non-interactive.
    const [command] = shellCommands(docBlock(ADOPTING, IMPORT_SECTION, "bash"), [
      ["<gameId>/<environmentId>/<serverId>", importId],
    ]);
    // docs/languages.md ("Import and get") and the reference page of Server ("Import") show the same command.
    for (const [page, section] of [
      ["docs/languages.md", "Import and get"],
      ["docs/reference/server.md", "Import"],
    ] as const)
      expect(shellCommands(docBlock(page, section, "sh")), page).toEqual(
        shellCommands(docBlock(ADOPTING, IMPORT_SECTION, "bash")),
      );
    const args = (command ?? "").split(" ");
    expect(args.slice(0, 4)).toEqual(["pulumi", "import", SERVER, "match"]);
    await project.ok([...args.slice(1), "--yes", "--out", out]);
    // The server's environment is encrypted in the state, its inputs as its outputs.
    expect(await project.ok(["stack", "export"])).not.toContain(PASSWORD);
    return { project, code: fs.readFileSync(out, "utf8") };
  }

  it("generates YAML, TypeScript and Python that preview with no changes", { timeout: 900_000 }, async () => {
    const target = serverTarget(setup.emulator);
    const client = userClient(setup.emulator);
    const server = await client.createServer(target.gameId, target.environmentId, {
      datacenter: target.datacenter,
      tags: { role: "match" },
      // Another team's secret: the import keeps it out of the state's plain text.
      runtime: {
        build: target.build,
        arguments: ["--mode", "match"],
        environment: { DB_PASSWORD: PASSWORD },
      },
      network: {
        mode: "host",
        ports: { game: { protocol: "udp", internal_port: 7777, routing: { host: {} } } },
      },
      resources: { cpu: 1000, memory: 1024 },
    });
    const importId = `${target.gameId}/${target.environmentId}/${server.id}`;

    // YAML: the generated `resources:` block, appended to the project as it stands.
    const yaml = await imported("yaml", "yaml", importId);
    expect(await yaml.project.stateIds([SERVER])).toEqual({ match: server.id });
    // The YAML generator writes the short token (`gamehost:Server`), which means the same.
    expect(yaml.code).toMatch(/^ {4}type: gamehost:(index:)?Server$/m);
    expect(yaml.code).toContain(documentedImport("YAML"));
    // The printed code holds the value as it runs, in every language (docs/adopting-servers.md says so).
    expect(yaml.code).toContain(`DB_PASSWORD: ${PASSWORD}`);
    fs.appendFileSync(path.join(yaml.project.dir, "Pulumi.yaml"), yaml.code);
    await yaml.project.ok(["preview", "--expect-no-changes"]);

    // TypeScript: the generated program as printed. The schema's language.nodejs.packageName makes it import
    // `pulumi-gamehost/native`, the TypeScript face of the plugin that the npm package ships.
    const ts = await imported("typescript", "nodejs", importId);
    expect(ts.code).toContain('import * as gamehost from "pulumi-gamehost/native";');
    expect(ts.code).toContain(documentedImport("TypeScript"));
    expect(ts.code).toContain(`DB_PASSWORD: "${PASSWORD}"`);
    expect(ts.code).toContain(
      `import * as gamehost from "${JSON.parse(fs.readFileSync(SCHEMA_FILE, "utf8")).language.nodejs.packageName}";`,
    );
    const tsDir = ts.project.dir;
    fs.writeFileSync(path.join(tsDir, "index.ts"), ts.code);
    fs.copyFileSync(path.join(QUICKSTART_DIR, "tsconfig.json"), path.join(tsDir, "tsconfig.json"));
    fs.writeFileSync(
      path.join(tsDir, "package.json"),
      JSON.stringify({ name: "gamehost-import", private: true }),
    );
    linkNodeModules(tsDir);
    const tsc = spawnSync(path.join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["--noEmit"], {
      cwd: tsDir,
      encoding: "utf8",
    });
    expect(tsc.status, `${ts.code}\n${tsc.stdout}`).toBe(0);
    await ts.project.ok(["preview", "--expect-no-changes"]);

    // Python: the generated program on the generated SDK, installed into a folder on PYTHONPATH.
    const { python, env: venv } = pythonVenv();
    const sdk = path.join(setup.root, "sdk", "python");
    await generateSdk("python", sdk);
    const installed = pipInstall(python, sdk, path.join(setup.root, "site-packages"));
    const py = await imported("python", "python", importId, { ...venv, ...installed });
    expect(py.code).toContain("import pulumi_gamehost as gamehost");
    expect(py.code).toContain(documentedImport("Python"));
    expect(py.code).toContain(`"DB_PASSWORD": "${PASSWORD}"`);
    fs.writeFileSync(path.join(py.project.dir, "__main__.py"), py.code);
    await py.project.ok(["preview", "--expect-no-changes"]);

    // Still the one server, never replaced.
    expect(
      setup.emulator
        .servers()
        .filter((s) => s.destroyed_at === undefined)
        .map((s) => s.id),
    ).toEqual([server.id]);
  });
});
