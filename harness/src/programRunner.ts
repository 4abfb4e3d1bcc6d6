/**
 * Runs an unchanged program directory through the SDK's language host entry (`cmd/run`), the way
 * `pulumi-language-nodejs` does (`sdk/nodejs/cmd/pulumi-language-nodejs/main.go: nodeLanguageHost.Run` + `constructArguments`):
 * `node <cmd/run> --monitor … --engine … --project … --stack … --pwd <dir> [--dry-run] .` with
 * `PULUMI_CONFIG`/`PULUMI_CONFIG_SECRET_KEYS` in the environment.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { track } from "./children";
import { programSdkDir, sdkEntries } from "./proto";
import type { Diagnostic } from "./types";

/** Options for {@link runProgram}. */
export interface ProgramRunOptions {
  programDir: string;
  organization: string;
  project: string;
  stack: string;
  preview: boolean;
  /** Address serving ResourceMonitor and Engine. */
  address: string;
  /** `PULUMI_CONFIG`: namespaced keys → string values. */
  config: Record<string, string>;
  /** `PULUMI_CONFIG_SECRET_KEYS`. */
  secretKeys: string[];
  /** Run `.ts` through the SDK's ts-node registration (`PULUMI_NODEJS_TYPESCRIPT`). */
  typescript: boolean;
  /** Type-check TypeScript as `pulumi up` does by default; false: transpile only (`PULUMI_NODEJS_TRANSPILE_ONLY`). */
  typeCheck: boolean;
  /** The `node` binary to run the language host with. */
  nodePath: string;
  env?: Record<string, string | undefined>;
  timeoutMs: number;
  diagnostics: Diagnostic[];
}

/** How the language host ended. */
export interface ProgramExit {
  exitCode: number | null;
  timedOut: boolean;
}

/** The `typescript` runtime option as the CLI would resolve it for this program. */
export function programUsesTypeScript(programDir: string): boolean {
  const manifest = path.join(programDir, "package.json");
  if (!fs.existsSync(manifest)) return false;
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  return "typescript" in (pkg.dependencies ?? {}) || "typescript" in (pkg.devDependencies ?? {});
}

/** Spawns the language host and waits for it to exit (killing it after `timeoutMs`). */
export async function runProgram(opts: ProgramRunOptions): Promise<ProgramExit> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && k !== "NODE_OPTIONS"),
  );
  const env: Record<string, string | undefined> = {
    ...inherited,
    ...opts.env,
    PULUMI_CONFIG: JSON.stringify(opts.config),
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(opts.secretKeys),
    // The CLI sets PULUMI_NODEJS_TYPESCRIPT from the `typescript` runtime option; run.js type-checks unless
    // PULUMI_NODEJS_TRANSPILE_ONLY is set, as `pulumi up` does by default.
    ...(opts.typescript ? { PULUMI_NODEJS_TYPESCRIPT: "true" } : {}),
    ...(opts.typescript && !opts.typeCheck ? { PULUMI_NODEJS_TRANSPILE_ONLY: "true" } : {}),
  };
  const args = [
    // pulumi-language-nodejs runs the program with the SDK installed beside it (`locateModule`).
    sdkEntries(programSdkDir(opts.programDir)).run,
    `--monitor=${opts.address}`,
    `--engine=${opts.address}`,
    `--organization=${opts.organization}`,
    `--project=${opts.project}`,
    `--stack=${opts.stack}`,
    `--pwd=${opts.programDir}`,
    `--root-directory=${opts.programDir}`,
    ...(opts.preview ? ["--dry-run"] : []),
    ".",
  ];
  const child = track(
    spawn(opts.nodePath, args, {
      cwd: opts.programDir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  const collect = (
    stream: NodeJS.ReadableStream,
    source: Diagnostic["source"],
    severity: Diagnostic["severity"],
  ) =>
    new Promise<void>((resolve) => {
      const lines = readline.createInterface({ input: stream });
      lines.on("line", (message) => opts.diagnostics.push({ severity, message, source }));
      lines.on("close", resolve);
    });
  const outputs = Promise.all([
    collect(child.stdout, "program-stdout", "info"),
    collect(child.stderr, "program-stderr", "warning"),
  ]);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, opts.timeoutMs);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  }).finally(() => clearTimeout(timer));
  await outputs;
  if (timedOut) {
    opts.diagnostics.push({
      severity: "error",
      message: `the program did not finish within ${opts.timeoutMs} ms and was killed`,
      source: "engine",
    });
  }
  return { exitCode, timedOut };
}
