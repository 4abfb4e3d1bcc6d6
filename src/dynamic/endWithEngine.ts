/**
 * The SDK's dynamic provider host outlives a `pulumi` killed outright (SIGKILL, a CI job's timeout, an OOM
 * kill): its wrapper script (`pulumi-resource-pulumi-nodejs`) runs the host as a child of `sh`, which is
 * orphaned rather than ended, so the host serves nobody, forever (about 150 MB each, measured on the pinned
 * CLI). Once the host has loaded a kind of this package, it ends when the engine is gone, as the plugin does.
 */
import * as fs from "node:fs";
import { whenParentEnds } from "../whenParentEnds";

/** The shells the SDK's wrapper script runs in. */
const WRAPPER_SHELLS = new Set(["sh", "bash", "dash"]);

/** A file of a process in Linux's /proc, or undefined where there is none (not Linux, or gone). */
function procFile(pid: number, file: "stat" | "cmdline"): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

/** The parent of `pid`: the field after the state, past the command name (which may hold spaces). */
function parentOf(pid: number): number | undefined {
  const stat = procFile(pid, "stat");
  if (stat === undefined) return undefined;
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** Whether this process is the SDK's dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`). */
function isDynamicProviderHost(main: string | undefined): boolean {
  return main !== undefined && /[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/.test(main);
}

let watching = false;

/**
 * In the dynamic provider host only (elsewhere nothing), and once: ends the process when the engine that
 * started it is gone. The engine is the parent, or the wrapper shell's parent: that one changes when the
 * engine is killed (the shell lives on, orphaned). Where /proc cannot be read, the parent alone is watched.
 */
export function endHostWithEngine(): void {
  if (watching || !isDynamicProviderHost(process.argv[1])) return;
  watching = true;
  // The wrapper's own name is the script's (`comm`): the shell is the first word of its command line.
  const shell = procFile(process.ppid, "cmdline")?.split("\0")[0]?.split("/").pop() ?? "";
  const wrapped = WRAPPER_SHELLS.has(shell);
  // Nobody is left to answer: the engine's calls in flight end with the process.
  const exit = () => process.exit(0);
  if (wrapped && parentOf(process.ppid) !== undefined) {
    whenParentEnds(exit, () => parentOf(process.ppid) ?? 0);
  } else {
    whenParentEnds(exit);
  }
}
