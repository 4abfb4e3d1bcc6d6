/**
 * State written by an earlier release keeps working after an upgrade. Its dynamic resources hold the shim
 * text of that release, which `require`s `pulumi-gamehost/provider/server` and
 * `pulumi-gamehost/provider/lobby-history-export` and calls their exported functions: this deploys
 * `examples/quickstart` with the package as packed from {@link EARLIER_RELEASE}, then upgrades the
 * program's package to this build and refreshes and destroys the stack.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "../../harness/src";
import { installTarball, installThisBuild, tarballOf } from "../support/earlierRelease";
import { liveServers } from "../support/emulator";
import {
  EXPORT_TYPE,
  expectNoLeak,
  opsOf,
  QUICKSTART_DIR,
  quickstartConfig,
  SERVER_TYPE,
  useEngineEnvironment,
} from "./helpers";

/** The last commit of main before the layout by face (src/kinds, src/dynamic, generated faces). */
const EARLIER_RELEASE = "7a16043894cfdc62084c58c932c0264b7c409f88";

const engine = useEngineEnvironment("upgrade");

/** A copy of the quickstart with `pulumi-gamehost` unpacked from `tarball` (see {@link installTarball}). */
function programWith(tarball: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-upgrade-program-"));
  for (const file of ["Pulumi.yaml", "index.ts", "package.json", "tsconfig.json"])
    fs.copyFileSync(path.join(QUICKSTART_DIR, file), path.join(dir, file));
  installTarball(dir, tarball);
  return dir;
}

let programDir: string;
let stack: Stack;
let token: string;

beforeAll(() => {
  token = engine.emulator.tokens.user;
  programDir = programWith(tarballOf(EARLIER_RELEASE));
  stack = new Stack({
    programDir,
    config: quickstartConfig(engine.emulator),
    checkpointFile: engine.checkpointFile("dev"),
  });
}, 600_000);

afterAll(() => {
  if (programDir) fs.rmSync(programDir, { recursive: true, force: true });
});

describe("a stack deployed by an earlier release", () => {
  it("is deployed with the earlier release's package", { timeout: 600_000 }, async () => {
    const up = expectNoLeak(token, stack, await stack.up());
    expect(up.error).toBeUndefined();
    expect(opsOf(up.steps).sort()).toEqual(["lobby: create", "match: create", "yesterday: create"]);
    const shims = stack
      .resources()
      .filter((r) => r.type === SERVER_TYPE || r.type === EXPORT_TYPE)
      .map((r) => (r.outputs as { __provider?: string }).__provider ?? "");
    expect(shims.some((s) => s.includes('require("pulumi-gamehost/provider/server")'))).toBe(true);
    expect(shims.some((s) => s.includes('require("pulumi-gamehost/provider/lobby-history-export")'))).toBe(
      true,
    );
  });

  it("refreshes and destroys after the package is upgraded to this build", { timeout: 600_000 }, async () => {
    installThisBuild(programDir);
    const refresh = expectNoLeak(token, stack, await stack.refresh());
    expect(refresh.error).toBeUndefined();
    expect(liveServers(engine.emulator)).toHaveLength(2);

    const destroy = expectNoLeak(token, stack, await stack.destroy());
    expect(destroy.error).toBeUndefined();
    expect(opsOf(destroy.steps).sort()).toEqual(["lobby: delete", "match: delete", "yesterday: delete"]);
    expect(liveServers(engine.emulator)).toEqual([]);
    expect(stack.resources().filter((r) => r.custom && !r.type.startsWith("pulumi:providers:"))).toEqual([]);
  });
});
