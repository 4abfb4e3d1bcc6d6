/**
 * `Stack`: preview/up/refresh/destroy an unchanged program directory the way the Pulumi CLI would, with a JSON
 * checkpoint between runs. One language host per preview/up, one dynamic provider host per run (started on
 * first use, with cwd = the program directory, as the engine starts plugins).
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  type CheckpointFile,
  type ResourceState,
  ROOT_STACK_TYPE,
  readCheckpoint,
  writeCheckpoint,
} from "./checkpoint";
import { Crypter, TEST_PASSPHRASE } from "./crypter";
import { Engine, StepError } from "./engine";
import { MonitorServer } from "./monitor";
import { programUsesTypeScript, runProgram } from "./programRunner";
import { containsSecrets, reveal } from "./properties";
import type { JsonValue, PropertyMap } from "./proto";
import { type PluginLocation, RunProviders, type StartedProvider, wireConfig } from "./providers";
import type { Diagnostic, OutputValue, RunResult, Step } from "./types";

/** A config value; `secret` values reach the program as secrets and are encrypted at rest. */
export interface ConfigEntry {
  value: JsonValue;
  secret?: boolean;
}

/** Options of a {@link Stack}. */
export interface StackOptions {
  /** Directory of the program (its package.json `main`, or index.js/index.ts, is run). */
  programDir: string;
  /** Stack name (default "dev"). */
  stackName?: string;
  /** Organization the program sees (`pulumi.getOrganization()`; default "organization", as the local backend). */
  organization?: string;
  /** Project name (default: `name:` in Pulumi.yaml, else package.json name, else the directory name). */
  project?: string;
  /** Stack config by key (`namespace:key`; a bare key gets the project namespace). A string is a plain value. */
  config?: Record<string, ConfigEntry | string>;
  /** Where the checkpoint lives between runs (default: a new file under the OS temp dir). */
  checkpointFile?: string;
  /** Extra environment for the language host and the provider host. */
  env?: Record<string, string | undefined>;
  /** Passphrase of the checkpoint's secrets (default {@link TEST_PASSPHRASE}). */
  passphrase?: string;
  /**
   * Kill a program that runs longer than this: a hang guard, no speed target (default 100 s, under the suite's
   * 120-s test timeout; 25 s killed programs on a loaded 2-core machine).
   */
  timeoutMs?: number;
  /** Run the program through ts-node (default: its package.json lists `typescript`). */
  typescript?: boolean;
  /** Type-check TypeScript programs, as `pulumi up` does by default (default true); false: transpile only. */
  typeCheck?: boolean;
  /** The `node` binary for the language host and Node.js providers (default: this process's). */
  nodePath?: string;
  /** Provider plugins by package, over the program's Pulumi.yaml `plugins.providers`. */
  plugins?: Record<string, PluginLocation>;
  /** Called when a run starts a provider process (a test can kill it mid-operation). */
  onProviderStarted?: (provider: StartedProvider) => void;
  /** Keep the SDK's debug-level log messages in `diagnostics`. */
  keepDebugLogs?: boolean;
  /**
   * `--parallel`: at most this many Create/Update/Delete calls in flight; deletions of independent resources
   * then run concurrently too. Default: unbounded creates/updates, one deletion at a time.
   */
  parallel?: number;
}

function projectNameOf(programDir: string): string {
  const yaml = path.join(programDir, "Pulumi.yaml");
  if (fs.existsSync(yaml)) {
    const match = /^name:\s*["']?([^"'\s#]+)/m.exec(fs.readFileSync(yaml, "utf8"));
    if (match?.[1]) return match[1];
  }
  const manifest = path.join(programDir, "package.json");
  if (fs.existsSync(manifest)) {
    const name = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: unknown }).name;
    if (typeof name === "string" && name) return name.replace(/^@[^/]+\//, "");
  }
  return path.basename(programDir);
}

/** Custom, non-provider steps: the resources a program declares (drops the Stack and provider resources). */
export function customSteps(steps: readonly Step[]): Step[] {
  return steps.filter((s) => s.custom && !s.type.startsWith("pulumi:providers:"));
}

/** Flags of `pulumi preview` and `pulumi up`. */
export interface DeployOptions {
  /** `--replace <urn>` (repeatable): resources replaced whatever their diff says. */
  replace?: readonly string[];
}

/** A stack of one program, driven like `pulumi preview/up/refresh/destroy`. */
export class Stack {
  /** The checkpoint file used between runs. */
  readonly checkpointFile: string;
  /** The project name used in URNs and passed to the program. */
  readonly project: string;
  /** The stack name. */
  readonly stackName: string;
  private readonly config = new Map<string, ConfigEntry>();
  private busy = false;

  constructor(private readonly opts: StackOptions) {
    if (!fs.existsSync(opts.programDir))
      throw new Error(`program directory ${opts.programDir} does not exist`);
    if (opts.parallel !== undefined && !(Number.isInteger(opts.parallel) && opts.parallel >= 1))
      throw new Error(`parallel must be a positive integer, got ${opts.parallel}`);
    this.project = opts.project ?? projectNameOf(opts.programDir);
    this.stackName = opts.stackName ?? "dev";
    this.checkpointFile =
      opts.checkpointFile ?? path.join(os.tmpdir(), `gamehost-harness-${randomUUID()}`, "checkpoint.json");
    for (const [key, entry] of Object.entries(opts.config ?? {})) this.setConfig(key, entry);
  }

  /** Sets (or replaces) a config value for later runs. */
  setConfig(key: string, entry: ConfigEntry | string): void {
    const full = key.includes(":") ? key : `${this.project}:${key}`;
    this.config.set(full, typeof entry === "string" ? { value: entry } : entry);
  }

  /** Removes a config value for later runs. */
  removeConfig(key: string): void {
    this.config.delete(key.includes(":") ? key : `${this.project}:${key}`);
  }

  /** `pulumi preview`: runs the program with `--dry-run`; no Create/Update/Delete, checkpoint untouched. */
  preview(opts: DeployOptions = {}): Promise<RunResult> {
    return this.exclusive(() => this.deploy(true, opts));
  }

  /** `pulumi up`: runs the program, applies its steps, deletes what it no longer declares, saves state. */
  up(opts: DeployOptions = {}): Promise<RunResult> {
    return this.exclusive(() => this.deploy(false, opts));
  }

  /** `pulumi refresh`: reads every custom resource (the program is not run); vanished ones leave the state. */
  refresh(): Promise<RunResult> {
    return this.exclusive(() => this.operate("refresh"));
  }

  /** `pulumi destroy`: deletes everything in the checkpoint, dependents first. */
  destroy(): Promise<RunResult> {
    return this.exclusive(() => this.operate("destroy"));
  }

  /** The checkpoint file as stored (secrets encrypted), or `undefined` before the first `up`. */
  checkpoint(): CheckpointFile | undefined {
    if (!fs.existsSync(this.checkpointFile)) return undefined;
    return JSON.parse(fs.readFileSync(this.checkpointFile, "utf8")) as CheckpointFile;
  }

  /** The checkpoint's resources with secrets decrypted (still wire-wrapped, see `isSecret`). */
  resources(): ResourceState[] {
    return readCheckpoint(this.checkpointFile, this.passphrase)?.resources ?? [];
  }

  /** Stack outputs stored in the checkpoint. */
  outputs(): Record<string, OutputValue> {
    return toOutputs(this.resources().find((r) => r.type === ROOT_STACK_TYPE)?.outputs ?? {});
  }

  private get passphrase(): string {
    return this.opts.passphrase ?? TEST_PASSPHRASE;
  }

  private async exclusive(run: () => Promise<RunResult>): Promise<RunResult> {
    if (this.busy) throw new Error("another operation is already running on this stack");
    this.busy = true;
    try {
      return await run();
    } finally {
      this.busy = false;
    }
  }

  /** `PULUMI_CONFIG` values: strings as they are, anything else as JSON (as the CLI stores object config). */
  private plainConfig(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, { value }] of this.config)
      out[key] = typeof value === "string" ? value : JSON.stringify(value);
    return out;
  }

  private load(): { olds: ResourceState[]; crypter: Crypter } {
    const loaded = readCheckpoint(this.checkpointFile, this.passphrase);
    return loaded
      ? { olds: loaded.resources, crypter: loaded.crypter }
      : { olds: [], crypter: Crypter.create(this.passphrase) };
  }

  /**
   * The providers of one run, started on first use: like `provider_plugin.go: NewProvider` each gets
   * `PULUMI_PROJECT` and the stack config in `PULUMI_CONFIG`; the dynamic provider host is configured with every
   * config value (dynamic providers receive all of them, namespaced), a plugin with its package's config.
   */
  private providers(): RunProviders {
    const plain = this.plainConfig();
    return new RunProviders({
      programDir: this.opts.programDir,
      project: this.project,
      config: wireConfig(this.config, plain),
      plainConfig: plain,
      ...(this.opts.env ? { env: this.opts.env } : {}),
      ...(this.opts.nodePath ? { nodePath: this.opts.nodePath } : {}),
      ...(this.opts.plugins ? { plugins: this.opts.plugins } : {}),
      ...(this.opts.onProviderStarted ? { onStarted: this.opts.onProviderStarted } : {}),
    });
  }

  /** What every operation starts from: the stored state, its providers and an engine over them. */
  private begin(preview: boolean, opts: DeployOptions = {}) {
    const diagnostics: Diagnostic[] = [];
    const { olds, crypter } = this.load();
    const providers = this.providers();
    const engine = new Engine({
      project: this.project,
      stack: this.stackName,
      preview,
      olds,
      providers,
      diagnostics,
      ...(this.opts.parallel !== undefined ? { parallel: this.opts.parallel } : {}),
      ...(opts.replace ? { replaceTargets: opts.replace } : {}),
    });
    return { diagnostics, olds, crypter, providers, engine };
  }

  private async deploy(preview: boolean, opts: DeployOptions): Promise<RunResult> {
    const startedAt = Date.now();
    const { diagnostics, crypter, providers, engine } = this.begin(preview, opts);
    const monitor = await MonitorServer.start({
      engine,
      preview,
      diagnostics,
      keepDebug: this.opts.keepDebugLogs,
    });
    let exit: Awaited<ReturnType<typeof runProgram>> | undefined;
    try {
      exit = await runProgram({
        programDir: this.opts.programDir,
        organization: this.opts.organization ?? "organization",
        project: this.project,
        stack: this.stackName,
        preview,
        address: monitor.address,
        config: this.plainConfig(),
        secretKeys: [...this.config].filter(([, e]) => e.secret).map(([k]) => k),
        typescript: this.opts.typescript ?? programUsesTypeScript(this.opts.programDir),
        typeCheck: this.opts.typeCheck ?? true,
        nodePath: this.opts.nodePath ?? process.execPath,
        env: this.opts.env,
        timeoutMs: this.opts.timeoutMs ?? 100_000,
        diagnostics,
      });
      await engine.settle();
      if (exit.exitCode !== 0) engine.sawError = true;
      // deployment_executor.go: Execute — deletions only after the program (the source) completed cleanly.
      await engine.generateDeletes().catch((err: unknown) => {
        if (!(err instanceof StepError)) throw err;
      });
      if (!preview) writeCheckpoint(this.checkpointFile, this.stackName, engine.snapshot(), crypter);
    } finally {
      await monitor.stop();
      await providers.stop(diagnostics);
    }
    return {
      steps: engine.steps,
      outputs: toOutputs(engine.stackOutputs()),
      diagnostics,
      ...(engine.sawError ? { error: summarize(diagnostics, exit?.exitCode) } : {}),
      exitCode: exit?.exitCode ?? null,
      durationMs: Date.now() - startedAt,
    };
  }

  private async operate(kind: "refresh" | "destroy"): Promise<RunResult> {
    const startedAt = Date.now();
    const { diagnostics, olds, crypter, providers, engine } = this.begin(false);
    try {
      await (kind === "refresh" ? engine.refreshAll() : engine.destroyAll()).catch((err: unknown) => {
        if (!(err instanceof StepError)) throw err;
      });
      if (olds.length > 0 || fs.existsSync(this.checkpointFile)) {
        writeCheckpoint(this.checkpointFile, this.stackName, engine.snapshot(), crypter);
      }
    } finally {
      await providers.stop(diagnostics);
    }
    return {
      steps: engine.steps,
      outputs: toOutputs(engine.stackOutputs()),
      diagnostics,
      ...(engine.sawError ? { error: summarize(diagnostics, undefined) } : {}),
      durationMs: Date.now() - startedAt,
    };
  }
}

/** Stack outputs in the Automation API's `{value, secret}` shape. */
function toOutputs(outputs: PropertyMap): Record<string, OutputValue> {
  const out: Record<string, OutputValue> = {};
  for (const [key, value] of Object.entries(outputs)) {
    out[key] = { value: reveal(value), secret: containsSecrets(value) };
  }
  return out;
}

/** One message for a failed run: every error diagnostic, else the tail of the program's stderr. */
function summarize(diagnostics: readonly Diagnostic[], exitCode: number | null | undefined): string {
  const errors = diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
  if (errors.length > 0) return errors.join("\n");
  const stderr = diagnostics.filter((d) => d.source === "program-stderr").map((d) => d.message);
  return [`the program exited with code ${exitCode}`, ...stderr.slice(-20)].join("\n");
}
