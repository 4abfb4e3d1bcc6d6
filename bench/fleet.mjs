#!/usr/bin/env node
// 11. A Fleet through the real Pulumi CLI: `bench:count` servers as one Fleet (plugin face) against the same
// servers as Server resources (plugin face, `--parallel 16`) and against the same API calls made directly
// at concurrency 16; `up` then `destroy` of each, at loopback and behind a simulated +50 ms round trip. In the
// same run, `up` and `destroy` of a program with no resources: the CLI's fixed cost (start, program,
// language host), which the Fleet's figure leaves out; and of a Fleet of 0 servers: the fixed cost of a
// Fleet (the package loaded by the program, the plugin started and stopped, one list request).
// Then a rollout: 100 ready servers (BENCH_ROLLOUT_SERVERS) moved to a new build with maxUnavailable 25 %
// and maxSurge 0 (4 batches of 25), each server placed 1 s after its create, behind +50 ms; against the
// ideal, 4 × the time to create one server and see it ready (direct calls, same run).
// BENCH_FLEET_SERVERS_VARIANT=0 leaves out the 500 Server resources (minutes a round).
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
const WITH_SERVERS = process.env.BENCH_FLEET_SERVERS_VARIANT !== "0";
const ROLLOUT_COUNT = Number(process.env.BENCH_ROLLOUT_SERVERS ?? 100);
const PLACEMENT_MS = 1000;

const cli = cliCommand();
const version = cliVersion(cli);
line(`# 11. Fleet, real CLI ${version} — ${COUNT} servers — ${JSON.stringify(machine())}`);
const emulator = await startEmulatorProcess({ placementDelayMs: 0 }, { latencyMs: RTT_MS });
const target = serverTarget(emulator.fixture);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-fleet-"));
let serial = 0;

async function viaCli(program, url, extra = {}, count = COUNT) {
  const p = cliProject(cli, path.join(tmp, `${program}-${serial++}`), program);
  const config = {
    "gamehost:baseUrl": url,
    "bench:count": String(count),
    "bench:target": JSON.stringify(target),
    "bench:face": "plugin",
    ...extra,
  };
  await initStack(p, config, emulator.tokens.user);
  let start = performance.now();
  await p.run(["up", "--yes", "--skip-preview", "--parallel", String(PARALLEL)]);
  const upMs = performance.now() - start;
  const live = await emulator.call("liveServers");
  if (program !== "empty" && program !== "provider" && live !== count)
    throw new Error(`expected ${count} live servers after up, got ${live}`);
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
    provider: () => viaCli("provider", url),
    fleet0: () => viaCli("fleet", url, {}, 0),
    fleet: () => viaCli("fleet", url),
    ...(WITH_SERVERS ? { servers: () => viaCli("servers", url) } : {}),
  });
  line(`${label} (up + destroy):`);
  line(`  direct calls (POST each, then DELETE each)   ${spread(s(values.direct), 2, " s")}`);
  line(`  empty stack through the CLI (fixed cost)     ${spread(s(values.empty), 2, " s")}`);
  line(`  the provider alone (start, program, plugin)  ${spread(s(values.provider), 2, " s")}`);
  line(`  one Fleet of 0 servers (a Fleet's fixed cost) ${spread(s(values.fleet0), 2, " s")}`);
  line(`  one Fleet of ${COUNT} (plugin)                  ${spread(s(values.fleet), 2, " s")}`);
  if (WITH_SERVERS)
    line(`  ${COUNT} Server resources (plugin)             ${spread(s(values.servers), 2, " s")}`);
  figure({
    name: `${COUNT} servers as one Fleet through the real CLI, less the CLI's fixed cost / direct calls, ${label}`,
    values: values.fleet.map((t, i) => (t - values.empty[i]) / values.direct[i]),
  });
  // Issue 24's goal: the Fleet less the CLI's fixed cost, which it names "start, program, plugin": the
  // provider alone (an empty stack does not start the plugin). Met when every round is within it.
  const lessProvider = values.fleet.map((t, i) => (t - values.provider[i]) / values.direct[i]);
  figure({
    name: `${COUNT} servers as one Fleet through the real CLI, less the provider alone (start, program, plugin) / direct calls, ${label}`,
    values: lessProvider,
    target: label.startsWith("+") ? "≤ 1.5" : undefined,
    met: label.startsWith("+") ? lessProvider.every((r) => r <= 1.5) : undefined,
  });
  figure({
    name: `${COUNT} servers as one Fleet through the real CLI, less a 0-server Fleet / direct calls, ${label}`,
    values: values.fleet.map((t, i) => (t - values.fleet0[i]) / values.direct[i]),
  });
  if (WITH_SERVERS)
    figure({
      name: `${COUNT} Server resources through the real CLI, less the CLI's fixed cost / direct calls, ${label}`,
      values: values.servers.map((t, i) => (t - values.empty[i]) / values.direct[i]),
    });
}

/** Direct calls: POST one server, then GET it every 25 ms until it is ready; ms from the POST to ready seen. */
async function oneReady(em, url) {
  const t = serverTarget(em.fixture);
  const client = directClient(url, em.tokens.user, t);
  const start = performance.now();
  const made = await client.create(serverBody(t), `ready-${serial++}`);
  for (;;) {
    const now = await client.read(made.id);
    if (
      now.started_at !== undefined &&
      Object.values(now.network.ports).every((p) => p.public_port !== undefined)
    )
      break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const ms = performance.now() - start;
  await client.delete(made.id);
  await client.close();
  return ms;
}

/** `up` of a build change of a ready fleet of ROLLOUT_COUNT (maxUnavailable 25 %, maxSurge 0), in ms. */
async function rollout(em, url, emptyUpMs) {
  // The fixture's prod environment has two builds: the rollout moves from the first to the second.
  const prod = em.fixture.games[0].environments.find((e) => e.nameId === "prod");
  const [from, next] = prod.builds.map((b) => b.id);
  const t = { ...serverTarget(em.fixture), environmentId: prod.id, build: from };
  const p = cliProject(cli, path.join(tmp, `rollout-${serial++}`), "fleet");
  await initStack(
    p,
    {
      "gamehost:baseUrl": url,
      "bench:count": String(ROLLOUT_COUNT),
      "bench:target": JSON.stringify(t),
      "bench:face": "plugin",
      "bench:waitForReady": "true",
      "bench:rollout": JSON.stringify({ maxSurge: 0, maxUnavailable: "25%" }),
    },
    em.tokens.user,
  );
  await p.run(["up", "--yes", "--skip-preview"]);
  await p.run(["config", "set", "bench:build", next]);
  let start = performance.now();
  await p.run(["up", "--yes", "--skip-preview"]);
  const ms = performance.now() - start;
  // The same stack's `up` with nothing to do: the program, the package and the plugin, no API call.
  start = performance.now();
  await p.run(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
  const idleMs = performance.now() - start;
  await p.run(["destroy", "--yes", "--skip-preview"]);
  return { ms, less: ms - emptyUpMs, lessIdle: ms - idleMs, idleMs };
}

async function emptyUp(em, url) {
  const p = cliProject(cli, path.join(tmp, `empty-up-${serial++}`), "empty");
  await initStack(p, { "gamehost:baseUrl": url, "bench:count": "0", "bench:target": "{}" }, em.tokens.user);
  const start = performance.now();
  await p.run(["up", "--yes", "--skip-preview"]);
  return performance.now() - start;
}

async function rolloutSetting() {
  const em = await startEmulatorProcess({ placementDelayMs: PLACEMENT_MS }, { latencyMs: RTT_MS });
  try {
    const url = em.slowUrl;
    const batches = 4; // maxUnavailable 25 % of the count, maxSurge 0
    const values = { one: [], fixed: [], idle: [], roll: [], less: [], lessIdle: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < 3; i++) values.one.push(await oneReady(em, url));
      const fixed = await emptyUp(em, url);
      values.fixed.push(fixed);
      const { ms, less, lessIdle, idleMs } = await rollout(em, url, fixed);
      values.roll.push(ms);
      values.less.push(less);
      values.lessIdle.push(lessIdle);
      values.idle.push(idleMs);
    }
    const one = [...values.one].sort((a, b) => a - b)[Math.floor(values.one.length / 2)];
    line(
      `rollout of ${ROLLOUT_COUNT} servers, maxUnavailable 25 %, maxSurge 0, placement ${PLACEMENT_MS} ms, +${RTT_MS} ms:`,
    );
    line(`  one server created and seen ready (direct)   ${spread(s(values.one), 2, " s")}`);
    line(`  ideal: ${batches} batches × that                ${((batches * one) / 1000).toFixed(2)} s`);
    line(`  empty stack \`up\` (fixed cost)              ${spread(s(values.fixed), 2, " s")}`);
    line(`  the stack's \`up\` with no change              ${spread(s(values.idle), 2, " s")}`);
    line(`  the rollout's \`up\`                          ${spread(s(values.roll), 2, " s")}`);
    figure({
      name: `rollout of ${ROLLOUT_COUNT} servers (maxUnavailable 25 %) through the real CLI, less the CLI's fixed cost / ideal (${batches} batches × one create and ready)`,
      values: values.less.map((ms) => ms / (batches * one)),
    });
    figure({
      name: `rollout of ${ROLLOUT_COUNT} servers (maxUnavailable 25 %) through the real CLI, less the same stack's \`up\` with no change / ideal`,
      values: values.lessIdle.map((ms) => ms / (batches * one)),
    });
  } finally {
    await em.stop();
  }
}

try {
  if (process.env.BENCH_FLEET_ONLY !== "rollout") {
    await setting("loopback", emulator.url);
    await setting(`+${RTT_MS} ms round trip per request`, emulator.slowUrl);
  }
  if (process.env.BENCH_FLEET_ONLY !== "scale") await rolloutSetting();
} finally {
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}
