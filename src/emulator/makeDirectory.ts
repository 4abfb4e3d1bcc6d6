import { existsSync, mkdirSync } from "node:fs";
import * as path from "node:path";

/**
 * `mkdir -p`, one level at a time. Node's recursive mode loops forever, on the event loop, where `mkdir` answers
 * ENOENT under a parent that exists (any path under `/proc`): an export dir there hung the emulator, which then
 * ignored SIGTERM. Here such a level fails with its error. `mode` (less the umask) is that of each level made.
 */
export function makeDirectory(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !existsSync(at); at = path.dirname(at)) {
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, mode === undefined ? undefined : { mode });
    } catch (error) {
      // Made meanwhile (another export of the same instant): what was wanted.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
