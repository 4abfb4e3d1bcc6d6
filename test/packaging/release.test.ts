/**
 * The release script (`npm run release`) as a maintainer runs it: every artifact in one folder (the npm
 * tarball, the plugin archives, the Python SDK's sdist and wheel, the Go SDK), with checksums, and the plugin archive installed the way users of other languages install it,
 * `pulumi plugin install resource gamehost <version> --file <archive>`, then used by a YAML program run
 * by the real CLI with no plugin path: the engine finds the installed plugin by name and version. On linux-x64
 * (where the release runs) also the standalone archive: the plugin as one executable that runs with no Node.js,
 * which the CLI installs the same way, and which the CLI starts from a plugin folder holding only that file for
 * the YAML program of docs/languages.md, with a PATH of nothing but the CLI and its YAML host.
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { PLUGIN_DOWNLOAD_URL } from "../../src/version";
import { dist, REPO_ROOT } from "../support/dist";
import { docBlock } from "../support/docBlocks";
import { liveServers, startTestEmulator } from "../support/emulator";
import { linkNodeModules } from "../support/examples";
import { CliProject, cliPath, realCli, realCliTitle, tempRoot, walk } from "../support/realPulumi";
import { mustRun, readJson, sharedPackBuilt } from "./support";

const VERSION = readJson<{ version: string }>(path.join(REPO_ROOT, "package.json")).version;
/** The release script builds the single-executable plugin on linux-x64 only (it copies the `node` it runs on). */
const STANDALONE = process.platform === "linux" && process.arch === "x64";
const STANDALONE_ARCHIVE = `pulumi-resource-gamehost-v${VERSION}-linux-amd64-standalone.tar.gz`;
/** The plugin entry of docs/languages.md's YAML program (a project that installed the npm package). */
/** `pulumi plugin install` of this version's plugin from a release archive, as docs/languages.md gives it. */
const installFrom = (archive: string) => [
  "plugin",
  "install",
  "resource",
  "gamehost",
  VERSION,
  "--file",
  archive,
];

const DOCS_PLUGIN_ENTRY = "path: ./node_modules/pulumi-gamehost/plugin";

/** The file `name` resolves to on the suite's CLI PATH. */
function onCliPath(name: string): string {
  const found = spawnSync("bash", ["-c", `command -v ${name}`], {
    encoding: "utf8",
    env: { ...process.env, PATH: cliPath() },
  });
  expect(found.status, `${name} on PATH`).toBe(0);
  return fs.realpathSync(found.stdout.trim());
}

describe.skipIf(!realCli)(realCliTitle("the release script"), () => {
  let root: string;
  let out: string;
  let emulator: RunningEmulator;

  beforeAll(async () => {
    root = tempRoot("release");
    out = path.join(root, "release");
    emulator = await startTestEmulator();
    // Packed as built: `npm pack` in the repo would rebuild the dist/ other files load (test/packaging packs with
    // the build, as publishing does).
    const tarball = await sharedPackBuilt();
    await mustRun("bash", ["scripts/release.sh"], {
      cwd: REPO_ROOT,
      // The single-executable plugin adds its build (a bundle and a 100 MB copy of node) to the SDKs'. A hang
      // guard, below the hook's so that a stop prints the script's steps with their times: about 50 s alone on
      // 2 cores, 85 s two at once; with the pack before it (then a build), over 900 s in two full suites at once at load 12–18.
      timeoutMs: 1_380_000,
      env: { RELEASE_DIR: out, RELEASE_TARBALL: tarball },
    });
  }, 1_440_000);

  afterAll(async () => {
    await emulator?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("builds the npm package, a plugin archive per platform and the SDKs, each file with its checksum", () => {
    expect(fs.readdirSync(out).sort()).toEqual(
      [
        "SHA256SUMS",
        "go",
        "python",
        `pulumi-gamehost-${VERSION}.tgz`,
        ...["darwin-amd64", "darwin-arm64", "linux-amd64", "linux-arm64"].map(
          (p) => `pulumi-resource-gamehost-v${VERSION}-${p}.tar.gz`,
        ),
        ...(STANDALONE ? [STANDALONE_ARCHIVE] : []),
      ].sort(),
    );
    // The Python SDK as sdist and wheel of the package's version (not the generators' 0.0.0 placeholder).
    expect(fs.readdirSync(path.join(out, "python")).sort()).toEqual(
      [`pulumi_gamehost-${VERSION}-py3-none-any.whl`, `pulumi_gamehost-${VERSION}.tar.gz`].sort(),
    );
    expect(fs.existsSync(path.join(out, "go", "gamehost", "server.go"))).toBe(true);
    // The generated SDKs tell the CLI where to download the plugin (the Python SDK's file is the same).
    expect(readJson(path.join(out, "go", "gamehost", "pulumi-plugin.json"))).toEqual({
      resource: true,
      name: "gamehost",
      version: VERSION,
      server: PLUGIN_DOWNLOAD_URL,
    });
    const files = walk(out).filter((f) => path.basename(f) !== "SHA256SUMS");
    const sums = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums).toHaveLength(files.length);
    for (const line of sums) {
      const [sum, name] = line.split(/\s+/);
      const digest = createHash("sha256")
        .update(fs.readFileSync(path.join(out, name ?? "")))
        .digest("hex");
      expect(digest, name).toBe(sum);
    }
  });

  it("installs with `pulumi plugin install --file`, and a YAML program uses it by name", {
    timeout: 300_000,
  }, async () => {
    const dir = path.join(root, "yaml-installed");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      [
        "name: release-check",
        "runtime: yaml",
        "variables:",
        "  games:",
        "    fn::invoke:",
        "      function: gamehost:index:getGames",
        "      arguments: {}",
        "outputs:",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Pulumi YAML interpolation, not JavaScript
        "  firstGame: ${games.games[0].displayName}",
        "",
      ].join("\n"),
    );
    const project = new CliProject(dir, root);
    const archive = path.join(out, `pulumi-resource-gamehost-v${VERSION}-linux-amd64.tar.gz`);
    await project.ok(installFrom(archive));
    expect(await project.ok(["plugin", "ls"])).toMatch(new RegExp(`gamehost\\s+resource\\s+${VERSION}`));
    // An installed plugin of the same version (an earlier build of it, marked here by a file) is kept by a
    // second install, which says nothing; only `--reinstall` replaces it (docs/languages.md).
    const marker = path.join(project.home, "plugins", `resource-gamehost-v${VERSION}`, "an-earlier-build");
    fs.writeFileSync(marker, "");
    await project.ok(installFrom(archive));
    expect(fs.existsSync(marker)).toBe(true);
    await project.ok([...installFrom(archive), "--reinstall"]);
    expect(fs.existsSync(marker)).toBe(false);

    await project.configure({
      "gamehost:baseUrl": { value: emulator.url },
      "gamehost:token": { value: emulator.tokens.user, secret: true },
    });
    await project.ok(["up", "--yes", "--skip-preview"]);
    const outputs = await project.outputsJson();
    const client = new (dist.api().GamehostClient)({ baseUrl: emulator.url, token: emulator.tokens.user });
    const [first] = (await client.listGames()).games;
    expect(first?.display_name).toBeTruthy();
    expect(outputs.firstGame).toBe(first?.display_name);
    project.expectNoLeak(emulator.tokens.user);
  });

  it("a program that needs the plugin, none installed: the CLI downloads this release's archive from the package's pluginDownloadURL", {
    timeout: 300_000,
  }, async () => {
    // The release's folder as its GitHub release would serve it; the CLI is sent there by its own setting for
    // mirrors, PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES (docs/languages.md), matched against the package's URL.
    const requested: string[] = [];
    const releaseHost = createServer((req, res) => {
      requested.push(req.url ?? "");
      const file = path.join(out, path.basename(decodeURIComponent(req.url ?? "")));
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) return res.writeHead(404).end();
      res.writeHead(200, { "content-length": fs.statSync(file).size });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => releaseHost.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = releaseHost.address() as AddressInfo;
      expect(PLUGIN_DOWNLOAD_URL).toBe("github://api.github.com/pulumi-gamehost");
      // What the CLI matches: the GitHub source of a github:// URL names the repository pulumi-<plugin>.
      const source = `${PLUGIN_DOWNLOAD_URL}/pulumi-gamehost`.replaceAll(".", "\\.");
      const dir = path.join(root, "downloaded");
      fs.mkdirSync(dir);
      // The TypeScript face of the plugin with no `plugins.providers` entry: a default provider (an invoke) and
      // an explicit one (a registration), each carrying the URL.
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: release-download\nruntime: nodejs\n");
      fs.writeFileSync(
        path.join(dir, "index.ts"),
        [
          'import * as pulumi from "@pulumi/pulumi";',
          'import * as gamehost from "pulumi-gamehost";',
          "const config = new pulumi.Config();",
          'const eu = new gamehost.native.Provider("eu", { baseUrl: config.require("euUrl"), token: config.requireSecret("euToken") });',
          "export const firstGame = gamehost.native.getGamesOutput().games[0].displayName;",
          "export const viaEu = gamehost.native.getGamesOutput({ provider: eu }).games.length;",
          "",
        ].join("\n"),
      );
      fs.writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: "release-download", main: "index.ts" }),
      );
      linkNodeModules(dir);
      const project = new CliProject(dir, root, {
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false",
        // The suite's PATH has the repository's node_modules/.bin, where npm links `pulumi-resource-gamehost`:
        // the CLI would run that ambient plugin instead of downloading.
        PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
        PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${source}$=http://127.0.0.1:${port}`,
      });
      await project.configure({
        "gamehost:baseUrl": { value: emulator.url },
        "gamehost:token": { value: emulator.tokens.user, secret: true },
        "release-download:euUrl": { value: emulator.url },
        "release-download:euToken": { value: emulator.tokens.user, secret: true },
      });
      expect(await project.ok(["plugin", "ls"])).not.toMatch(/gamehost/);
      await project.ok(["up", "--yes", "--skip-preview"]);
      // One download, of this version's archive for this platform, installed where `plugin install` puts it.
      const platform = `${process.platform === "darwin" ? "darwin" : "linux"}-${process.arch === "arm64" ? "arm64" : "amd64"}`;
      expect(requested).toEqual([`/pulumi-resource-gamehost-v${VERSION}-${platform}.tar.gz`]);
      expect(await project.ok(["plugin", "ls"])).toMatch(new RegExp(`gamehost\\s+resource\\s+${VERSION}`));
      const outputs = await project.outputsJson();
      const client = new (dist.api().GamehostClient)({ baseUrl: emulator.url, token: emulator.tokens.user });
      const { games } = await client.listGames();
      expect(outputs.firstGame).toBe(games[0]?.display_name);
      expect(outputs.viaEu).toBe(games.length);
      project.expectNoLeak(emulator.tokens.user);
    } finally {
      releaseHost.close();
    }
  });

  it.skipIf(!STANDALONE)(
    "the standalone archive: one executable that runs with no Node.js, installed by the CLI, and started by it for docs/languages.md's YAML program with no node on PATH",
    {
      timeout: 600_000,
    },
    async () => {
      const unpacked = path.join(root, "standalone");
      fs.mkdirSync(unpacked);
      await mustRun("tar", ["-xzf", path.join(out, STANDALONE_ARCHIVE), "-C", unpacked], { cwd: root });
      expect(fs.readdirSync(unpacked)).toEqual(["pulumi-resource-gamehost"]);
      // An empty environment: no PATH, so no node to fall back on.
      const version = spawnSync(path.join(unpacked, "pulumi-resource-gamehost"), ["--version"], {
        encoding: "utf8",
        env: {},
      });
      expect(version.stdout.trim()).toBe(`pulumi-resource-gamehost ${VERSION}`);

      const dir = path.join(root, "standalone-installed");
      fs.mkdirSync(dir);
      const project = new CliProject(dir, root);
      await project.ok(installFrom(path.join(out, STANDALONE_ARCHIVE)));
      const installed = walk(project.home).filter((f) => path.basename(f) === "pulumi-resource-gamehost");
      expect(installed).toHaveLength(1);
      expect(fs.statSync(installed[0] as string).size).toBe(
        fs.statSync(path.join(unpacked, "pulumi-resource-gamehost")).size,
      );

      // The real CLI starts it, with a PATH of nothing but the CLI and its YAML host (no node, no npm), for
      // the YAML program of docs/languages.md, its plugin folder pointed at the unpacked archive.
      const bin = path.join(root, "bin");
      fs.mkdirSync(bin);
      for (const name of ["pulumi", "pulumi-language-yaml"])
        fs.symlinkSync(onCliPath(name), path.join(bin, name));
      expect(spawnSync("node", ["--version"], { env: { PATH: bin } }).error).toBeDefined();
      const yaml = path.join(root, "standalone-yaml");
      fs.mkdirSync(yaml);
      const manifest = docBlock("docs/languages.md", "YAML", "yaml").text;
      expect(manifest).toContain(DOCS_PLUGIN_ENTRY);
      fs.writeFileSync(
        path.join(yaml, "Pulumi.yaml"),
        manifest.replace(DOCS_PLUGIN_ENTRY, `path: ${unpacked}`),
      );
      const program = new CliProject(yaml, root, { PATH: bin });
      await program.configure({
        "gamehost:baseUrl": { value: emulator.url },
        "gamehost:token": { value: emulator.tokens.user, secret: true },
      });
      await program.ok(["up", "--yes", "--skip-preview"]);
      const [match, ...others] = liveServers(emulator);
      expect(others).toEqual([]);
      const port = match?.network.ports.game;
      expect((await program.outputsJson()).endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);
      await program.ok(["destroy", "--yes", "--skip-preview"]);
      expect(liveServers(emulator)).toEqual([]);
      program.expectNoLeak(emulator.tokens.user);
    },
  );
});
