/**
 * A project whose `node_modules` does not hold `pulumi-gamehost` though its program loads it: the package is a
 * dependency of another package, as pnpm's isolated layout leaves it (nothing hoisted to the project's
 * `node_modules`): here a library of the project's, whose own `node_modules` holds it. The dynamic resources' shim
 * loads `pulumi-gamehost/provider/<kind>` by name in the SDK's provider host, started in the project's
 * folder: there it found nothing, and every call failed with the SDK's `Cannot find module` and its stack
 * trace. The program now stops first, with the fix (docs/troubleshooting.md, "Installing with pnpm or Yarn").
 * Once the project has its own, of another version than the library's copy, the program warns that the host runs
 * the project's.
 * Before that, the project without node_modules, as Yarn's Plug'n'Play leaves it (Pulumi runs no such project):
 * what the CLI prints, as the page quotes it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_TYPE, serverArgs } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { connection, liveIds, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const REFUSED = "Pulumi's dynamic provider host would not find pulumi-gamehost";
const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;
const LIBRARY_VERSION = `${PACKAGE_VERSION}-library`;

/**
 * A copy of the built package at `dir` whose version is `version` (its JavaScript, not a link: Node would load a
 * linked copy as the repo's own files), with the package's dependencies linked into `modules` to resolve.
 */
function copyAtVersion(dir: string, version: string, modules: string): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ ...manifest, version }));
  fs.cpSync(path.join(REPO_ROOT, "dist"), path.join(dir, "dist"), {
    recursive: true,
    filter: (from) => !/\.(map|d\.ts)$/.test(from),
  });
  for (const dependency of Object.keys(manifest.dependencies).filter((d) => !d.startsWith("@pulumi/"))) {
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules", dependency), path.join(modules, dependency), "dir");
  }
}
const HOST_ERROR = "Cannot find module 'pulumi-gamehost/provider/server'";

describe.skipIf(!realCli)(realCliTitle("pulumi-gamehost not in the project's node_modules (pnpm)"), () => {
  const cli = useCliEnvironment("not-hoisted");

  it("no node_modules: the CLI's messages; not hoisted: preview stops with the fix before anything is created; added, up works; a destroy without it keeps the server", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const dir = path.join(cli.root, "not-hoisted");
    fs.mkdirSync(dir);
    const project = new CliProject(dir, cli.root);
    const page = fs.readFileSync(path.join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");
    const pnpRow = page.split("\n").find((line) => line.includes("after `yarn install` (Yarn 2+)")) ?? "";

    // First no node_modules at all, as Yarn's Plug'n'Play leaves a project: the CLI's two messages the page quotes.
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      "name: not-hoisted\nruntime: nodejs\nplugins:\n  providers:\n    - name: gamehost\n      path: ./node_modules/pulumi-gamehost/plugin\n",
    );
    await project.configure(connection(emulator));
    const noPlugin = await project.fails(["preview"]);
    const noFolder =
      /parsing plugin options for 'gamehost': no folder at path '[^']*\/node_modules\/pulumi-gamehost\/plugin'/;
    expect(noPlugin).toMatch(noFolder);
    // A fresh clone or CI runner that has not run npm ci meets the same quotes: the page's row for them says so.
    const freshRows = page.split("\n").filter((line) => line.includes("`npm ci`") && line.startsWith("| `"));
    expect(
      freshRows.some((row) => row.includes("no folder at path '…/node_modules/pulumi-gamehost/plugin'")),
    ).toBe(true);
    expect(pnpRow).toContain(
      "`parsing plugin options for 'gamehost': no folder at path '…/node_modules/pulumi-gamehost/plugin'`",
    );
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: not-hoisted\nruntime: nodejs\n");
    const noSdk = await project.fails(["preview"]);
    const sdkQuote =
      "It looks like the Pulumi SDK has not been installed. Have you run npm install or yarn install?";
    expect(noSdk).toContain(sdkQuote);
    expect(pnpRow).toContain(`\`${sdkQuote}\``);
    expect(freshRows.some((row) => row.includes(`\`${sdkQuote}\``))).toBe(true);

    // Then its program uses a library of its own, which depends on pulumi-gamehost (pnpm's layout: the
    // library's node_modules holds it, the project's does not). The SDK is the repo's.
    const modules = path.join(dir, "node_modules");
    const library = path.join(modules, "game-infra");
    fs.mkdirSync(path.join(library, "node_modules"), { recursive: true });
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules", "@pulumi"), path.join(modules, "@pulumi"), "dir");
    // The library's copy is another version than the one the project adds below (a library pinning its own).
    copyAtVersion(path.join(library, "node_modules", "pulumi-gamehost"), LIBRARY_VERSION, modules);
    fs.writeFileSync(path.join(library, "package.json"), '{ "name": "game-infra", "main": "index.js" }\n');
    fs.writeFileSync(path.join(library, "index.js"), 'module.exports = require("pulumi-gamehost");\n');
    fs.writeFileSync(
      path.join(dir, "index.js"),
      [
        'const pulumi = require("@pulumi/pulumi");',
        'const gamehost = require("game-infra");',
        'const server = new gamehost.Server("a", new pulumi.Config().requireObject("server"));',
        "exports.serverId = server.serverId;",
        "",
      ].join("\n"),
    );
    await project.setConfig({
      "not-hoisted:server": {
        value: JSON.stringify(serverArgs(emulator, { tags: { role: "not-hoisted" } })),
      },
    });
    const own = path.join(modules, "pulumi-gamehost");

    const refused = await project.fails(["preview"]);
    expect(refused).toContain(`Server "a": ${REFUSED}`);
    expect(refused).toContain("public-hoist-pattern[]=pulumi-gamehost");
    expect(refused).not.toContain(HOST_ERROR);
    expect(page).toContain(REFUSED);
    expect(liveIds(emulator, "not-hoisted")).toEqual([]);

    // The fix: the package in the project's own dependencies, here another version than the library's: the
    // host runs the project's, which the program says once.
    fs.symlinkSync(REPO_ROOT, own, "dir");
    const upOutput = await project.ok(["up", "--yes", "--skip-preview"]);
    // (The project's copy is named by its real path: here a link to the repo.)
    const skew = `Server "a" is made by pulumi-gamehost ${LIBRARY_VERSION} (node_modules/game-infra/node_modules/pulumi-gamehost), but Pulumi's dynamic provider host runs pulumi-gamehost ${PACKAGE_VERSION} (${path.relative(dir, REPO_ROOT)}, the project's)`;
    expect(upOutput).toContain(skew);
    // Once per program: one line in the run's diagnostics (the CLI prints each warning live too).
    expect(upOutput.split("Diagnostics:")[1]?.split(skew)).toHaveLength(2);
    expect(page).toContain("but Pulumi's dynamic provider host runs pulumi-gamehost <other version>");
    const live = liveIds(emulator, "not-hoisted");
    expect(live).toHaveLength(1);
    expect(Object.values(await project.stateIds([SERVER_TYPE]))).toEqual(live);

    // Taken away again: destroy runs no program, only the host, which fails as the page quotes; nothing is lost.
    fs.unlinkSync(own);
    const failed = await project.fails(["destroy", "--yes", "--skip-preview"]);
    expect(failed).toContain(HOST_ERROR);
    expect(page).toContain(HOST_ERROR.replace("server'", "<kind>'"));
    expect(liveIds(emulator, "not-hoisted")).toEqual(live);
    expect(Object.values(await project.stateIds([SERVER_TYPE]))).toEqual(live);

    // No node_modules at all (a teammate's clone or a CI runner before npm ci): destroy stops before it calls
    // the service, with the CLI's words the page quotes in its row that says to run npm ci; nothing is lost.
    fs.symlinkSync(REPO_ROOT, own, "dir");
    const away = `${modules}.away`;
    fs.renameSync(modules, away);
    const noModules = await project.fails(["destroy", "--yes", "--skip-preview"]);
    const hostQuote = "Cannot find module '@pulumi/pulumi/cmd/dynamic-provider'";
    expect(noModules).toContain(hostQuote);
    expect(freshRows.some((row) => row.includes(`\`${hostQuote}\``))).toBe(true);
    expect(liveIds(emulator, "not-hoisted")).toEqual(live);
    expect(Object.values(await project.stateIds([SERVER_TYPE]))).toEqual(live);
    fs.renameSync(away, modules);

    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveIds(emulator, "not-hoisted")).toEqual([]);
  });
});
