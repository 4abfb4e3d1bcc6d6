#!/usr/bin/env node
// The README's main job: deploy examples/quickstart against the local emulator, print the stack outputs,
// destroy the stack and stop the emulator. Run through `npm run demo` (which builds first).
//
// Engine: the `pulumi` CLI from PATH, else the `pulumi` npm package (it fetches the CLI where the
// internet is reachable). Where neither can run, the same unchanged program runs through the two
// processes the CLI itself starts — the SDK's language host and dynamic-provider host — driven by
// this repo's engine harness (harness/). `--require-cli` fails instead of falling back.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadHarness } from "../harness/load.mjs";
import { describeOutputs, stackOutputs } from "./lib/stack-outputs.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(repo, "package.json"));
const requireCli = process.argv.includes("--require-cli");
const STACK = "demo";
const PASSPHRASE = "gamehost-demo-passphrase";
const stateDir = path.join(repo, ".demo-state");

function log(line) {
  process.stdout.write(`${line}\n`);
}

/** The command that runs the Pulumi CLI here, or undefined when none can run. */
function findPulumi() {
  const candidates = [
    { cmd: "pulumi", args: [] },
    { cmd: "npx", args: ["--yes", "pulumi"] },
  ];
  for (const c of candidates) {
    const probe = spawnSync(c.cmd, [...c.args, "version"], { encoding: "utf8", timeout: 120_000 });
    if (probe.status === 0) return { ...c, version: probe.stdout.trim() };
    const why =
      (probe.error?.message ?? `${probe.stderr}`.trim().split("\n").pop()) || `exit ${probe.status}`;
    log(`engine: \`${[c.cmd, ...c.args].join(" ")}\` cannot run (${why})`);
  }
  return undefined;
}

/** The quickstart's config: the emulator's URL and token, and names only (no UUID to paste). */
function quickstartConfig(emulator) {
  return {
    "gamehost:baseUrl": { value: emulator.url },
    "gamehost:token": { value: emulator.tokens.user, secret: true },
    "gamehost-quickstart:game": { value: emulator.fixture.games[0].nameId },
    "gamehost-quickstart:environment": { value: "prod" },
    "gamehost-quickstart:buildTags": { value: { channel: "stable" } },
  };
}

function runCli(pulumi, config) {
  mkdirSync(stateDir, { recursive: true });
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
  const run = (args, opts = {}) => {
    const result = spawnSync(pulumi.cmd, [...pulumi.args, ...args], {
      cwd: repo,
      env,
      encoding: "utf8",
      stdio: opts.capture ? "pipe" : "inherit",
    });
    if (result.status !== 0) throw new Error(`pulumi ${args.join(" ")} failed (exit ${result.status})`);
    return result.stdout;
  };
  run(["stack", "select", "--create", STACK]);
  for (const [key, { value, secret }] of Object.entries(config)) {
    // An object value is set key by key with --path, as a person would type it.
    const entries =
      typeof value === "object" ? Object.entries(value).map(([k, v]) => [`${key}.${k}`, v]) : [[key, value]];
    for (const [path, v] of entries) {
      run([
        "config",
        "set",
        ...(secret ? ["--secret"] : []),
        ...(path === key ? [] : ["--path"]),
        path,
        String(v),
      ]);
    }
  }
  run(["up", "--yes", "--skip-preview"]);
  const values = JSON.parse(run(["stack", "output", "--json"], { capture: true }));
  const { deployment } = JSON.parse(run(["stack", "export"], { capture: true }));
  describeOutputs(stackOutputs(deployment, values), log);
  run(["destroy", "--yes"]);
}

async function runHarness(config) {
  log("engine: running through the SDK's language and provider hosts (harness/)");
  const { Stack } = loadHarness();
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const stack = new Stack({
    programDir: path.join(repo, "examples", "quickstart"),
    stackName: STACK,
    config,
    checkpointFile: path.join(stateDir, `${STACK}.json`),
    passphrase: PASSPHRASE,
  });
  const up = await stack.up();
  if (up.error) throw new Error(`up failed: ${up.error}`);
  const created = up.steps.filter((s) => s.op === "create" && s.type.startsWith("pulumi-nodejs:dynamic/"));
  log(
    `up: ${created.length} created (${created.map((s) => `${s.type.split(":").pop()} ${s.name}`).join(", ")})`,
  );
  const values = Object.fromEntries(Object.entries(up.outputs).map(([key, output]) => [key, output.value]));
  describeOutputs(stackOutputs(stack.checkpoint().checkpoint.latest, values), log);
  const down = await stack.destroy();
  if (down.error) throw new Error(`destroy failed: ${down.error}`);
  const deleted = down.steps.filter((s) => s.op === "delete" && s.type.startsWith("pulumi-nodejs:dynamic/"));
  log(`destroy: ${deleted.length} deleted`);
}

async function main() {
  const { startEmulator } = require("pulumi-gamehost/emulator");
  const emulator = await startEmulator({ placementDelayMs: 300 });
  log(`emulator: ${emulator.url} (user token ${emulator.tokens.user})`);
  try {
    const config = quickstartConfig(emulator);
    const pulumi = findPulumi();
    if (pulumi) {
      log(`engine: pulumi ${pulumi.version} (${[pulumi.cmd, ...pulumi.args].join(" ")})`);
      runCli(pulumi, config);
    } else if (requireCli) {
      throw new Error(
        "no Pulumi CLI can run here: install it (https://www.pulumi.com/docs/install/) or put `pulumi` on PATH",
      );
    } else {
      await runHarness(config);
    }
    const live = emulator.servers().filter((s) => s.destroyed_at === undefined).length;
    log(`live servers left in the emulator: ${live}`);
    if (live !== 0) process.exitCode = 1;
  } finally {
    await emulator.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
