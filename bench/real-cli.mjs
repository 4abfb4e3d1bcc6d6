#!/usr/bin/env node
// 8. Through the real Pulumi CLI: the 500-Server stack (`bench/programs/servers`) `up` then `destroy` with
// `pulumi up/destroy --parallel 16`, for each face (the dynamic resources, and the plugin's through
// `pulumi-gamehost/native`), in the same run as the same stack through the engine harness and as the same
// API calls made directly at concurrency 16; at loopback and behind a simulated +50 ms round trip. Also the
// CLI's own cost per resource: the same stack shape with a provider that makes no call (`bench/programs/
// noop`), CLI time per resource. Uses the `pulumi` on PATH, else the pinned build (`npm run pulumi:build`).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cliCommand, cliProject, cliVersion, initStack } from "./lib/cli.mjs";
import { createThenDelete, directClient, serverBody } from "./lib/direct.mjs";
import { BENCH_DIR, loadHarness, machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, interleaved, line, spread } from "./lib/stats.mjs";

const COUNT = Number(process.env.BENCH_SERVERS ?? 500);
const PARALLEL = 16;
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 2);
const RTT_MS = 50;

const cli = cliCommand();
const version = cliVersion(cli);
line(`# 8. real CLI ${version} — ${COUNT} servers, --parallel ${PARALLEL} — ${JSON.stringify(machine())}`);
const { Stack } = loadHarness();
const emulator = await startEmulatorProcess({ placementDelayMs: 0 }, { latencyMs: RTT_MS });
const target = serverTarget(emulator.fixture);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-cli-"));
let serial = 0;

async function viaCli(face, url, program = "servers") {
  const p = cliProject(cli, path.join(tmp, `${program}-${serial++}`), program);
  const config = {
    "gamehost:baseUrl": url,
    "bench:count": String(COUNT),
    "bench:target": JSON.stringify(target),
    "bench:face": face,
  };
  await initStack(p, config, emulator.tokens.user);
  let start = performance.now();
  await p.run(["up", "--yes", "--skip-preview", "--parallel", String(PARALLEL)]);
  const upMs = performance.now() - start;
  if (program === "servers" && (await emulator.call("liveServers")) !== COUNT)
    throw new Error(`expected ${COUNT} live servers after the CLI's up`);
  start = performance.now();
  await p.run(["destroy", "--yes", "--skip-preview", "--parallel", String(PARALLEL)]);
  const downMs = performance.now() - start;
  if ((await emulator.call("liveServers")) !== 0)
    throw new Error("servers left alive after the CLI's destroy");
  return { upMs, downMs };
}

async function viaHarness(face, url) {
  const stack = new Stack({
    programDir: path.join(BENCH_DIR, "programs", "servers"),
    stackName: "bench",
    checkpointFile: path.join(tmp, `harness-${serial++}.json`),
    parallel: PARALLEL,
    timeoutMs: 600_000,
    config: {
      "gamehost:baseUrl": { value: url },
      "gamehost:token": { value: emulator.tokens.user, secret: true },
      "bench:count": { value: COUNT },
      "bench:target": { value: target },
      "bench:face": { value: face },
    },
  });
  let start = performance.now();
  const up = await stack.up();
  if (up.error) throw new Error(`harness up failed: ${up.error}`);
  const upMs = performance.now() - start;
  start = performance.now();
  const down = await stack.destroy();
  if (down.error) throw new Error(`harness destroy failed: ${down.error}`);
  return { upMs, downMs: performance.now() - start };
}

async function viaDirect(url) {
  const client = directClient(url, emulator.tokens.user, target);
  const body = serverBody(target);
  const start = performance.now();
  await createThenDelete(client, body, { count: COUNT, parallel: PARALLEL, keyPrefix: `direct-${serial}` });
  serial++;
  await client.close();
  return performance.now() - start;
}

const s = (ms) => ms.map((t) => t / 1000);

async function setting(label, url) {
  const runs = { cliDynamic: [], cliPlugin: [], harnessDynamic: [], harnessPlugin: [] };
  const values = await interleaved(ROUNDS, {
    direct: () => viaDirect(url),
    cliDynamic: async () => record(runs.cliDynamic, await viaCli("dynamic", url)),
    cliPlugin: async () => record(runs.cliPlugin, await viaCli("plugin", url)),
    harnessDynamic: async () => record(runs.harnessDynamic, await viaHarness("dynamic", url)),
    harnessPlugin: async () => record(runs.harnessPlugin, await viaHarness("plugin", url)),
  });
  line(`${label}:`);
  line(`  direct calls (POST each, then DELETE each)   ${spread(s(values.direct), 2, " s")}`);
  for (const face of ["dynamic", "plugin"]) {
    const key = face === "dynamic" ? "Dynamic" : "Plugin";
    const c = runs[`cli${key}`];
    const h = runs[`harness${key}`];
    line(
      `  ${face}: CLI up ${spread(s(c.map((r) => r.upMs)), 2, " s")}, destroy ${spread(s(c.map((r) => r.downMs)), 2, " s")}; harness up ${spread(s(h.map((r) => r.upMs)), 2, " s")}, destroy ${spread(s(h.map((r) => r.downMs)), 2, " s")}`,
    );
    const cli = values[`cli${key}`];
    figure({
      name: `${COUNT}-server up+destroy through the real CLI, ${face} face / direct calls, ${label}`,
      values: cli.map((t, i) => t / values.direct[i]),
    });
    figure({
      name: `${COUNT}-server up+destroy, real CLI / engine harness, ${face} face, ${label}`,
      values: cli.map((t, i) => t / values[`harness${key}`][i]),
    });
  }
  return values;
}

function record(list, run) {
  list.push(run);
  return run.upMs + run.downMs;
}

try {
  await setting("loopback", emulator.url);
  const noop = [];
  for (let r = 0; r < ROUNDS; r++) {
    const { upMs, downMs } = await viaCli("dynamic", emulator.url, "noop");
    noop.push((upMs + downMs) / COUNT);
  }
  line(`CLI, no-op provider, same stack shape: ${spread(noop, 2, " ms")} per resource (up + destroy)`);
  figure({
    name: `the real CLI's own cost per resource (no-op provider, up + destroy)`,
    values: noop,
    unit: " ms",
  });
  await setting(`+${RTT_MS} ms round trip per request`, emulator.slowUrl);
} finally {
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}
