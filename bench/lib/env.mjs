// Shared setup of the bench scripts: repo paths, a `require` rooted at the repo (so `pulumi-gamehost/*`
// resolves to dist/ through the self-link, as programs and the provider host see it), the compiled
// engine harness, and a description of the machine.
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = path.resolve(BENCH_DIR, "..");
export const require = createRequire(path.join(REPO, "package.json"));

/** The engine harness, compiled once (see harness/load.mjs). */
export { loadHarness } from "../../harness/load.mjs";

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
