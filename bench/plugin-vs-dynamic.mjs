#!/usr/bin/env node
// 7. Plugin vs dynamic host: the two faces of the Server provider, measured in the same run, each as the
// engine drives it (the engine harness's ProviderHost over gRPC): the provider plugin
// `pulumi-resource-gamehost` and the SDK's dynamic provider host with the `__provider` text the SDK
// serializes. A gRPC round trip between two Node processes costs 0.5–0.9 ms by itself, so every per-call
// figure is an overhead in ms over the direct undici calls (bench 1's baseline), not a ratio.
//   - Per-call overhead: check + create + read + delete (`waitForReady: false`: POST with the idempotency
//     tag, GET, DELETE, the same calls on every side) one at a time; (face − direct) / 4 RPCs. With it,
//     the CPU each process spent per lifecycle (provider, this process as the gRPC client, emulator).
//   - p99 of one RPC with 50 lifecycles in flight (each check, create, read and delete timed alone).
//   - Spawn to port: from just before the spawn to the port line read from stdout (ProviderHost.start);
//     also spawn to Configure answered (after Handshake, and the plugin's CheckConfig, as the engine sends
//     them), the process's RSS (/proc/<pid>/status VmRSS) idle after Configure, the first Check after it
//     (which loads what a face defers), and the RSS after all the calls.
//   - A 500-Server stack, `up` then `destroy`, through the harness (parallel 16, as bench 2), the program
//     `bench/programs/servers` with `bench:face` set to each face.
// The emulator runs in its own process; subjects and baselines run back to back, in an order that changes
// from round to round. `BENCH_SERVERS` sets the stack's size (default 500).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { directClient, pool, serverBody, serverInputs } from "./lib/direct.mjs";
import { BENCH_DIR, loadHarness, machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import {
  PLUGIN_SERVER_TYPE,
  programInputs,
  providerTexts,
  SERVER_TYPE,
  serverUrn,
  startFace,
} from "./lib/provider.mjs";
import { figure, interleaved, line, paired, quantile, spread } from "./lib/stats.mjs";

const ROUNDS = 5;
/** Lifecycles per round at concurrency 1 (per-call overhead). */
const LIFECYCLES = 150;
const RPCS_PER_LIFECYCLE = 4;
const IN_FLIGHT = 50;
/** Lifecycles per round with IN_FLIGHT in flight (p99): 4 RPCs each. */
const BURST_LIFECYCLES = 300;
const SPAWNS = 5;
/** Time left to the process after Configure before its RSS is read. */
const IDLE_MS = 500;
const COUNT = Number(process.env.BENCH_SERVERS ?? 500);
const PARALLEL = 16;
const STACK_ROUNDS = 3;
const TARGET_OVERHEAD_MS = 1;
const TARGET_P99_MS = 60;
const TARGET_SPAWN_MS = 250;
const FACES = ["plugin", "dynamic"];
const LABEL = { plugin: "plugin", dynamic: "dynamic host" };

line(`# 7. plugin vs dynamic host — ${JSON.stringify(machine())}`);
const { Stack } = loadHarness();
const emulator = await startEmulatorProcess({ placementDelayMs: 0 });
const token = emulator.tokens.user;
const target = serverTarget(emulator.fixture);
const text = providerTexts()[SERVER_TYPE];
const body = serverBody(target);
const inputs = serverInputs(target);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-faces-"));
let serial = 0;

/** Resident set size of process `pid`, in MB (VmRSS of /proc/<pid>/status). */
function rssMb(pid) {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}

const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU time (user + system) process `pid` has used so far, in ms (/proc/<pid>/stat). */
function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** CPU used so far by provider process `pid` (if any), this process (the client) and the emulator, in ms. */
async function cpuNow(pid) {
  const client = process.cpuUsage();
  const emu = await emulator.call("cpu");
  return {
    provider: pid === undefined ? 0 : cpuMsOf(pid),
    client: (client.user + client.system) / 1000,
    emulator: (emu.user + emu.system) / 1000,
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Awaits `call()`, adding its duration in ms to `latencies` (when given). */
async function timedCall(latencies, call) {
  const start = performance.now();
  const result = await call();
  latencies?.push(performance.now() - start);
  return result;
}

/**
 * The Check request of a new server of `face`, as the engine sends it: the plugin's Server registers the
 * arguments as they are; the dynamic one adds its scope and the serialized provider.
 */
function checkRequest(face) {
  const name = `${face}-${serial++}`;
  const urn = serverUrn(name, face === "plugin" ? PLUGIN_SERVER_TYPE : SERVER_TYPE);
  return { urn, olds: {}, news: face === "plugin" ? inputs : programInputs(text, inputs, name) };
}

/** One server's lifecycle through `host` of `face`, as the engine sends it; each RPC timed in `latencies`. */
function lifecycleOf(face, host) {
  return async (latencies) => {
    const request = checkRequest(face);
    const { urn } = request;
    const checked = await timedCall(latencies, () => host.check(request));
    if (checked.failures.length) throw new Error(`${face} check failed: ${JSON.stringify(checked.failures)}`);
    const created = await timedCall(latencies, () => host.create({ urn, properties: checked.inputs }));
    const read = await timedCall(latencies, () =>
      host.read({ urn, id: created.id, properties: created.properties, inputs: checked.inputs }),
    );
    if (read.id !== created.id) throw new Error(`${face} read lost ${created.id}`);
    await timedCall(latencies, () =>
      host.delete({ urn, id: created.id, properties: read.properties, oldInputs: checked.inputs }),
    );
  };
}

/** The same HTTP calls made directly; create (POST), read and delete each timed into `latencies`. */
function directLifecycle(direct) {
  return async (latencies) => {
    const server = await timedCall(latencies, () => direct.create(body, `direct-${serial++}`));
    const read = await timedCall(latencies, () => direct.read(server.id));
    if (read.id !== server.id) throw new Error(`direct read lost ${server.id}`);
    await timedCall(latencies, () => direct.delete(server.id));
  };
}

/** Wall time of `lifecycles` runs of `one` with `concurrency` in flight, in ms. */
async function timed(lifecycles, concurrency, one, latencies) {
  const start = performance.now();
  await pool(lifecycles, concurrency, () => one(latencies));
  return performance.now() - start;
}

/**
 * Start-up of one fresh process of `face`: spawn to port, to Configure answered, its RSS idle after
 * Configure, and then its first Check (which makes no request: for the dynamic host, the time to load the
 * `__provider` module and the package it requires).
 */
async function startup(face, log) {
  const { host, spawnToPortMs, spawnToConfiguredMs } = await startFace(face, emulator.url, token);
  try {
    await sleep(IDLE_MS);
    log.port.push(spawnToPortMs);
    log.configured.push(spawnToConfiguredMs);
    log.rss.push(rssMb(host.pid));
    const start = performance.now();
    const checked = await host.check(checkRequest(face));
    log.firstCheck.push(performance.now() - start);
    if (checked.failures.length) throw new Error(`${face} check failed: ${JSON.stringify(checked.failures)}`);
  } finally {
    await host.stop();
  }
  return spawnToPortMs;
}

/** Harness up + destroy of COUNT servers through `face`; records both phase times in `log`. */
async function stackRun(face, log) {
  const stack = new Stack({
    programDir: path.join(BENCH_DIR, "programs", "servers"),
    stackName: "bench",
    checkpointFile: path.join(tmp, `${face}-${serial++}.json`),
    parallel: PARALLEL,
    timeoutMs: 300_000,
    config: {
      "gamehost:baseUrl": { value: emulator.url },
      "gamehost:token": { value: token, secret: true },
      "bench:count": { value: COUNT },
      "bench:target": { value: target },
      "bench:face": { value: face },
    },
  });
  let start = performance.now();
  const up = await stack.up();
  const upMs = performance.now() - start;
  if (up.error) throw new Error(`${face} up failed: ${up.error}`);
  const live = await emulator.call("liveServers");
  if (live !== COUNT) throw new Error(`${face}: expected ${COUNT} live servers after up, found ${live}`);
  start = performance.now();
  const down = await stack.destroy();
  const downMs = performance.now() - start;
  if (down.error) throw new Error(`${face} destroy failed: ${down.error}`);
  if ((await emulator.call("liveServers")) !== 0)
    throw new Error(`${face}: servers left alive after destroy`);
  log.up.push(upMs);
  log.destroy.push(downMs);
  return upMs + downMs;
}

const hosts = {};
let direct;
try {
  // --- Start-up: fresh processes, one of each face per round, nothing else running.
  const starts = Object.fromEntries(
    FACES.map((f) => [f, { port: [], configured: [], rss: [], firstCheck: [] }]),
  );
  const spawnRatio = (
    await paired(SPAWNS, {
      subject: () => startup("plugin", starts.plugin),
      baseline: () => startup("dynamic", starts.dynamic),
    })
  ).ratio;
  line(`start-up, ${SPAWNS} fresh processes of each face:`);
  for (const face of FACES) {
    const s = starts[face];
    line(
      `  ${LABEL[face].padEnd(13)} spawn → port ${spread(s.port, 0, " ms")}; → Configure answered ${spread(s.configured, 0, " ms")}; idle RSS ${spread(s.rss, 1, " MB")}; then first Check ${spread(s.firstCheck, 0, " ms")}`,
    );
  }
  line(`  plugin / dynamic host, spawn → port: ${spread(spawnRatio)}`);

  // --- Calls: one long-lived process of each face, and the direct client, against the same emulator.
  for (const face of FACES) hosts[face] = (await startFace(face, emulator.url, token)).host;
  direct = directClient(emulator.url, token, target);
  const sides = {
    plugin: lifecycleOf("plugin", hosts.plugin),
    dynamic: lifecycleOf("dynamic", hosts.dynamic),
    direct: directLifecycle(direct),
  };
  const SIDES = Object.keys(sides);
  const labelOf = (side) => (LABEL[side] ?? "direct undici").padEnd(13);
  // Warm-up: JIT, module loading in the hosts, keep-alive sockets and gRPC channels.
  for (const one of Object.values(sides)) {
    await timed(40, 8, one);
    await timed(100, IN_FLIGHT, one);
  }

  /**
   * Runs `rounds` rounds of `lifecycles` lifecycles with `concurrency` in flight on every side, interleaved;
   * per side and round: wall ms, every call's latency, and the CPU ms per lifecycle of each process.
   */
  async function measure(lifecycles, concurrency) {
    const latencies = Object.fromEntries(SIDES.map((k) => [k, []]));
    const cpu = Object.fromEntries(SIDES.map((k) => [k, { provider: [], client: [], emulator: [] }]));
    const wall = await interleaved(
      ROUNDS,
      Object.fromEntries(
        SIDES.map((side) => [
          side,
          async () => {
            const sample = [];
            const before = await cpuNow(hosts[side]?.pid);
            const ms = await timed(lifecycles, concurrency, sides[side], sample);
            const after = await cpuNow(hosts[side]?.pid);
            for (const k of Object.keys(before)) cpu[side][k].push((after[k] - before[k]) / lifecycles);
            latencies[side].push(sample);
            return ms;
          },
        ]),
      ),
    );
    return { wall, latencies, cpu };
  }

  /** Report lines of where each side's CPU went, per lifecycle. */
  const cpuLines = (cpu) => {
    for (const side of SIDES) {
      const c = cpu[side];
      line(
        `  ${labelOf(side)} CPU per lifecycle: ${side === "direct" ? "" : `provider process ${spread(c.provider, 2, " ms")}, `}bench process (client) ${spread(c.client, 2, " ms")}, emulator ${spread(c.emulator, 2, " ms")}`,
      );
    }
  };

  const one = await measure(LIFECYCLES, 1);
  const calls = LIFECYCLES * RPCS_PER_LIFECYCLE;
  const overhead = Object.fromEntries(
    FACES.map((f) => [f, one.wall[f].map((t, i) => (t - one.wall.direct[i]) / calls)]),
  );
  line(`one lifecycle at a time (check+create+read+delete), ${LIFECYCLES} per round, ${ROUNDS} rounds:`);
  for (const side of SIDES) {
    line(
      `  ${labelOf(side)} ${spread(
        one.wall[side].map((t) => t / LIFECYCLES),
        2,
        " ms",
      )} per lifecycle`,
    );
  }
  for (const face of FACES) {
    line(`  ${LABEL[face]} overhead over direct: ${spread(overhead[face], 3, " ms")} per RPC`);
  }
  cpuLines(one.cpu);

  const burst = await measure(BURST_LIFECYCLES, IN_FLIGHT);
  const perRound = (q) =>
    Object.fromEntries(SIDES.map((k) => [k, burst.latencies[k].map((sample) => quantile(sample, q))]));
  const p99 = perRound(0.99);
  const p50 = perRound(0.5);
  line(`${IN_FLIGHT} lifecycles in flight, ${BURST_LIFECYCLES} per round, ${ROUNDS} rounds (per call):`);
  for (const side of SIDES) {
    const max = burst.latencies[side].map((sample) => Math.max(...sample));
    const rate = burst.wall[side].map((t, i) => burst.latencies[side][i].length / (t / 1000));
    line(
      `  ${labelOf(side)} p99 ${spread(p99[side], 1, " ms")}, p50 ${spread(p50[side], 1, " ms")}, max ${spread(max, 0, " ms")}; ${spread(rate, 0, " calls/s")}`,
    );
  }
  cpuLines(burst.cpu);

  await sleep(IDLE_MS);
  const rssAfter = Object.fromEntries(FACES.map((f) => [f, rssMb(hosts[f].pid)]));
  line(
    `RSS after the calls (${(ROUNDS * (LIFECYCLES + BURST_LIFECYCLES) + 140).toLocaleString("en-US")} lifecycles each): plugin ${rssAfter.plugin.toFixed(1)} MB, dynamic host ${rssAfter.dynamic.toFixed(1)} MB`,
  );
  for (const face of FACES) {
    await hosts[face].stop();
    delete hosts[face];
  }
  await direct.close();
  direct = undefined;
  if ((await emulator.call("liveServers")) !== 0) throw new Error("servers left alive after the calls");

  // --- A COUNT-server stack through each face.
  const stackLog = Object.fromEntries(FACES.map((f) => [f, { up: [], destroy: [] }]));
  const stackTotal = await paired(STACK_ROUNDS, {
    subject: () => stackRun("plugin", stackLog.plugin),
    baseline: () => stackRun("dynamic", stackLog.dynamic),
  });
  const upRatio = stackLog.plugin.up.map((t, i) => t / stackLog.dynamic.up[i]);
  const destroyRatio = stackLog.plugin.destroy.map((t, i) => t / stackLog.dynamic.destroy[i]);
  const s = (ms) => ms.map((t) => t / 1000);
  line(`${COUNT}-server stack through the harness, parallel ${PARALLEL}, ${STACK_ROUNDS} rounds:`);
  for (const face of FACES) {
    line(
      `  ${LABEL[face].padEnd(13)} up ${spread(s(stackLog[face].up), 2, " s")}, destroy ${spread(s(stackLog[face].destroy), 2, " s")}`,
    );
  }
  line(
    `  plugin / dynamic host: up ${spread(upRatio)}, destroy ${spread(destroyRatio)}, up+destroy ${spread(stackTotal.ratio)}`,
  );

  // --- Figures.
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: overhead per RPC over the direct calls, check+create+read+delete one at a time`,
      values: overhead[face],
      unit: " ms",
      digits: 3,
      ...(face === "plugin"
        ? { target: `≤ ${TARGET_OVERHEAD_MS} ms`, met: quantile(overhead[face], 0.5) <= TARGET_OVERHEAD_MS }
        : {}),
    });
  }
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: p99 of one RPC, ${IN_FLIGHT} lifecycles in flight`,
      values: p99[face],
      unit: " ms",
      digits: 1,
      ...(face === "plugin"
        ? { target: `≤ ${TARGET_P99_MS} ms`, met: quantile(p99[face], 0.5) <= TARGET_P99_MS }
        : {}),
    });
  }
  figure({
    name: `direct: p99 of one call (create = POST, read, delete), ${IN_FLIGHT} in flight`,
    values: p99.direct,
    unit: " ms",
    digits: 1,
  });
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: CPU of the provider process per lifecycle, one at a time`,
      values: one.cpu[face].provider,
      unit: " ms",
    });
  }
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: spawn to port line`,
      values: starts[face].port,
      unit: " ms",
      digits: 0,
      ...(face === "plugin"
        ? { target: `≤ ${TARGET_SPAWN_MS} ms`, met: quantile(starts[face].port, 0.5) <= TARGET_SPAWN_MS }
        : {}),
    });
  }
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: spawn to Configure answered`,
      values: starts[face].configured,
      unit: " ms",
      digits: 0,
    });
  }
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: first Check after Configure (no request; loads what the face defers)`,
      values: starts[face].firstCheck,
      unit: " ms",
      digits: 0,
    });
  }
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: idle RSS after Configure`,
      values: starts[face].rss,
      unit: " MB",
      digits: 1,
    });
  }
  figure({
    name: "plugin / dynamic host: idle RSS after Configure",
    values: starts.plugin.rss.map((r, i) => r / starts.dynamic.rss[i]),
  });
  for (const face of FACES) {
    figure({
      name: `${LABEL[face]}: ${COUNT}-server stack up (harness, parallel ${PARALLEL})`,
      values: s(stackLog[face].up),
      unit: " s",
    });
  }
  figure({
    name: `plugin / dynamic host: ${COUNT}-server stack up (harness, parallel ${PARALLEL})`,
    values: upRatio,
    target: "< 1",
    met: quantile(upRatio, 0.5) < 1,
  });
  figure({ name: `plugin / dynamic host: ${COUNT}-server stack destroy`, values: destroyRatio });
  figure({ name: `plugin / dynamic host: ${COUNT}-server stack up+destroy`, values: stackTotal.ratio });
} finally {
  await direct?.close();
  for (const host of Object.values(hosts)) await host.stop();
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}
