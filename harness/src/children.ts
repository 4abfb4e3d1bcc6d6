/**
 * Every child process the harness starts, so none outlives the test worker: a test that times out abandons
 * its run, and the language host or provider host would otherwise keep running.
 */
import type { ChildProcess } from "node:child_process";

const live = new Set<ChildProcess>();
let hooked = false;

/** Tracks `child` until it exits; on worker exit, still-running children are killed. */
export function track<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once("exit", () => live.delete(child));
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const c of live) c.kill("SIGKILL");
    });
  }
  return child;
}
