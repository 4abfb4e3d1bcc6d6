/**
 * A command line of a doc block, run as a user's shell runs it: bash in the project's folder, with the
 * environment of every CLI run (its PULUMI_HOME and backend), so `pulumi` in the line is the CLI under test.
 */
import { spawn } from "node:child_process";
import { type CliProject, cliEnv } from "../support/realPulumi";

/** Runs `command` in `project`'s folder; resolves with stdout and stderr, fails with them on a non-zero exit. */
export function shell(project: CliProject, command: string, timeoutMs = 600_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", command], {
      cwd: project.dir,
      env: cliEnv(project.home, {
        PULUMI_BACKEND_URL: `file://${project.backend}`,
        // `npm install <this clone>` (a doc's install line pointed at the clone) would run the clone's `prepare`,
        // rebuilding the dist/ that other test files load at this moment; the suite built it already.
        npm_config_ignore_scripts: "true",
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const collect = (c: Buffer) => {
      out += c.toString();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`\`${command}\` exited with ${code}:\n${out}`));
    });
  });
}
