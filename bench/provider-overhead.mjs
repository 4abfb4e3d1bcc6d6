#!/usr/bin/env node
// 1. Provider overhead: Server check + create + read + delete through the SDK's dynamic provider host
// (gRPC, as the engine calls it) against the same API calls made directly with undici, at the same
// concurrency, against one emulator process. Both sides make exactly the same HTTP calls per server:
// POST with the idempotency tag (create), GET (read), DELETE (delete); `waitForReady: false`, so
// create makes no readiness polls. The last setting adds a simulated network round trip per request.
import { directClient, pool, serverBody, serverInputs } from "./lib/direct.mjs";
import { machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { programInputs, providerTexts, SERVER_TYPE, serverUrn, startProvider } from "./lib/provider.mjs";
import { figure, line, paired, quantile, spread } from "./lib/stats.mjs";

const ROUNDS = 5;
const RTT_MS = 10;
const SETTINGS = [
  { concurrency: 1, lifecycles: 150, rttMs: 0 },
  { concurrency: 8, lifecycles: 400, rttMs: 0 },
  { concurrency: 1, lifecycles: 30, rttMs: RTT_MS },
];
const TARGET = 1.25;
/** A provider module as the host loads `__provider` texts, whose methods make no call at all. */
const NOOP_PROVIDER = `exports.handler = () => ({
  check: async (olds, news) => ({ inputs: news, failures: [] }),
  create: async (inputs) => ({ id: "noop-" + Math.random().toString(36).slice(2), outs: inputs }),
  read: async (id, props) => ({ id, props }),
  delete: async () => {},
});`;

line(`# 1. provider overhead — ${JSON.stringify(machine())}`);
const emulator = await startEmulatorProcess({ placementDelayMs: 0 }, { latencyMs: RTT_MS });
const target = serverTarget(emulator.fixture);
const text = providerTexts()[SERVER_TYPE];
const body = serverBody(target);
const inputs = serverInputs(target);
let serial = 0;

/** The provider host and the direct client, both talking to the service at `url`. */
async function sides(url) {
  const host = await startProvider(url, emulator.tokens.user);
  const direct = directClient(url, emulator.tokens.user, target);

  /** One server's lifecycle through the provider host, as the engine sends it. */
  async function viaProvider() {
    const name = `p-${serial++}`;
    const urn = serverUrn(name);
    const checked = await host.check({ urn, olds: {}, news: programInputs(text, inputs, name) });
    if (checked.failures.length) throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
    const created = await host.create({ urn, properties: checked.inputs });
    const read = await host.read({
      urn,
      id: created.id,
      properties: created.properties,
      inputs: checked.inputs,
    });
    if (read.id !== created.id) throw new Error(`read lost ${created.id}`);
    await host.delete({ urn, id: created.id, properties: read.properties, oldInputs: checked.inputs });
  }

  /** The same four RPCs to a provider that answers at once: what the host and gRPC cost by themselves. */
  async function viaNoopProvider() {
    const name = `n-${serial++}`;
    const urn = serverUrn(name);
    const checked = await host.check({ urn, olds: {}, news: programInputs(NOOP_PROVIDER, inputs, name) });
    const created = await host.create({ urn, properties: checked.inputs });
    const read = await host.read({
      urn,
      id: created.id,
      properties: created.properties,
      inputs: checked.inputs,
    });
    await host.delete({ urn, id: created.id, properties: read.properties, oldInputs: checked.inputs });
  }

  /** The same calls made directly (any unique idempotency key). */
  async function viaDirect() {
    const server = await direct.create(body, `direct-${serial++}`);
    const read = await direct.read(server.id);
    if (read.id !== server.id) throw new Error(`read lost ${server.id}`);
    await direct.delete(server.id);
  }

  const close = async () => {
    await direct.close();
    await host.stop();
  };
  return { viaProvider, viaDirect, viaNoopProvider, close };
}

async function timed(lifecycles, concurrency, one) {
  const start = performance.now();
  await pool(lifecycles, concurrency, one);
  return performance.now() - start;
}

const opened = [];
try {
  const bySpeed = { 0: await sides(emulator.url), [RTT_MS]: await sides(emulator.slowUrl) };
  opened.push(...Object.values(bySpeed));
  for (const side of opened) {
    // Warm-up: JIT, module loading in the host, keep-alive sockets on both sides.
    await timed(40, 8, side.viaProvider);
    await timed(40, 8, side.viaDirect);
    await timed(40, 8, side.viaNoopProvider);
  }
  for (const { concurrency, lifecycles, rttMs } of SETTINGS) {
    const side = bySpeed[rttMs];
    const result = await paired(ROUNDS, {
      subject: () => timed(lifecycles, concurrency, side.viaProvider),
      baseline: () => timed(lifecycles, concurrency, side.viaDirect),
    });
    const perServer = (ms) => ms.map((t) => t / lifecycles);
    const label = `concurrency ${concurrency}, ${rttMs ? `+${rttMs} ms round trip per request` : "loopback"}`;
    line(`${label}; ${lifecycles} servers per round, ${ROUNDS} rounds:`);
    line(`  provider host  ${spread(perServer(result.subject), 2, " ms")} per server lifecycle (wall)`);
    line(`  direct undici  ${spread(perServer(result.baseline), 2, " ms")} per server lifecycle (wall)`);
    line(`  ratio          ${spread(result.ratio)} (target ≤ ${TARGET})`);
    const noop = [];
    for (let r = 0; r < ROUNDS; r++) noop.push(await timed(lifecycles, concurrency, side.viaNoopProvider));
    const floorShare = noop.map((t, i) => t / (result.subject[i] - result.baseline[i]));
    line(
      `  no-op provider through the same host: ${spread(perServer(noop), 2, " ms")} per lifecycle = ${spread(floorShare)} of the overhead (provider − direct)`,
    );
    figure({
      name: `provider/direct time, check+create+read+delete, ${label}`,
      values: result.ratio,
      target: `≤ ${TARGET}`,
      met: quantile(result.ratio, 0.5) <= TARGET,
    });
    figure({
      name: `no-op provider's time through the host / (provider − direct) overhead, ${label}`,
      values: floorShare,
    });
  }
  const live = await emulator.call("liveServers");
  if (live !== 0) throw new Error(`${live} servers left alive`);
} finally {
  for (const side of opened) await side.close();
  await emulator.stop();
}
