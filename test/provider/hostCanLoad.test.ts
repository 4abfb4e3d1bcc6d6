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

/** A folder whose node_modules holds a package `pkg` exporting `./provider/server`, or nothing. */
function folder(name: string, installed: boolean): string {
  const dir = path.join(root, name);
  const pkg = path.join(dir, "node_modules", "pkg");
  fs.mkdirSync(installed ? path.join(pkg, "provider") : dir, { recursive: true });
  if (installed) {
    fs.writeFileSync(
      path.join(pkg, "package.json"),
      JSON.stringify({ name: "pkg", exports: { "./provider/server": "./provider/server.js" } }),
    );
    fs.writeFileSync(path.join(pkg, "provider", "server.js"), "");
  }
  return dir;
}

describe("checkHostCanLoad", () => {
  it("passes where the folder's node_modules (or a parent's) resolve the shim's module", () => {
    const dir = folder("installed", true);
    const nested = path.join(dir, "app");
    fs.mkdirSync(nested);
    expect(() => checkHostCanLoad("Installed", "a", "pkg/provider/server", nested, RUNNER)).not.toThrow();
  });

  it("stops the program naming the resource, the module and the fix where it does not", () => {
    const dir = folder("missing", false);
    expect(() => checkHostCanLoad("Missing", "arena", "pkg/provider/server", dir, RUNNER)).toThrow(
      /^Missing "arena": Pulumi's dynamic provider host would not find pulumi-gamehost: it loads pkg\/provider\/server from .*Add pulumi-gamehost to the project's own dependencies, or with pnpm hoist it .*Nothing was created\.$/,
    );
  });

  it("leaves a program no CLI runs alone (an inline Automation API program runs elsewhere than its host)", () => {
    const dir = folder("inline", false);
    expect(() =>
      checkHostCanLoad("Inline", "a", "pkg/provider/server", dir, "/work/script.js"),
    ).not.toThrow();
  });
});
