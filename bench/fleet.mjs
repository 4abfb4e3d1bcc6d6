#!/usr/bin/env node
// 9. A Fleet through the real Pulumi CLI: `bench:count` servers as one Fleet (plugin face) against the same
// servers as Server resources (plugin face, `--parallel 16`) and against the same API calls made directly
// at concurrency 16; `up` then `destroy` of each, at loopback and behind a simulated +50 ms round trip. In the
// same run, `up` and `destroy` of a program with no resources: the CLI's fixed cost (start, program,
// language host, plugin), which the Fleet's figure leaves out.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { directClient, pool, serverBody } from "./lib/direct.mjs";
import { BENCH_DIR, machine, REPO, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, interleaved, line, spread } from "./lib/stats.mjs";

const COUNT = Number(process.env.BENCH_SERVERS ?? 500);
const PARALLEL = 16;
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 1);
const RTT_MS = 50;

function cliCommand() {
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

const cli = cliCommand();
const version = spawnSync(cli.command, ["version"], { encoding: "utf8" }).stdout.trim();
line(`# 9. Fleet, real CLI ${version} — ${COUNT} servers — ${JSON.stringify(machine())}`);
const emulator = await startEmulatorProcess({ placementDelayMs: 0 }, { latencyMs: RTT_MS });
const target = serverTarget(emulator.fixture);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-fleet-"));
let serial = 0;

/** A CLI project running `program` unchanged, with its own file backend and PULUMI_HOME. */
function cliProject(program) {
  const dir = path.join(tmp, `${program}-${serial++}`);
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
  return { run };
}

async function viaCli(program, url, extra = {}) {
  const p = cliProject(program);
  await p.run(["stack", "init", "bench"]);
  const config = {
    "gamehost:baseUrl": url,
    "bench:count": String(COUNT),
    "bench:target": JSON.stringify(target),
    "bench:face": "plugin",
    ...extra,
  };
  for (const [key, value] of Object.entries(config)) await p.run(["config", "set", "--", key, value]);
  await p.run(["config", "set", "--secret", "gamehost:token", emulator.tokens.user]);
  let start = performance.now();
  await p.run(["up", "--yes", "--skip-preview", "--parallel", String(PARALLEL)]);
  const upMs = performance.now() - start;
  const live = await emulator.call("liveServers");
  if (program !== "empty" && live !== COUNT)
    throw new Error(`expected ${COUNT} live servers after up, got ${live}`);
  start = performance.now();
  await p.run(["destroy", "--yes", "--skip-preview", "--parallel", String(PARALLEL)]);
  const downMs = performance.now() - start;
  if ((await emulator.call("liveServers")) !== 0) throw new Error("servers left alive after destroy");
  return upMs + downMs;
}

async function viaDirect(url) {
  const client = directClient(url, emulator.tokens.user, target);
  const body = serverBody(target);
  const ids = [];
  const start = performance.now();
  await pool(COUNT, PARALLEL, async (i) => {
    ids[i] = (await client.create(body, `direct-${serial}-${i}`)).id;
  });
  await pool(COUNT, PARALLEL, (i) => client.delete(ids[i]));
  serial++;
  await client.close();
  return performance.now() - start;
}

const s = (ms) => ms.map((t) => t / 1000);

async function setting(label, url) {
  const values = await interleaved(ROUNDS, {
    direct: () => viaDirect(url),
    empty: () => viaCli("empty", url),
    fleet: () => viaCli("fleet", url),
    servers: () => viaCli("servers", url),
  });
  line(`${label} (up + destroy):`);
  line(`  direct calls (POST each, then DELETE each)   ${spread(s(values.direct), 2, " s")}`);
  line(`  empty stack through the CLI (fixed cost)     ${spread(s(values.empty), 2, " s")}`);
  line(`  one Fleet of ${COUNT} (plugin)                  ${spread(s(values.fleet), 2, " s")}`);
  line(`  ${COUNT} Server resources (plugin)             ${spread(s(values.servers), 2, " s")}`);
  figure({
    name: `${COUNT} servers as one Fleet through the real CLI, less the CLI's fixed cost / direct calls, ${label}`,
    values: values.fleet.map((t, i) => (t - values.empty[i]) / values.direct[i]),
    target: label.startsWith("+") ? "≤ 1.5" : undefined,
    met: label.startsWith("+")
      ? values.fleet.every((t, i) => (t - values.empty[i]) / values.direct[i] <= 1.5)
      : undefined,
  });
  figure({
    name: `${COUNT} Server resources through the real CLI, less the CLI's fixed cost / direct calls, ${label}`,
    values: values.servers.map((t, i) => (t - values.empty[i]) / values.direct[i]),
  });
}

try {
  await setting("loopback", emulator.url);
  await setting(`+${RTT_MS} ms round trip per request`, emulator.slowUrl);
} finally {
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}
