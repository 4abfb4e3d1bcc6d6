#!/usr/bin/env node
// The README's main job: deploy examples/quickstart against the local emulator, print the stack outputs,
// destroy the stack and stop the emulator. Run through `npm run demo` (which builds first).
//
// Engine: the `pulumi` CLI from PATH, else the one `npm run pulumi:build` built (.pulumi-cli/bin), else the
// `pulumi` npm package (it fetches the CLI where the internet is reachable). Where neither can run, the same unchanged program runs through the two
// processes the CLI itself starts — the SDK's language host and dynamic-provider host — driven by
// the engine harness beside this file (harness/src). `--require-cli` fails instead of falling back.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cannotRunReason } from "../scripts/lib/cannot-run.mjs";
import { describeOutputs, stackOutputs } from "../scripts/lib/stack-outputs.mjs";
import { loadHarness } from "./load.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(repo, "package.json"));
const requireCli = process.argv.includes("--require-cli");
const STACK = "demo";
const PASSPHRASE = "gamehost-demo-passphrase";
const stateDir = path.join(repo, ".demo-state");
// What `npm run pulumi:build` builds: the CLI, its language hosts and the dynamic provider host beside it.
const builtBin = path.join(repo, ".pulumi-cli", "bin");

function log(line) {
  process.stdout.write(`${line}\n`);
}

/** The command that runs the Pulumi CLI here, or undefined when none can run. */
function findPulumi() {
  const candidates = [
    { cmd: "pulumi", args: [] },
    ...(existsSync(path.join(builtBin, "pulumi"))
      ? [{ cmd: path.join(builtBin, "pulumi"), args: [], bin: builtBin }]
      : []),
    { cmd: "npx", args: ["--yes", "pulumi"] },
  ];
  for (const c of candidates) {
    const probe = spawnSync(c.cmd, [...c.args, "version"], { encoding: "utf8", timeout: 120_000 });
    if (probe.status === 0) return { ...c, version: probe.stdout.trim() };
    log(`engine: \`${[c.cmd, ...c.args].join(" ")}\` cannot run (${cannotRunReason(probe)})`);
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

/** Runs the CLI asynchronously: the emulator answers its requests from this process's event loop. */
function cliRunner(pulumi) {
  const env = {
    ...process.env,
    // The built CLI finds its language hosts and the dynamic provider host beside it, on PATH.
    PATH: [pulumi.bin, process.env.PATH].filter(Boolean).join(path.delimiter),
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
  return (args, opts = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(pulumi.cmd, [...pulumi.args, ...args], {
        cwd: repo,
        env,
        stdio: ["ignore", opts.capture ? "pipe" : "inherit", "inherit"],
      });
      let stdout = "";
      child.stdout?.on("data", (chunk) => {
        stdout += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => {
        if (code === 0) resolve(stdout);
        else reject(new Error(`pulumi ${args.join(" ")} failed (exit ${code})`));
      });
    });
}

async function runCli(pulumi, config) {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const run = cliRunner(pulumi);
  // The stack's config file is written beside the root Pulumi.yaml: `destroy --remove` removes it with the
  // stack; so does this, should a step fail.
  const stackConfig = path.join(repo, `Pulumi.${STACK}.yaml`);
  try {
    await run(["stack", "init", STACK]);
    const args = ["config", "set-all", "--path"];
    for (const [key, { value, secret }] of Object.entries(config)) {
      // An object value is set key by key with --path, as a person would type it.
      const entries =
        typeof value === "object"
          ? Object.entries(value).map(([k, v]) => [`${key}.${k}`, v])
          : [[key, value]];
      for (const [p, v] of entries) args.push(secret ? "--secret" : "--plaintext", `${p}=${v}`);
    }
    await run(args);
    await run(["up", "--yes", "--skip-preview"]);
    const values = JSON.parse(await run(["stack", "output", "--json"], { capture: true }));
    const { deployment } = JSON.parse(await run(["stack", "export"], { capture: true }));
    describeOutputs(stackOutputs(deployment, values), log);
    await run(["destroy", "--yes", "--skip-preview", "--remove"]);
  } finally {
    rmSync(stackConfig, { force: true });
  }
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
      // The repo's own build by its relative path: the line reads the same in every clone.
      const cmd = pulumi.cmd.startsWith(repo + path.sep) ? path.relative(repo, pulumi.cmd) : pulumi.cmd;
      log(`engine: pulumi ${pulumi.version} (${[cmd, ...pulumi.args].join(" ")})`);
      await runCli(pulumi, config);
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
