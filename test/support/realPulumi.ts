/**
 * The real `pulumi` CLI for the suite: the one on PATH, else the pinned build of `npm run pulumi:build`
 * (`.pulumi-cli/bin`, with its language hosts beside it). Each project runs against its own file backend
 * and PULUMI_HOME, offline (no update check, no plugin downloads). In CI (`CI=true`) a missing CLI fails
 * the run instead of skipping the real-CLI scenarios.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { REPO_ROOT } from "./dist";
import { copyExample, linkNodeModules, pluginProviderYaml } from "./examples";

/** Where `npm run pulumi:build` puts the pinned CLI and its language hosts. */
export const PINNED_BIN = path.join(REPO_ROOT, ".pulumi-cli", "bin");

function probe(command: string): string | undefined {
  const run = spawnSync(command, ["version"], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
  });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

function locate(): { command: string; version: string; bin?: string } | undefined {
  const onPath = probe("pulumi");
  if (onPath) return { command: "pulumi", version: onPath };
  const pinned = path.join(PINNED_BIN, "pulumi");
  const version = fs.existsSync(pinned) ? probe(pinned) : undefined;
  return version ? { command: pinned, version, bin: PINNED_BIN } : undefined;
}

const found = locate();

/** The CLI the real-CLI scenarios run, or `undefined` (they are skipped, and fail the run in CI). */
export const realCli = found;

/** A describe title naming the CLI, or why its scenarios are skipped. */
export function realCliTitle(what: string): string {
  return found ? `${what} (real pulumi ${found.version})` : `${what} (skipped: no pulumi CLI)`;
}

if (!found) {
  const why =
    "no `pulumi` on PATH and no pinned build in .pulumi-cli/bin: run `npm run pulumi:build` (needs Go)";
  // In CI every real-CLI scenario must run: a missing CLI is a failure, not a skip.
  if (process.env.CI === "true") throw new Error(`real-CLI scenarios cannot run: ${why}`);
  console.info(`real-CLI scenarios skipped: ${why}`);
}

/** The PATH of CLI runs: `dirs` first, then the pinned build's folder (when that is the CLI), then this process's. */
export function cliPath(...dirs: string[]): string {
  return [...dirs, found?.bin, process.env.PATH].filter(Boolean).join(path.delimiter);
}

/** The environment of every CLI run: offline, its own PULUMI_HOME, no ambient gamehost settings. */
export function cliEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: cliPath(),
    PULUMI_HOME: home,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_CONFIG_PASSPHRASE: CLI_PASSPHRASE,
    PULUMI_SKIP_CONFIRMATIONS: "true",
    // `--event-log` (stepsOf) is a debug flag: the CLI defines it only under PULUMI_DEBUG_COMMANDS.
    PULUMI_DEBUG_COMMANDS: "true",
    GAMEHOST_TOKEN: undefined,
    GAMEHOST_BASE_URL: undefined,
    NODE_OPTIONS: undefined,
    CI: undefined,
    ...extra,
  };
}

export const CLI_PASSPHRASE = "gamehost-real-cli-passphrase";
/** Longest single CLI command. */
export const CLI_TIMEOUT_MS = 180_000;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Files under `dir`, recursively, not following symbolic links (a virtualenv links `lib64` to `lib`). */
export function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return walk(full);
    return e.isFile() ? [full] : [];
  });
}

/** A Pulumi project in a temp folder with its own file backend and PULUMI_HOME. */
/** What `child` has written so far to stdout and stderr, as text (read the fields after it closes). */
export function captureOutput(child: ChildProcess): { readonly stdout: string; readonly stderr: string } {
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (c: Buffer) => {
    output.stdout += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    output.stderr += c.toString();
  });
  return output;
}

export class CliProject {
  readonly backend: string;
  readonly home: string;
  private readonly outputs: string[] = [];

  /**
   * @param dir the project folder (its Pulumi.yaml is already there, or written by the caller)
   * @param root a temp folder for the backend and PULUMI_HOME
   */
  constructor(
    readonly dir: string,
    root: string,
    private readonly extraEnv: NodeJS.ProcessEnv = {},
  ) {
    const name = path.basename(dir);
    this.backend = path.join(root, `${name}-backend`);
    this.home = path.join(root, `${name}-home`);
    fs.mkdirSync(this.backend, { recursive: true });
    fs.mkdirSync(this.home, { recursive: true });
  }

  /** Starts `pulumi <args>` (async: the emulator answers from this process's event loop). */
  start(
    args: readonly string[],
    env: NodeJS.ProcessEnv = {},
  ): { child: ChildProcess; done: Promise<CliResult> } {
    if (!found) throw new Error("no pulumi CLI");
    const child = spawn(found.command, ["--non-interactive", ...args], {
      cwd: this.dir,
      env: cliEnv(this.home, {
        PULUMI_BACKEND_URL: `file://${this.backend}`,
        ...this.extraEnv,
        ...env,
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = captureOutput(child);
    const done = new Promise<CliResult>((resolve, reject) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), CLI_TIMEOUT_MS - 5_000);
      child.on("error", reject);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        const { stdout, stderr } = output;
        this.outputs.push(stdout, stderr);
        resolve({ code, signal, stdout, stderr });
      });
    });
    return { child, done };
  }

  run(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
    return this.start(args, env).done;
  }

  /** Like {@link run}, failing the test with the CLI's output on a non-zero exit. */
  async ok(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
    const result = await this.run(args, env);
    expect(result.code, `pulumi ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`).toBe(0);
    return result.stdout;
  }

  /** Like {@link run}, expecting a failure; the CLI's whole output. */
  async fails(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
    const result = await this.run(args, env);
    expect(result.code, `pulumi ${args.join(" ")} should fail:\n${result.stdout}\n${result.stderr}`).not.toBe(
      0,
    );
    return `${result.stdout}\n${result.stderr}`;
  }

  /**
   * `pulumi stack init` and one `pulumi config set-all` of every entry (one CLI run, not one per key); an
   * object value is set key by key with `--path`, as a person would type it.
   */
  async configure(config: Record<string, CliConfigEntry>, stack = "dev"): Promise<void> {
    await this.ok(["stack", "init", stack]);
    await this.setConfig(config);
  }

  /** `pulumi config set-all` of every entry (see {@link configure}). */
  async setConfig(config: Record<string, CliConfigEntry>): Promise<void> {
    const entries = Object.entries(config);
    // --path only where an object is set key by key: a plain key is set as written (JSON text included).
    const byPath = entries.some(([, { value }]) => typeof value !== "string");
    const args = ["config", "set-all", ...(byPath ? ["--path"] : [])];
    for (const [key, { value, secret }] of entries) {
      const flag = secret ? "--secret" : "--plaintext";
      if (typeof value === "string") args.push(flag, `${key}=${value}`);
      else for (const [k, v] of Object.entries(value)) args.push(flag, `${key}.${k}=${v}`);
    }
    await this.ok(args);
  }

  async outputsJson(): Promise<Record<string, unknown>> {
    return JSON.parse(await this.ok(["stack", "output", "--json", "--show-secrets"])) as Record<
      string,
      unknown
    >;
  }

  /** `pulumi stack export`: the deployment's resources. */
  async exported(): Promise<ExportedResource[]> {
    const out = JSON.parse(await this.ok(["stack", "export"])) as {
      deployment: { resources?: ExportedResource[] };
    };
    return out.deployment.resources ?? [];
  }

  /** Ids of the stack's custom resources of `types` (program resources, not providers), by name. */
  async stateIds(types: readonly string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const r of await this.exported()) {
      if (r.custom && types.includes(r.type)) out[r.urn.split("::").pop() ?? ""] = r.id ?? "";
    }
    return out;
  }

  /** `[op, name]` of each step of `pulumi <args> --event-log` for resources of `types`, as they start. */
  async stepsOf(args: readonly string[], types: readonly string[]): Promise<Array<[string, string]>> {
    const log = path.join(this.backend, `events-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
    await this.ok([...args, "--event-log", log]);
    const steps: Array<[string, string]> = [];
    for (const line of fs.readFileSync(log, "utf8").split("\n").filter(Boolean)) {
      const event = JSON.parse(line) as {
        resourcePreEvent?: { metadata?: { op: string; urn: string; type: string } };
      };
      const meta = event.resourcePreEvent?.metadata;
      if (meta && types.includes(meta.type)) steps.push([meta.op, meta.urn.split("::").pop() ?? ""]);
    }
    return steps;
  }

  /** Nothing the CLI printed, nor any backend or project file, holds `secret`. */
  expectNoLeak(secret: string): void {
    expect(secret.length).toBeGreaterThan(0);
    expect(
      this.outputs.some((o) => o.includes(secret)),
      "the secret appears in the CLI's output",
    ).toBe(false);
    for (const file of [
      // Installed libraries (npm's, and pip's in a project virtualenv) are not the project's files.
      ...walk(this.dir).filter((f) => !/[/\\](node_modules|site-packages)[/\\]/.test(f)),
      ...walk(this.backend),
    ]) {
      expect(fs.readFileSync(file).includes(secret), file).toBe(false);
    }
  }
}

/** A config value for the CLI: a string, or an object of strings (set with `--path`). */
export interface CliConfigEntry {
  value: string | Record<string, string>;
  secret?: boolean;
}

/**
 * A temp project `root/<folder>` whose Pulumi.yaml (project `name`, the program's config namespace) runs
 * `programDir` unchanged as its `main`, optionally with the plugin; its node_modules links to the repo's,
 * where `pulumi-gamehost` is the repo itself (the dynamic provider host, started in the project folder,
 * resolves it there).
 */
export function programProject(
  root: string,
  folder: string,
  programDir: string,
  options: { name: string; plugin?: boolean },
): CliProject {
  const dir = path.join(root, folder);
  fs.mkdirSync(dir, { recursive: true });
  const main = `main: ${path.relative(dir, programDir)}/\n`;
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${options.name}\nruntime: nodejs\n${main}${options.plugin ? pluginProviderYaml() : ""}`,
  );
  linkNodeModules(dir);
  return new CliProject(dir, root);
}

/**
 * A temp project `root/<folder>` holding a copy of the example `exampleDir` (see {@link copyExample}),
 * with `rewrite` applied to its index.ts, optionally with the plugin.
 */
export function copiedProject(
  root: string,
  folder: string,
  exampleDir: string,
  options: { plugin?: boolean; rewrite?: (program: string) => string } = {},
): CliProject {
  return new CliProject(copyExample(root, folder, exampleDir, options), root);
}

/** One resource of `pulumi stack export`. */
export interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  /** Set on a resource the next update deletes (a replaced one whose delete failed). */
  delete?: boolean;
}

/** A temp root for a file's projects. */
export function tempRoot(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `gamehost-cli-${label}-`));
}
