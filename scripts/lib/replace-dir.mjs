// Replaces a build output folder (dist/, harness/dist/) with a fresh one in one step. Tests, `pulumi up` and
// provider hosts load the folder while a rebuild runs in the same tree: deleting it first, then compiling into
// it, left them a folder missing or half-written for the length of a compile ("exited prematurely", "Cannot
// find module"). The new tree is written into a sibling folder, empty at the start (so a removed source leaves
// no output behind), then swapped in.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";

const STAGING_MARK = "-next-";

// A sibling at the same depth as the target, so that the source maps' relative paths (`../src/…`) written
// there stay right after the swap.
const stagingOf = (target, pid) =>
  path.join(path.dirname(target), `.${path.basename(target)}${STAGING_MARK}${pid}`);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** Removes the staging folders of builds that were killed before they could clean up (Ctrl-C during tsc). */
function removeAbandonedStaging(target) {
  const prefix = `.${path.basename(target)}${STAGING_MARK}`;
  const parent = path.dirname(target);
  for (const name of existsSync(parent) ? readdirSync(parent) : []) {
    const pid = Number(name.slice(prefix.length));
    if (name.startsWith(prefix) && Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      rmSync(path.join(parent, name), { recursive: true, force: true });
    }
  }
}

// Node has no call that swaps two paths. Linux has renameat2(RENAME_EXCHANGE), macOS renamex_np(RENAME_SWAP);
// Python's ctypes reaches either without a native module of our own.
const EXCHANGE = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (p.encode() for p in sys.argv[1:3])
if hasattr(libc, "renameat2"):
    done = libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
elif hasattr(libc, "renamex_np"):
    done = libc.renamex_np(a, b, 2)  # RENAME_SWAP
else:
    sys.exit(3)
sys.exit(0 if done == 0 else 4)
`;

/** Swaps folders `a` and `b` in one step, where the system can; else {@link swapByRenames}. */
export function exchange(a, b) {
  const swapped = spawnSync("python3", ["-c", EXCHANGE, a, b], { stdio: "ignore" });
  if (swapped.status !== 0) swapByRenames(a, b);
}

/**
 * Swaps folders `a` and `b` by three renames: where there is no Python or no such call (another system, a file
 * system without it), with a moment of a few microseconds between two of them in which `b` is missing.
 */
export function swapByRenames(a, b) {
  const old = `${a}.old`;
  renameSync(b, old);
  renameSync(a, b);
  renameSync(old, a);
}

/**
 * Calls `fill(staging)` to write the new contents of `target` into an empty sibling folder, then puts that
 * folder in `target`'s place in one step: a reader sees the old complete tree or the new one, never a missing
 * or partial one. When `fill` throws (a compile error), `target` is left as it was.
 */
export function replaceDir(target, fill) {
  removeAbandonedStaging(target);
  const staging = stagingOf(target, process.pid);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    fill(staging);
    if (!existsSync(target)) {
      try {
        renameSync(staging, target);
        return;
      } catch (error) {
        // Another build put its tree there in the meantime: swap with it as below.
        if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
      }
    }
    exchange(staging, target);
  } finally {
    // After a swap, the old tree; after a failure, the partial new one.
    rmSync(staging, { recursive: true, force: true });
  }
}
