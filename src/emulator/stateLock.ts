import { lstatSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";

// One writer per state file: two emulators appending to one journal, or one deleting the journals
// the other still writes, lose acknowledged changes. The lock is `FILE.lock`, naming its holder by
// process id and the process's start time.
//
// Why not an mtime-refreshed lock (proper-lockfile): its stale rule is a timeout, so an emulator
// restarted right after a SIGKILL would wait for it or fail, and a live emulator stalled longer than
// the timeout (a full disk, a debugger) would lose its lock. A process id with its start time says
// at once, and for certain, whether the holder still runs.
//
// The lock is a symbolic link whose target is that text: created in one atomic step that fails if it
// exists, and small enough to live in the inode, so it can be taken on a full disk (a restart after
// ENOSPC must work). Where symbolic links need a privilege (Windows), it is a file created exclusively.

/** Who holds a lock: a process, and when it started (`undefined` where the system does not say). */
interface Holder {
  pid: number;
  started: string | undefined;
}

/**
 * When process `pid` started, in clock ticks since boot (`/proc/<pid>/stat`, field 22): with the pid,
 * it names one process even after the pid is reused. `undefined` without /proc or for a process gone.
 */
function startTimeOf(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/** Fields 3 and later of `/proc/<pid>/stat` (after the command name, which may hold spaces). */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

const ownStart = startTimeOf(process.pid);
const ownText = `${process.pid}@${ownStart ?? ""}`;

function parseHolder(text: string): Holder | undefined {
  const match = /^(\d+)@(\d*)$/.exec(text.trim());
  if (!match) return undefined;
  return { pid: Number(match[1]), started: match[2] === "" ? undefined : match[2] };
}

/** Whether the process that took the lock still runs. */
function holderRuns(holder: Holder): boolean {
  if (holder.pid === process.pid) return holder.started === ownStart;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: a process of another user has that id, so it runs.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const fields = procStat(holder.pid);
  // A zombie (killed, not yet reaped by its parent) runs no more.
  if (fields?.[0] === "Z" || fields?.[0] === "X") return false;
  const started = fields?.[19];
  // Started at another time: the id was reused after the holder exited.
  return holder.started === undefined || started === undefined || started === holder.started;
}

/** The lock's text, or `undefined` when there is none (it went meanwhile). */
function readLock(lockFile: string): string | undefined {
  try {
    return lstatSync(lockFile).isSymbolicLink() ? readlinkSync(lockFile) : readFileSync(lockFile, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function create(lockFile: string): void {
  try {
    symlinkSync(ownText, lockFile);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
    writeFileSync(lockFile, ownText, { flag: "wx" });
  }
}

/** Locks released when the process exits (a SIGKILL leaves its lock, which the next start finds stale). */
const held = new Set<string>();
let exitHookInstalled = false;

/** The lock of one state file, held from {@link StateLock.acquire} until {@link release}. */
export class StateLock {
  private constructor(readonly lockFile: string) {}

  /**
   * Takes the lock of `stateFile`, removing a stale one (its holder no longer runs, `warn` says so).
   * Throws naming the state file and the process holding it, or why the lock cannot be created.
   */
  static acquire(stateFile: string, warn: (message: string) => void): StateLock {
    const lockFile = `${stateFile}.lock`;
    for (let attempt = 0; ; attempt++) {
      try {
        create(lockFile);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== "EEXIST" || attempt >= 2) {
          throw new Error(
            `Cannot lock emulator state file ${stateFile} (${code ?? String(err)}, creating ${lockFile}): make its directory writable, or pass another state file path (--state).`,
          );
        }
      }
      const text = readLock(lockFile);
      if (text === undefined) continue;
      const holder = parseHolder(text);
      if (holder === undefined) {
        throw new Error(
          `Cannot use emulator state file ${stateFile}: its lock ${lockFile} holds ${JSON.stringify(text.slice(0, 80))}, not an emulator's process id. If no emulator uses the file, delete the lock; else pass another state file path (--state).`,
        );
      }
      if (holderRuns(holder)) {
        throw new Error(
          `Cannot use emulator state file ${stateFile}: another emulator (process ${holder.pid}${holder.pid === process.pid ? ", this one" : ""}) is using it (lock ${lockFile}). Stop that emulator, or pass another state file path (--state).`,
        );
      }
      warn(`removed the stale lock ${lockFile} of emulator process ${holder.pid}, which no longer runs.`);
      rmSync(lockFile, { force: true });
    }
    held.add(lockFile);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on("exit", () => {
        for (const file of held) releaseFile(file);
      });
    }
    return new StateLock(lockFile);
  }

  /** Removes the lock if it is still this process's own. */
  release(): void {
    if (!held.delete(this.lockFile)) return;
    releaseFile(this.lockFile);
  }
}

function releaseFile(lockFile: string): void {
  try {
    if (readLock(lockFile) === ownText) rmSync(lockFile, { force: true });
  } catch {
    // Gone already, or unreadable: nothing of ours to remove.
  }
}
