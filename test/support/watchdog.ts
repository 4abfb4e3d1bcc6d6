/**
 * A memory watchdog for a process tree (Linux `/proc`): samples the RSS of every process under a root pid,
 * kills the whole tree as soon as one process passes a limit, and records each process's peak and
 * lifetime, so a regression that makes a program grow without bound fails a test instead of the machine.
 */
import * as fs from "node:fs";
import { commandOf, processTree } from "./processTree";

/** One process seen under the root: its command line, peak RSS and when it was first and last seen. */
export interface WatchedProcess {
  pid: number;
  command: string;
  peakRssBytes: number;
  /** CPU time (user and system) at the last sample. */
  cpuMs: number;
  firstSeenMs: number;
  lastSeenMs: number;
}

export interface WatchReport {
  /** Every process seen, by pid. */
  processes: WatchedProcess[];
  /** The process that passed the limit, when the tree was killed. */
  killed?: WatchedProcess;
}

const SAMPLE_INTERVAL_MS = 100;

function rssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

function cpuMsOf(pid: number): number | undefined {
  try {
    // The command (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15, the 12th and 13th after the command.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Watches the tree under `rootPid` until {@link stop} is called; kills every process in it (SIGKILL) when
 * one passes `limitBytes`.
 */
export function watchMemory(rootPid: number, limitBytes: number): { stop: () => WatchReport } {
  const seen = new Map<number, WatchedProcess>();
  let killed: WatchedProcess | undefined;
  const sample = () => {
    const now = Date.now();
    const pids = processTree(rootPid);
    for (const pid of pids) {
      const rss = rssBytes(pid);
      if (rss === undefined) continue;
      let entry = seen.get(pid);
      if (!entry) {
        entry = {
          pid,
          command: commandOf(pid),
          peakRssBytes: 0,
          cpuMs: 0,
          firstSeenMs: now,
          lastSeenMs: now,
        };
        seen.set(pid, entry);
      }
      entry.lastSeenMs = now;
      // Read again each time: a child first seen between fork and exec still shows its parent's command.
      entry.command = commandOf(pid) || entry.command;
      entry.cpuMs = cpuMsOf(pid) ?? entry.cpuMs;
      entry.peakRssBytes = Math.max(entry.peakRssBytes, rss);
      if (rss > limitBytes && !killed) {
        killed = entry;
        for (const victim of pids) {
          try {
            process.kill(victim, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      }
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_INTERVAL_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return { processes: [...seen.values()], ...(killed ? { killed } : {}) };
    },
  };
}
