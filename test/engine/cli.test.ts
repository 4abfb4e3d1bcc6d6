/**
 * Scenario 1 through the real `pulumi` CLI with a local file backend, when a CLI is on PATH; the describe
 * is skipped (and says so in its title) otherwise. The programs run unchanged: each stack lives in a temp
 * project whose Pulumi.yaml points `main` at the program, so the CLI's stack config and the backend stay
 * out of the repo; its `node_modules` links to the repo's, where the dynamic provider host (started in the
 * project dir) resolves `pulumi-gamehost`.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfigEntry } from "../../harness/src";
import type { RunningEmulator } from "../../src/emulator";
import { dist, REPO_ROOT } from "../support/dist";
import { liveServers, startTestEmulator } from "../support/emulator";
import {
  type FixtureIds,
  fixtureIds,
  QUICKSTART_DIR,
  QUICKSTART_READS,
  quickstartConfig,
  ROUTES,
  routesCalled,
  SERVERS_PROGRAM,
  type ServerArgsJson,
  serverArgs,
} from "./helpers";

const probe = spawnSync("pulumi", ["version"], { encoding: "utf8", timeout: 30_000 });
const hasCli = probe.status === 0;
// Said once, where the run shows it: the reporter lists a skipped file without its reason.
if (!hasCli) console.info("real-CLI scenarios skipped: `pulumi` is not on PATH (they run where it is)");
const title = hasCli
  ? `real pulumi CLI ${probe.stdout.trim()}`
  : "real pulumi CLI (skipped: pulumi not on PATH)";

const PASSPHRASE = "gamehost-engine-cli-passphrase";
const CLI_TIMEOUT_MS = 120_000;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temp Pulumi project running `programDir` unchanged, with its own file backend. */
class CliProject {
  readonly dir: string;
  readonly backend: string;
  private readonly outputs: string[] = [];

  constructor(
    root: string,
    readonly name: string,
    programDir: string,
  ) {
    this.dir = path.join(root, name);
    this.backend = path.join(root, `${name}-backend`);
    fs.mkdirSync(this.dir, { recursive: true });
    fs.mkdirSync(this.backend, { recursive: true });
    fs.writeFileSync(
      path.join(this.dir, "Pulumi.yaml"),
      `name: ${name}\nruntime: nodejs\nmain: ${path.relative(this.dir, programDir)}/\n`,
    );
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(this.dir, "node_modules"), "dir");
  }

  /** Runs `pulumi <args>` asynchronously (the emulator answers from this process's event loop). */
  run(args: string[]): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn("pulumi", ["--non-interactive", ...args], {
        cwd: this.dir,
        env: {
          ...process.env,
          PULUMI_BACKEND_URL: `file://${this.backend}`,
          PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          // `--event-log` (stepsOf) is a debug flag: the CLI defines it only under PULUMI_DEBUG_COMMANDS.
          PULUMI_DEBUG_COMMANDS: "true",
          GAMEHOST_TOKEN: undefined,
          GAMEHOST_BASE_URL: undefined,
          NODE_OPTIONS: undefined,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
      });
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), CLI_TIMEOUT_MS - 5_000);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        this.outputs.push(stdout, stderr);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** Like {@link run}, failing the test with the CLI's output on a non-zero exit. */
  async ok(args: string[]): Promise<string> {
    const result = await this.run(args);
    expect(result.code, `pulumi ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`).toBe(0);
    return result.stdout;
  }

  /** `pulumi stack init dev`, then each entry; a non-string value is set as JSON (`Config.getObject`). */
  async configure(config: Record<string, ConfigEntry>): Promise<void> {
    await this.ok(["stack", "init", "dev"]);
    for (const [key, { value, secret }] of Object.entries(config)) {
      const text = typeof value === "string" ? value : JSON.stringify(value);
      await this.ok(["config", "set", ...(secret ? ["--secret"] : []), key, text]);
    }
  }

  async outputsJson(): Promise<Record<string, unknown>> {
    return JSON.parse(await this.ok(["stack", "output", "--json", "--show-secrets"])) as Record<
      string,
      unknown
    >;
  }

  /** Custom resources of the stack's state (`pulumi stack export`), by name. */
  async stateIds(): Promise<Record<string, string>> {
    const exported = JSON.parse(await this.ok(["stack", "export"])) as {
      deployment: { resources?: Array<{ urn: string; id?: string; custom?: boolean; type: string }> };
    };
    const out: Record<string, string> = {};
    for (const r of exported.deployment.resources ?? []) {
      if (r.custom && r.type.startsWith("pulumi-nodejs:dynamic/"))
        out[r.urn.split("::").pop() ?? ""] = r.id ?? "";
    }
    return out;
  }

  /** Engine events of `pulumi <args> --event-log`: `[op, resource name]` of each step as it starts. */
  async stepsOf(args: string[]): Promise<Array<[string, string]>> {
    const log = path.join(this.backend, `events-${Date.now()}.jsonl`);
    await this.ok([...args, "--event-log", log]);
    const steps: Array<[string, string]> = [];
    for (const line of fs.readFileSync(log, "utf8").split("\n").filter(Boolean)) {
      const event = JSON.parse(line) as { resourcePreEvent?: { metadata?: { op: string; urn: string } } };
      const meta = event.resourcePreEvent?.metadata;
      if (meta?.urn.includes("pulumi-nodejs:dynamic/"))
        steps.push([meta.op, meta.urn.split("::").pop() ?? ""]);
    }
    return steps;
  }

  /** Everything the CLI printed and every backend file (state, history, config) must not hold `secret`. */
  expectNoLeak(secret: string): void {
    expect(this.outputs.some((o) => o.includes(secret))).toBe(false);
    const files = [path.join(this.dir, "Pulumi.dev.yaml"), ...walk(this.backend)];
    for (const file of files) {
      if (fs.existsSync(file)) expect(fs.readFileSync(file).includes(secret), file).toBe(false);
    }
  }
}

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : [full];
  });
}

describe.skipIf(!hasCli)(title, () => {
  let emulator: RunningEmulator;
  let ids: FixtureIds;
  let root: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    ids = fixtureIds(emulator);
    root = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-engine-cli-"));
  });

  afterAll(async () => {
    await emulator?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  const connection = () => ({
    "gamehost:baseUrl": { value: emulator.url },
    "gamehost:token": { value: emulator.tokens.user, secret: true },
  });

  it("runs examples/quickstart: preview, up, no-op up, refresh after an out-of-band delete, destroy", {
    timeout: 8 * CLI_TIMEOUT_MS,
  }, async () => {
    const project = new CliProject(root, "gamehost-quickstart", QUICKSTART_DIR);
    await project.configure(quickstartConfig(emulator));

    emulator.resetRequests();
    const preview = await project.stepsOf(["preview"]);
    expect(
      preview
        .filter(([op]) => op === "create")
        .map(([, n]) => n)
        .sort(),
    ).toEqual(["lobby", "match", "yesterday"]);
    expect(routesCalled(emulator)).toEqual(QUICKSTART_READS);
    expect(emulator.servers()).toEqual([]);

    emulator.resetRequests();
    await project.ok(["up", "--yes", "--skip-preview"]);
    const outputs = await project.outputsJson();
    const live = liveServers(emulator);
    expect(live.map((s) => s.id).sort()).toEqual([outputs.lobbyServerId, outputs.matchServerId].sort());
    const lobby = live.find((s) => s.id === outputs.lobbyServerId)?.network.ports.web;
    expect(outputs.lobbyEndpoint).toBe(`${lobby?.public_hostname}:${lobby?.public_port}`);
    expect(outputs.gameName).toBe(ids.gameName);
    expect(outputs.historyRows).toBeGreaterThan(0);
    expect(routesCalled(emulator).filter((r) => r === ROUTES.exportHistory)).toHaveLength(1);

    emulator.resetRequests();
    // --skip-preview: the CLI's own preview would run the data sources a second time.
    await project.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(routesCalled(emulator)).toEqual(QUICKSTART_READS);

    const oldLobby = String(outputs.lobbyServerId);
    const client = new (dist.api().GamehostClient)({ baseUrl: emulator.url, token: emulator.tokens.user });
    await client.deleteServer(ids.gameId, ids.environmentId, oldLobby);
    await project.ok(["refresh", "--yes", "--skip-preview"]);
    const afterRefresh = await project.stateIds();
    expect(afterRefresh.lobby).toBeUndefined();
    expect(afterRefresh.match).toBe(outputs.matchServerId);

    await project.ok(["up", "--yes", "--skip-preview"]);
    const healed = await project.stateIds();
    expect(healed.lobby).toBeDefined();
    expect(healed.lobby).not.toBe(oldLobby);
    expect(
      liveServers(emulator)
        .map((s) => s.id)
        .sort(),
    ).toEqual([healed.lobby, healed.match].sort());

    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(emulator)).toEqual([]);
    expect(await project.stateIds()).toEqual({});
    project.expectNoLeak(emulator.tokens.user);
  });

  it("replaces on a tag change (new server first) and updates a knob without API calls", {
    timeout: 6 * CLI_TIMEOUT_MS,
  }, async () => {
    const project = new CliProject(root, "gamehost-engine-servers", SERVERS_PROGRAM);
    const declare = (web: ServerArgsJson) =>
      project.ok(["config", "set", "gamehost-engine-servers:servers", JSON.stringify({ web })]);
    await project.configure(connection());
    await declare(serverArgs(emulator));
    await project.ok(["up", "--yes", "--skip-preview"]);
    const oldId = (await project.stateIds()).web;

    await declare(serverArgs(emulator, { tags: { role: "web", tier: "gold" } }));
    emulator.resetRequests();
    const steps = await project.stepsOf(["up", "--yes", "--skip-preview"]);
    const ops = steps.map(([op]) => op);
    expect(ops).toContain("create-replacement");
    expect(ops.indexOf("create-replacement")).toBeLessThan(ops.indexOf("delete-replaced"));
    const newId = (await project.stateIds()).web;
    expect(newId).not.toBe(oldId);
    const oldServer = emulator.servers().find((s) => s.id === oldId);
    const newServer = emulator.servers().find((s) => s.id === newId);
    expect(newServer?.started_at ?? Infinity).toBeLessThanOrEqual(oldServer?.destroyed_at ?? -Infinity);

    await declare(serverArgs(emulator, { tags: { role: "web", tier: "gold" }, readyTimeoutSeconds: 42 }));
    emulator.resetRequests();
    const update = await project.stepsOf(["up", "--yes", "--skip-preview"]);
    expect(update.map(([op]) => op)).toEqual(["update"]);
    expect(emulator.requests).toEqual([]);
    expect((await project.stateIds()).web).toBe(newId);

    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveServers(emulator)).toEqual([]);
    project.expectNoLeak(emulator.tokens.user);
  });
});
