/**
 * A stand-in `pulumi` on PATH for the tests of `gamehost` commands that need only what the CLI answers
 * (`version`, `stack ls`): a shell script in a temp project folder, put first on PATH for the file's tests.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";

export interface StandInCli {
  /** The project folder (its Pulumi.yaml names `project`). */
  readonly root: string;
  /** Where each run's arguments are logged, one run a line, when `logRuns` was set. */
  readonly runsFile: string;
}

/**
 * Registers the file's hooks for a stand-in CLI that answers with `arms`, `case` arms of a shell script over
 * `match` (`"$*"`, all arguments, or `"$1"`, the command), in a project named `project`.
 */
export function useStandInCli(options: {
  prefix: string;
  project: string;
  match: '"$*"' | '"$1"';
  arms: readonly string[];
  logRuns?: boolean;
}): StandInCli {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), options.prefix));
  const runsFile = path.join(root, "runs");
  const savedPath = process.env.PATH;
  beforeAll(() => {
    const bin = path.join(root, "bin");
    fs.mkdirSync(bin);
    const script = [
      "#!/bin/sh",
      ...(options.logRuns ? [`echo "$*" >> ${JSON.stringify(runsFile)}`] : []),
      `case ${options.match} in`,
      ...options.arms.map((arm) => `  ${arm}`),
      "esac",
    ];
    fs.writeFileSync(path.join(bin, "pulumi"), script.join("\n"), { mode: 0o755 });
    fs.writeFileSync(path.join(root, "Pulumi.yaml"), `name: ${options.project}\nruntime: nodejs\n`);
    process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, runsFile };
}
