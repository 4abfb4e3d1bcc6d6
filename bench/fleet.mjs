#!/usr/bin/env node
// 9. A Fleet through the real Pulumi CLI: `bench:count` servers as one Fleet (plugin face) against the same
// servers as Server resources (plugin face, `--parallel 16`) and against the same API calls made directly
// at concurrency 16; `up` then `destroy` of each, at loopback and behind a simulated +50 ms round trip. In the
// same run, `up` and `destroy` of a program with no resources: the CLI's fixed cost (start, program,
// language host, plugin), which the Fleet's figure leaves out.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cliCommand, cliProject, cliVersion, initStack } from "./lib/cli.mjs";
import { createThenDelete, directClient, serverBody } from "./lib/direct.mjs";
import { machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, interleaved, line, spread } from "./lib/stats.mjs";

const COUNT = Number(process.env.BENCH_SERVERS ?? 500);
const PARALLEL = 16;
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 1);
const RTT_MS = 50;

const cli = cliCommand();
const version = cliVersion(cli);
line(`# 9. Fleet, real CLI ${version} — ${COUNT} servers — ${JSON.stringify(machine())}`);
const emulator = await startEmulatorProcess({ placementDelayMs: 0 }, { latencyMs: RTT_MS });
const target = serverTarget(emulator.fixture);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-fleet-"));
let serial = 0;

async function viaCli(program, url, extra = {}) {
  const p = cliProject(cli, path.join(tmp, `${program}-${serial++}`), program);
  const config = {
    "gamehost:baseUrl": url,
    "bench:count": String(COUNT),
    "bench:target": JSON.stringify(target),
    "bench:face": "plugin",
    ...extra,
  };
  await initStack(p, config, emulator.tokens.user);
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
  const start = performance.now();
  await createThenDelete(client, body, { count: COUNT, parallel: PARALLEL, keyPrefix: `direct-${serial}` });
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
