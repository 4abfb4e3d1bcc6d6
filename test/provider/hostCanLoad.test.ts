/**
 * The dynamic resources' check that the provider host will load the kind's shim from the program's folder
 * (src/dynamic/hostCanLoad.ts): resolved from the folder's node_modules, as the host resolves it, and only in
 * a program the CLI's runner runs. test/cli/notHoisted.test.ts runs a project without the package hoisted.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkHostCanLoad } from "../../src/dynamic/hostCanLoad";

const RUNNER = "/project/node_modules/@pulumi/pulumi/cmd/run/index.js";
const root = fs.mkdtempSync(path.join(os.tmpdir(), "host-can-load-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const SHIM_MODULE = "pulumi-gamehost/provider/server";

/** `dir/node_modules/pulumi-gamehost` at `version`, exporting `./provider/server` as the package does. */
function install(dir: string, version: string): string {
  const pkg = path.join(dir, "node_modules", "pulumi-gamehost");
  fs.mkdirSync(path.join(pkg, "provider"), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, "package.json"),
    JSON.stringify({
      name: "pulumi-gamehost",
      version,
      exports: { "./provider/server": "./provider/server.js" },
    }),
  );
  fs.writeFileSync(path.join(pkg, "provider", "server.js"), "");
  return pkg;
}

/** A folder whose node_modules holds the package at 1.2.3, or nothing. */
function folder(name: string, installed: boolean): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  if (installed) install(dir, "1.2.3");
  return dir;
}

/** The check as the program runs it, this copy being `own`, the warnings kept. */
function check(kind: string, dir: string, own = { version: "1.2.3", dir: "/elsewhere" }): string[] {
  const warnings: string[] = [];
  checkHostCanLoad(kind, "lobby", SHIM_MODULE, {
    folder: dir,
    main: RUNNER,
    own,
    warn: (m) => warnings.push(m),
  });
  return warnings;
}

describe("checkHostCanLoad", () => {
  it("passes where the folder's node_modules (or a parent's) resolve the shim's module", () => {
    const dir = folder("installed", true);
    const nested = path.join(dir, "app");
    fs.mkdirSync(nested);
    expect(check("Installed", nested)).toEqual([]);
  });

  it("stops the program naming the resource, the module and the fix where it does not", () => {
    const dir = folder("missing", false);
    expect(() => check("Missing", dir)).toThrow(
      /^Missing "lobby": Pulumi's dynamic provider host would not find pulumi-gamehost: it loads pulumi-gamehost\/provider\/server from .*Add pulumi-gamehost to the project's own dependencies, or with pnpm hoist it .*Nothing was created\.$/,
    );
  });

  it("names npm's nested and shallow install strategies as well as pnpm (npm install --install-strategy=nested nests it too)", () => {
    const dir = folder("missingNpm", false);
    expect(() => check("MissingNpm", dir)).toThrow(
      /as pnpm, or npm with install-strategy=nested or shallow, lays them out/,
    );
  });

  it("leaves a program no CLI runs alone (an inline Automation API program runs elsewhere than its host)", () => {
    const dir = folder("inline", false);
    expect(() =>
      checkHostCanLoad("Inline", "a", SHIM_MODULE, { folder: dir, main: "/work/script.js" }),
    ).not.toThrow();
  });

  it("warns once when a library's own copy is another version than the project's, which the host runs", () => {
    // The project holds 1.2.3; its library @studio/region holds 2.0.0 nested, which makes the resources.
    const dir = folder("two-versions", true);
    const nested = install(path.join(dir, "node_modules", "@studio", "region"), "2.0.0");
    const [warning, ...more] = check("Server", dir, { version: "2.0.0", dir: nested });
    expect(more).toEqual([]);
    expect(warning).toBe(
      'Server "lobby" is made by pulumi-gamehost 2.0.0 (node_modules/@studio/region/node_modules/pulumi-gamehost), ' +
        "but Pulumi's dynamic provider host runs pulumi-gamehost 1.2.3 (node_modules/pulumi-gamehost, the project's): " +
        "that version creates, updates and deletes this program's dynamic resources. Install one version " +
        "(`npm ls pulumi-gamehost` lists them): give the project the version its libraries use, or make " +
        "pulumi-gamehost a peer dependency of the library.",
    );
    // Said once per program, not once per kind.
    expect(check("Fleet", dir, { version: "2.0.0", dir: nested })).toEqual([]);
  });

  it("says nothing when the copies differ but their versions do not", () => {
    const dir = folder("same-version", true);
    const nested = install(path.join(dir, "node_modules", "lib"), "1.2.3");
    expect(check("Server", dir, { version: "1.2.3", dir: nested })).toEqual([]);
  });
});
