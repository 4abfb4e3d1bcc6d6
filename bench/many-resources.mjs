#!/usr/bin/env node
// 2. Many resources: a 500-Server stack, `up` then `destroy`, through the engine harness (the SDK's real
// language host and dynamic provider host) with `parallel: 16` — at most 16 Create/Delete steps in
// flight, independent deletions concurrent — against the same API calls made directly at concurrency
// 16 (one POST per server, then DELETE per server). Also: the TCP connections the
// provider process opened (emulator 'connection' events); to explain the ratio, the same stack shape
// with a provider that makes no call (the SDK + engine floor); and the ratio again behind a simulated
// network round trip, as against a remote service.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createThenDelete, directClient, serverBody } from "./lib/direct.mjs";
import { BENCH_DIR, loadHarness, machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, line, paired, quantile, spread } from "./lib/stats.mjs";

const COUNT = Number(process.env.BENCH_SERVERS ?? 500);
const PARALLEL = 16;
const ROUNDS = 3;
const RTT_MS = 50;
const TARGET_RATIO = 1.3;
const TARGET_CONNECTIONS = PARALLEL + 2;

line(`# 2. many resources — ${COUNT} servers, ${PARALLEL} in flight — ${JSON.stringify(machine())}`);
const { Stack } = loadHarness();
const emulator = await startEmulatorProcess({ placementDelayMs: 0 }, { latencyMs: RTT_MS });
const target = serverTarget(emulator.fixture);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-many-"));
const connections = () => emulator.call("connectionCount");
let stacks = 0;

function stackOf(program, url) {
  return new Stack({
    programDir: path.join(BENCH_DIR, "programs", program),
    stackName: "bench",
    checkpointFile: path.join(tmp, `${program}-${stacks++}.json`),
    parallel: PARALLEL,
    timeoutMs: 300_000,
    config: {
      "gamehost:baseUrl": { value: url },
      "gamehost:token": { value: emulator.tokens.user, secret: true },
      "bench:count": { value: COUNT },
      "bench:target": { value: target },
    },
  });
}

/** Harness up + destroy of the servers stack at `url`; records phase times and connections in `log`. */
async function viaHarness(url, log) {
  const stack = stackOf("servers", url);
  let before = await connections();
  let start = performance.now();
  const up = await stack.up();
  const upMs = performance.now() - start;
  if (up.error) throw new Error(`up failed: ${up.error}`);
  log.upConnections.push((await connections()) - before);
  const live = await emulator.call("liveServers");
  if (live !== COUNT) throw new Error(`expected ${COUNT} live servers after up, found ${live}`);
  before = await connections();
  start = performance.now();
  const down = await stack.destroy();
  const downMs = performance.now() - start;
  if (down.error) throw new Error(`destroy failed: ${down.error}`);
  log.destroyConnections.push((await connections()) - before);
  if ((await emulator.call("liveServers")) !== 0) throw new Error("servers left alive after destroy");
  log.up.push(upMs);
  log.destroy.push(downMs);
  return upMs + downMs;
}

/** The same API calls made directly at concurrency PARALLEL; records phase times and connections. */
async function viaDirect(url, log) {
  const before = await connections();
  const client = directClient(url, emulator.tokens.user, target);
  const body = serverBody(target);
  const { createMs, deleteMs } = await createThenDelete(client, body, {
    count: COUNT,
    parallel: PARALLEL,
    keyPrefix: `direct-${stacks}`,
  });
  await client.close();
  stacks++;
  log.connections.push((await connections()) - before);
  log.create.push(createMs);
  log.delete.push(deleteMs);
  return createMs + deleteMs;
}

async function viaNoopProvider() {
  const stack = stackOf("noop", emulator.url);
  const start = performance.now();
  const up = await stack.up();
  if (up.error) throw new Error(`noop up failed: ${up.error}`);
  const down = await stack.destroy();
  if (down.error) throw new Error(`noop destroy failed: ${down.error}`);
  return performance.now() - start;
}

const s = (ms) => ms.map((t) => t / 1000);

async function setting(label, url) {
  const h = { up: [], destroy: [], upConnections: [], destroyConnections: [] };
  const d = { create: [], delete: [], connections: [] };
  const result = await paired(ROUNDS, {
    subject: () => viaHarness(url, h),
    baseline: () => viaDirect(url, d),
  });
  line(`${label}:`);
  line(`  harness up        ${spread(s(h.up), 2, " s")}`);
  line(`  harness destroy   ${spread(s(h.destroy), 2, " s")}`);
  line(`  direct creates    ${spread(s(d.create), 2, " s")} (one POST each)`);
  line(`  direct deletes    ${spread(s(d.delete), 2, " s")}`);
  line(`  ratio (harness up+destroy / direct)  ${spread(result.ratio)} (target ≤ ${TARGET_RATIO})`);
  line(
    `  connections opened by the provider process: up ${spread(h.upConnections, 0)}, destroy ${spread(h.destroyConnections, 0)}; by the direct client ${spread(d.connections, 0)}`,
  );
  figure({
    name: `${COUNT}-server stack up+destroy (harness, parallel ${PARALLEL}) / direct calls at concurrency ${PARALLEL}, ${label}`,
    values: result.ratio,
    target: `≤ ${TARGET_RATIO}`,
    met: quantile(result.ratio, 0.5) <= TARGET_RATIO,
  });
  // Destroy runs no program: the engine and the provider host only, against the direct DELETEs.
  const destroyRatio = h.destroy.map((t, i) => t / d.delete[i]);
  line(`  destroy alone (no program run): harness / direct  ${spread(destroyRatio)}`);
  figure({
    name: `${COUNT}-server destroy (harness, parallel ${PARALLEL}) / direct DELETEs at concurrency ${PARALLEL}, ${label}`,
    values: destroyRatio,
  });
  return { h, d, result };
}

try {
  const loopback = await setting("loopback", emulator.url);
  const floor = [];
  for (let r = 0; r < ROUNDS; r++) floor.push(await viaNoopProvider());
  const share = floor.map((f, i) => f / loopback.result.subject[i]);
  line(`no-op provider, same stack shape, up+destroy: ${spread(s(floor), 2, " s")}`);
  line(`  → as a share of the servers stack's harness time: ${spread(share)}`);
  figure({
    name: `no-op-provider stack up+destroy / ${COUNT}-server stack up+destroy (what any dynamic provider pays)`,
    values: share,
  });
  const perRun = [...loopback.h.upConnections, ...loopback.h.destroyConnections];
  figure({
    name: `TCP connections opened by the provider process per run (up, destroy), ${PARALLEL} in flight`,
    values: perRun,
    digits: 0,
    target: `≤ ${TARGET_CONNECTIONS}`,
    met: Math.max(...perRun) <= TARGET_CONNECTIONS,
  });
  await setting(`+${RTT_MS} ms round trip per request`, emulator.slowUrl);
} finally {
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}
