/**
 * `pulumi import gamehost:index:Server <name> <gameId>/<environmentId>/<serverId>` through the real CLI, of a
 * server made beforehand straight through the emulator's API: the code it generates for YAML (the real YAML
 * host), TypeScript and Python (Pulumi's generators in process; see ./languages.ts), put into a program of
 * the same stack, gives a preview with no changes.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { dist, REPO_ROOT } from "../support/dist";
import { serverTarget } from "../support/emulator";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { generateSdk, importCode, PLUGIN_DIR, pipInstall, pythonVenv, SCHEMA_FILE } from "./languages";

const PROJECT = "gamehost-import";
const SERVER = "gamehost:index:Server";

/** A Pulumi.yaml of the project in `runtime`, with the plugin from this repo. */
function manifest(runtime: string): string {
  return [
    `name: ${PROJECT}`,
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
   * A project of the same stack (same project name, backend and stack config) in another language: its
   * folder has the same name under `language/`, which CliProject maps to the same backend.
   */
  function sameStack(from: CliProject, language: string, runtime: string): CliProject {
    const dir = path.join(setup.root, language, PROJECT);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), manifest(runtime));
    fs.copyFileSync(path.join(from.dir, "Pulumi.dev.yaml"), path.join(dir, "Pulumi.dev.yaml"));
    return new CliProject(dir, setup.root, language === "python" ? pythonVenv().env : {});
  }

  it("generates YAML, TypeScript and Python that preview with no changes", { timeout: 900_000 }, async () => {
    const target = serverTarget(setup.emulator);
    const client = new (dist.api().GamehostClient)({
      baseUrl: setup.emulator.url,
      token: setup.emulator.tokens.user,
    });
    const server = await client.createServer(target.gameId, target.environmentId, {
      datacenter: target.datacenter,
      tags: { role: "match" },
      runtime: { build: target.build, arguments: ["--mode", "match"] },
      network: {
        mode: "host",
        ports: { game: { protocol: "udp", internal_port: 7777, routing: { host: {} } } },
      },
      resources: { cpu: 1000, memory: 1024 },
    });
    const importId = `${target.gameId}/${target.environmentId}/${server.id}`;

    const dir = path.join(setup.root, PROJECT);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), manifest("yaml"));
    const yaml = new CliProject(dir, setup.root);
    await yaml.configure({
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    });
    const yamlCode = path.join(setup.root, "match.yaml");
    await yaml.ok(["import", SERVER, "match", importId, "--yes", "--out", yamlCode]);
    expect(await yaml.stateIds([SERVER])).toEqual({ match: server.id });

    // YAML: the generated `resources:` block, appended to the project as it stands.
    const generated = fs.readFileSync(yamlCode, "utf8");
    // The YAML generator writes the short token (`gamehost:Server`), which means the same.
    expect(generated).toMatch(/^ {4}type: gamehost:(index:)?Server$/m);
    fs.appendFileSync(path.join(dir, "Pulumi.yaml"), generated);
    await yaml.ok(["preview", "--expect-no-changes"]);

    const exportFile = path.join(setup.root, "export.json");
    fs.writeFileSync(exportFile, await yaml.ok(["stack", "export", "--show-secrets"]));

    // TypeScript: the generated program on `pulumi-gamehost/native`, the TypeScript face of the plugin, in
    // place of the generated SDK package (same classes and types; see genSdk.test.ts).
    const ts = sameStack(yaml, "typescript", "nodejs");
    const tsCode = importCode(exportFile, "nodejs", SERVER);
    const sdkImport = `import * as gamehost from "${JSON.parse(fs.readFileSync(SCHEMA_FILE, "utf8")).language.nodejs.packageName}";`;
    expect(tsCode).toContain(sdkImport);
    fs.writeFileSync(
      path.join(ts.dir, "index.ts"),
      tsCode.replace(sdkImport, `import * as gamehost from "pulumi-gamehost/native";`),
    );
    fs.copyFileSync(
      path.join(REPO_ROOT, "examples", "quickstart", "tsconfig.json"),
      path.join(ts.dir, "tsconfig.json"),
    );
    fs.writeFileSync(path.join(ts.dir, "package.json"), JSON.stringify({ name: PROJECT, private: true }));
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(ts.dir, "node_modules"), "dir");
    const tsc = spawnSync(path.join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["--noEmit"], {
      cwd: ts.dir,
      encoding: "utf8",
    });
    expect(tsc.status, `${tsCode}\n${tsc.stdout}`).toBe(0);
    await ts.ok(["preview", "--expect-no-changes", "--stack", "dev"]);

    // Python: the generated program on the generated SDK, installed into a folder on PYTHONPATH.
    const py = sameStack(yaml, "python", "python");
    const pyCode = importCode(exportFile, "python", SERVER);
    expect(pyCode).toContain("import pulumi_gamehost as gamehost");
    fs.writeFileSync(path.join(py.dir, "__main__.py"), pyCode);
    const sdk = path.join(setup.root, "sdk", "python");
    generateSdk("python", sdk);
    const installed = pipInstall(pythonVenv().python, sdk, path.join(setup.root, "site-packages"));
    await py.ok(["preview", "--expect-no-changes", "--stack", "dev"], installed);

    // Still the one server, never replaced.
    expect(
      setup.emulator
        .servers()
        .filter((s) => s.destroyed_at === undefined)
        .map((s) => s.id),
    ).toEqual([server.id]);
  });
});
