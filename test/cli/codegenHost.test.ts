/**
 * Code generation through the language hosts of the pinned CLI build (`npm run pulumi:build`). Its nodejs,
 * python and go hosts are older releases wrapped by tools/codegen-host, which adds pkg/v3 v3.274.1's code
 * generators (GeneratePackage, GenerateProgram, GenerateProject) and forwards everything else to the old host:
 * without it `pulumi package gen-sdk` fails with "method GeneratePackage not implemented".
 * Each SDK is then checked with its language's own toolchain: the Go SDK builds and the Python SDK compiles;
 * the nodejs SDK's generation and type-check, with the TypeScript and @pulumi/pulumi its package.json asks
 * for, are ./genSdk.test.ts's (one home: both files generated it and type-checked it).
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";

const SCHEMA = path.join(REPO_ROOT, "plugin", "schema.json");
const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;
const SLOW = { timeout: 600_000 };

/** Runs a toolchain command, failing the test with its output on a non-zero exit. */
function tool(command: string, args: readonly string[], cwd: string): string {
  const run: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: 540_000,
    env: { ...process.env, NODE_OPTIONS: undefined, CI: undefined },
  });
  expect(run.status, `${command} ${args.join(" ")} in ${cwd}:\n${run.stdout}\n${run.stderr}`).toBe(0);
  return run.stdout;
}

describe.skipIf(!realCli)(realCliTitle("SDK generation through the wrapped language hosts"), () => {
  let root: string;
  let project: CliProject;
  const sdk = (language: string) => path.join(root, "sdk", language);
  const genSdk = (schema: string, language: string, out = "sdk") =>
    ["package", "gen-sdk", schema, "--language", language, "--out", path.join(root, out)] as const;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-codegen-"));
    const dir = path.join(root, "work");
    fs.mkdirSync(dir);
    project = new CliProject(dir, root);
  });
  // The nodejs project of `pulumi package add` has node_modules, which take a while to delete on a loaded machine.
  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it("generates the Python SDK, which compiles", SLOW, async () => {
    await project.ok(genSdk(SCHEMA, "python"));
    const pkg = path.join(sdk("python"), "pulumi_gamehost");
    for (const file of [
      "__init__.py",
      "server.py",
      "lobby_history_export.py",
      "provider.py",
      "get_game.py",
    ]) {
      expect(fs.existsSync(path.join(pkg, file)), file).toBe(true);
    }
    expect(fs.readFileSync(path.join(pkg, "__init__.py"), "utf8")).toContain("from .server import *");
    tool("python3", ["-m", "compileall", "-q", pkg], root);
    // The schema's respectSchemaVersion: setup.py and the plugin manifest name the package's version.
    expect(fs.readFileSync(path.join(sdk("python"), "setup.py"), "utf8")).toContain(
      `VERSION = "${PACKAGE_VERSION}"`,
    );
    expect(JSON.parse(fs.readFileSync(path.join(pkg, "pulumi-plugin.json"), "utf8"))).toMatchObject({
      name: "gamehost",
      version: PACKAGE_VERSION,
    });
  });

  it("generates the Go SDK, which builds", SLOW, async () => {
    // The package's schema as it is: the Go generator takes it (environment defaults only on single-typed
    // settings, since src/plugin/schema.ts learned what the generator cannot emit).
    await project.ok(genSdk(SCHEMA, "go"));

    // pkg/v3's Go generator cannot emit an environment default for a union-typed (oneOf) property and panics
    // on the Go it writes; the wrapper turns that into the command's error instead of losing the host.
    const spec = JSON.parse(fs.readFileSync(SCHEMA, "utf8")) as {
      provider: { inputProperties: Record<string, { oneOf?: unknown; defaultInfo?: unknown }> };
    };
    const union = Object.values(spec.provider.inputProperties).find((p) => p.oneOf);
    expect(union, "a union-typed provider input to give a default").toBeDefined();
    if (union) union.defaultInfo = { environment: ["GAMEHOST_UNION_DEFAULT"] };
    const panicking = path.join(root, "schema-go-panics.json");
    fs.writeFileSync(panicking, JSON.stringify(spec));
    const failure = await project.fails(genSdk(panicking, "go", "go-panics"));
    expect(failure).toContain("generating the go SDK failed inside pkg/v3's code generator");
    expect(failure).not.toContain("error reading from server");

    const dir = sdk("go");
    for (const file of ["server.go", "lobbyHistoryExport.go", "provider.go", "init.go"]) {
      expect(fs.existsSync(path.join(dir, "gamehost", file)), file).toBe(true);
    }
    // The schema's importBasePath is example.com/pulumi-gamehost/sdk/go/gamehost; the generator writes a
    // go.mod only for packages that set supportPack, so the module around it is ours.
    fs.writeFileSync(
      path.join(dir, "go.mod"),
      "module example.com/pulumi-gamehost/sdk/go\n\ngo 1.26\n\nrequire github.com/pulumi/pulumi/sdk/v3 v3.274.1\n",
    );
    tool("go", ["mod", "tidy"], dir);
    tool("go", ["build", "./..."], dir);
  });

  it("converts a gamehost PCL program into each language (GenerateProject)", SLOW, async () => {
    const source = path.join(root, "pcl");
    fs.mkdirSync(source);
    fs.writeFileSync(
      path.join(source, "main.pp"),
      [
        'config gameId string {\n  description = "The game"\n}',
        'resource lobby "gamehost:index:LobbyHistoryExport" {\n  gameId = gameId\n}',
        "output greeting {\n  value = gameId\n}\n",
      ].join("\n\n"),
    );
    // The engine's loader reads the package's schema from the plugin, found on PATH.
    const converter = new CliProject(source, root, { PATH: cliPath(path.join(REPO_ROOT, "plugin")) });
    const expected = {
      python: ["__main__.py", 'gamehost.LobbyHistoryExport("lobby", game_id=game_id)'],
      typescript: ["index.ts", 'new gamehost.LobbyHistoryExport("lobby", {gameId: gameId});'],
      go: ["main.go", 'gamehost.NewLobbyHistoryExport(ctx, "lobby", &gamehost.LobbyHistoryExportArgs{'],
    } as const;
    for (const [language, [file, line]] of Object.entries(expected)) {
      const out = path.join(root, `converted-${language}`);
      await converter.ok([
        "convert",
        "--from",
        "pcl",
        "--language",
        language,
        "--out",
        out,
        "--generate-only",
      ]);
      expect(fs.readFileSync(path.join(out, file), "utf8"), language).toContain(line);
      expect(fs.existsSync(path.join(out, "Pulumi.yaml")), language).toBe(true);
    }
  });

  it("adds the package to a nodejs project (GeneratePackage, Link)", SLOW, async () => {
    const node = path.join(root, "add-nodejs");
    fs.mkdirSync(node);
    fs.writeFileSync(path.join(node, "Pulumi.yaml"), "name: add-nodejs\nruntime: nodejs\n");
    fs.writeFileSync(
      path.join(node, "package.json"),
      '{\n  "name": "add-nodejs",\n  "main": "index.js"\n}\n',
    );
    // Our schema names `pulumi-gamehost/native` as the nodejs package, which npm cannot install under that
    // name (TypeScript programs use the shipped face instead; docs/languages.md): the wrapper's Link is
    // checked with a copy of the schema that names an installable package, as other providers' schemas do.
    const nodeSchema = path.join(root, "schema-nodejs-package.json");
    const spec = JSON.parse(fs.readFileSync(SCHEMA, "utf8")) as {
      language: { nodejs: { packageName: string } };
    };
    spec.language.nodejs.packageName = "@pulumi-gamehost/sdk";
    fs.writeFileSync(nodeSchema, JSON.stringify(spec));
    const nodeOut = await new CliProject(node, root).ok(["package", "add", nodeSchema]);
    expect(nodeOut).toContain('import * as gamehost from "@pulumi-gamehost/sdk";');
    expect(JSON.parse(fs.readFileSync(path.join(node, "package.json"), "utf8"))).toEqual({
      name: "add-nodejs",
      main: "index.js",
      dependencies: { "@pulumi-gamehost/sdk": "file:sdks/gamehost" },
    });
    // The local SDK compiled itself when npm installed it.
    expect(fs.existsSync(path.join(node, "node_modules", "@pulumi-gamehost", "sdk", "bin", "index.js"))).toBe(
      true,
    );

    // The Python half (a project's requirements.txt gains the SDK, the venv imports it) is
    // ./referencePython.test.ts's: its one Python project is made by `pulumi package add`.
  });

  it("serves GenerateProgram for the three languages (the wrapper's Go tests)", SLOW, () => {
    // `pulumi import` is the CLI's only caller and needs a live resource; the Go tests call the method with the
    // engine's loader served from plugin/schema.json.
    const out = tool(
      "go",
      ["test", "-count=1", "-v", "./..."],
      path.join(REPO_ROOT, "tools", "codegen-host"),
    );
    for (const lang of ["python", "nodejs", "go"])
      expect(out).toContain(`--- PASS: TestGenerateProgram/${lang}`);
  });

  it("still runs programs: other calls reach the old host", SLOW, async () => {
    const dir = path.join(root, "program");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      "name: codegen-forward\nruntime: nodejs\nmain: index.js\n",
    );
    fs.writeFileSync(
      path.join(dir, "index.js"),
      'exports.answer = require("@pulumi/pulumi").secret("forty-two");\n',
    );
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
    const program = new CliProject(dir, root);
    await program.ok(["stack", "init", "dev"]);
    await program.ok(["up", "--yes", "--skip-preview"]);
    expect(await program.outputsJson()).toEqual({ answer: "forty-two" });
    expect(await program.ok(["about", "--json"])).toMatch(
      /"nodejs"[\s\S]*"3\.68\.0"|"3\.68\.0"[\s\S]*"nodejs"/,
    );
  });
});
