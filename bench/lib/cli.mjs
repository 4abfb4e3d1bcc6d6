// The real Pulumi CLI for the bench scripts that drive it (real-cli, fleet): which binary, and a project
// that runs one of bench/programs unchanged with its own file backend and PULUMI_HOME.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BENCH_DIR, REPO } from "./env.mjs";

/** The `pulumi` on PATH, else the pinned build (`npm run pulumi:build`); `bin` is its folder when pinned. */
export function cliCommand() {
  const probe = (command) =>
    spawnSync(command, ["version"], {
      encoding: "utf8",
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
  if (probe("pulumi").status === 0) return { command: "pulumi", bin: undefined };
  const pinned = path.join(REPO, ".pulumi-cli", "bin", "pulumi");
  if (existsSync(pinned) && probe(pinned).status === 0) return { command: pinned, bin: path.dirname(pinned) };
  throw new Error("no pulumi CLI: install one, or run npm run pulumi:build");
}

/** The version `cli` prints. */
export function cliVersion(cli) {
  return spawnSync(cli.command, ["version"], { encoding: "utf8" }).stdout.trim();
}

/**
 * A CLI project in the new folder `dir` running `bench/programs/<program>` unchanged, with its own file
 * backend and PULUMI_HOME; `run(args)` resolves to the CLI's output and rejects on a non-zero exit; `env` is
 * the environment of its runs (for another command on the same stack, such as `gamehost`).
 */
export function cliProject(cli, dir, program) {
  mkdirSync(path.join(dir, "backend"), { recursive: true });
  mkdirSync(path.join(dir, "home"), { recursive: true });
  writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    [
      `name: gamehost-bench-${program}`,
      "runtime: nodejs",
      `main: ${path.join(BENCH_DIR, "programs", program)}/`,
      "plugins:",
      "  providers:",
      "    - name: gamehost",
      `      path: ${path.join(REPO, "plugin")}`,
      "",
    ].join("\n"),
  );
  symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  const env = {
    ...process.env,
    PATH: [cli.bin, process.env.PATH].filter(Boolean).join(path.delimiter),
    PULUMI_HOME: path.join(dir, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  const run = (args) =>
    new Promise((resolve, reject) => {
      const child = spawn(cli.command, ["--non-interactive", ...args], {
        cwd: dir,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (c) => {
        out += c;
      });
      child.stderr.on("data", (c) => {
        out += c;
      });
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0
          ? resolve(out)
          : reject(new Error(`pulumi ${args.join(" ")} → ${code}:\n${out.slice(-2000)}`)),
      );
    });
  return { run, env, dir };
}

/** `stack init bench`, then each of `config` set (plain), then `gamehost:token` set as a secret. */
export async function initStack(project, config, token) {
  await project.run(["stack", "init", "bench"]);
  for (const [key, value] of Object.entries(config)) await project.run(["config", "set", "--", key, value]);
  await project.run(["config", "set", "--secret", "gamehost:token", token]);
}
