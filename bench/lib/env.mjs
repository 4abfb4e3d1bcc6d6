// Shared setup of the bench scripts: repo paths, a `require` rooted at the repo (so `pulumi-gamehost/*`
// resolves to dist/ through the self-link, as programs and the provider host see it), the compiled
// engine harness, and a description of the machine.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = path.resolve(BENCH_DIR, "..");
export const require = createRequire(path.join(REPO, "package.json"));

const HARNESS_ENTRY = path.join(REPO, ".demo-build", "test", "harness", "index.js");
const HARNESS_SOURCES = path.join(REPO, "test", "harness");

/** The engine harness, compiled with tsconfig.harness.json (as scripts/demo.mjs does) when it is stale. */
export function loadHarness() {
  const newestSource = Math.max(
    ...readdirSync(HARNESS_SOURCES)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => statSync(path.join(HARNESS_SOURCES, f)).mtimeMs),
  );
  if (!existsSync(HARNESS_ENTRY) || statSync(HARNESS_ENTRY).mtimeMs < newestSource) {
    const build = spawnSync(
      process.execPath,
      [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.harness.json"],
      { cwd: REPO, stdio: "inherit" },
    );
    if (build.status !== 0) throw new Error("could not compile the engine harness (tsconfig.harness.json)");
  }
  return require(HARNESS_ENTRY);
}

/** nproc, CPU model, RAM and Node version: printed with every figure. */
export function machine() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism?.() ?? cpus.length,
    cpu: cpus[0]?.model?.trim() ?? "unknown",
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
}

/** Ids a server spec needs, from the emulator fixture's main game (first environment, first datacenter). */
export function serverTarget(fixture) {
  const game = fixture.games[0];
  const environment = game.environments[0];
  return {
    gameId: game.id,
    environmentId: environment.id,
    datacenter: game.datacenters[0].id,
    build: environment.builds[0].id,
  };
}

/** `performance.now()` on the wall clock: comparable between processes of this machine (sub-ms). */
export function wallNow() {
  return performance.timeOrigin + performance.now();
}
