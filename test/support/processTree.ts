/** The processes under a pid (Linux `/proc`), for the watchdog and for tests that act on a CLI's plugins. */
import * as fs from "node:fs";

function children(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return fs
        .readFileSync(`/proc/${pid}/task/${task}/children`, "utf8")
        .split(" ")
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  });
}

/** `root` and every process under it. */
export function processTree(root: number): number[] {
  const out: number[] = [];
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop() as number;
    out.push(pid);
    todo.push(...children(pid));
  }
  return out;
}

/** A process's command line, words joined by spaces ("" once it is gone). */
export function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}
