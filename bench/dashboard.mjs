#!/usr/bin/env node
// 10. Dashboard cost: server-create throughput and p99 latency of an emulator whose dashboard is open and
// streaming, against the same emulator with no page open, in the same run. Two emulator processes, both
// started with `dashboard: true` and loaded alike (so both hold the same number of servers round after
// round); one has a page connected from the start. Rounds alternate which goes first.
//
// Two kinds of page:
//   - `stream`: the page's own event stream (`GET /__admin/events` with the admin token), read and parsed
//     in this process as the page does. This is the emulator's cost: change feed, batching, serializing.
//   - `chromium`: the real page in headless Chromium (/usr/bin/chromium, when installed), signed in and on
//     the Servers view, redrawing as servers arrive. On this 2-core machine the browser's own CPU competes
//     with the emulator and the load generator, so this shows the cost of watching on the same machine.
// Also printed: the emulator's CPU time per create, and the ratio of each side's best round.
import { request } from "undici";
import { hasChromium, launchChromium } from "../scripts/lib/chromium.mjs";
import { serverBody } from "./lib/direct.mjs";
import { machine, serverTarget } from "./lib/env.mjs";
import { runLoad } from "./lib/load.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, fmt, line, paired, quantile, spread } from "./lib/stats.mjs";

const CONNECTIONS = 16;
const ROUNDS = 7;
const ROUND = { maxRequests: 8_000, maxMs: 1_500 };
const TARGET = 0.9;
const KINDS = process.argv.includes("--stream-only") || !hasChromium ? ["stream"] : ["stream", "chromium"];

line(`# 10. dashboard cost — ${CONNECTIONS} connections — ${JSON.stringify(machine())}`);

function createRequest(emulator) {
  const target = serverTarget(emulator.fixture);
  return {
    method: "POST",
    path: `/games/${target.gameId}/environments/${target.environmentId}/servers`,
    headers: { authorization: `Bearer ${emulator.tokens.user}`, "content-type": "application/json" },
    // A game-guard http port: no numbered public port, so tens of thousands of creates fit one datacenter.
    body: JSON.stringify({
      ...serverBody(target),
      network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
    }),
  };
}

/** Reads the event stream as the page does; counts events and bytes. */
async function openStream(emulator) {
  const res = await request(`${emulator.url}/__admin/events`, {
    headers: { authorization: `Bearer ${emulator.adminToken}` },
  });
  if (res.statusCode !== 200) throw new Error(`event stream: ${res.statusCode}`);
  const seen = { events: 0, bytes: 0, servers: 0 };
  let buffer = "";
  res.body.setEncoding("utf8");
  res.body.on("data", (chunk) => {
    seen.bytes += chunk.length;
    buffer += chunk;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.slice(block.indexOf("data: ") + 6);
      if (block.startsWith("event: ")) {
        const parsed = JSON.parse(data);
        seen.events++;
        if (block.startsWith("event: servers")) seen.servers += parsed.length;
      }
      end = buffer.indexOf("\n\n");
    }
  });
  return { seen, close: () => res.body.destroy() };
}

/** The real page in Chromium, signed in, on the Servers view. */
async function openChromium(emulator) {
  const { context, close } = await launchChromium({ profilePrefix: "gamehost-bench-chromium-" });
  const page = await context.newPage();
  await page.goto(`${emulator.url}/__dashboard/#/servers`);
  await page.fill("#token", emulator.adminToken);
  await page.press("#token", "Enter");
  await page.locator("#app").waitFor({ state: "visible" });
  const seen = {
    get servers() {
      return page.locator("#servers-summary").textContent();
    },
  };
  return {
    seen,
    close,
  };
}

for (const kind of KINDS) {
  const watched = await startEmulatorProcess({ dashboard: true });
  const plain = await startEmulatorProcess({ dashboard: true });
  const page = kind === "stream" ? await openStream(watched) : await openChromium(watched);
  try {
    const req = createRequest(watched);
    const opts = { connections: CONNECTIONS, ...ROUND };
    // Warm-up of both (JIT, sockets), the same number of creates on each.
    await runLoad(watched.url, req, { ...opts, maxRequests: 2_000 });
    await runLoad(plain.url, req, { ...opts, maxRequests: 2_000 });
    const withPage = [];
    const without = [];
    /** A load run with the server process's CPU time per answered request (µs): steadier than req/s on a busy machine. */
    const measured = async (emulator) => {
      const before = await emulator.call("cpu");
      const r = await runLoad(emulator.url, req, opts);
      const after = await emulator.call("cpu");
      return { ...r, cpuUs: (after.user - before.user + after.system - before.system) / r.requests };
    };
    const result = await paired(ROUNDS, {
      subject: async () => {
        const r = await measured(watched);
        if (r.errors) throw new Error(`${r.errors} errors with the dashboard open`);
        withPage.push(r);
        return r.rps;
      },
      baseline: async () => {
        const r = await measured(plain);
        if (r.errors) throw new Error(`${r.errors} errors without the dashboard`);
        without.push(r);
        return r.rps;
      },
    });
    const p99Ratio = withPage.map((r, i) => r.p99Ms / without[i].p99Ms);
    const live = await watched.call("liveServers");
    line(
      `server create (POST …/servers), page: ${kind}, ${ROUNDS} rounds of ≤ ${ROUND.maxRequests} creates or ${ROUND.maxMs} ms:`,
    );
    line(
      `  dashboard open  ${spread(
        withPage.map((r) => r.rps),
        0,
        " req/s",
      )}, p99 ${spread(
        withPage.map((r) => r.p99Ms),
        2,
        " ms",
      )}`,
    );
    line(
      `  no page         ${spread(
        without.map((r) => r.rps),
        0,
        " req/s",
      )}, p99 ${spread(
        without.map((r) => r.p99Ms),
        2,
        " ms",
      )}`,
    );
    if (kind === "stream")
      line(
        `  the page received ${page.seen.events} events, ${page.seen.servers} server updates, ${(page.seen.bytes / 2 ** 20).toFixed(1)} MiB; ${live} live servers at the end`,
      );
    else line(`  the page shows: ${await page.seen.servers}`);
    line(`  throughput ratio ${spread(result.ratio)} (target ≥ ${TARGET}); p99 ratio ${spread(p99Ratio)}`);
    figure({
      name: `dashboard open (${kind})/no page, server-create requests per second`,
      values: result.ratio,
      target: `≥ ${TARGET}`,
      met: quantile(result.ratio, 0.5) >= TARGET,
    });
    figure({ name: `dashboard open (${kind})/no page, server-create p99 latency`, values: p99Ratio });
    const cpuRatio = withPage.map((r, i) => r.cpuUs / without[i].cpuUs);
    line(
      `  emulator CPU per create: open ${spread(
        withPage.map((r) => r.cpuUs),
        1,
        " µs",
      )}, no page ${spread(
        without.map((r) => r.cpuUs),
        1,
        " µs",
      )}, ratio ${spread(cpuRatio)}`,
    );
    figure({
      name: `dashboard open (${kind})/no page, emulator CPU time per server create`,
      values: cpuRatio,
    });
    // On a machine shared with other work the rounds spread widely; the best round of each side is the
    // least disturbed one, so their ratio is a second, steadier reading.
    const best = (runs, key, pick) => pick(...runs.map((r) => r[key]));
    const bestRps = best(withPage, "rps", Math.max) / best(without, "rps", Math.max);
    line(
      `  best rounds: ${fmt(best(withPage, "rps", Math.max), 0)} vs ${fmt(best(without, "rps", Math.max), 0)} req/s (ratio ${fmt(bestRps)}), p99 ${fmt(best(withPage, "p99Ms", Math.min))} vs ${fmt(best(without, "p99Ms", Math.min))} ms, CPU ${fmt(best(withPage, "cpuUs", Math.min), 0)} vs ${fmt(best(without, "cpuUs", Math.min), 0)} µs per create`,
    );
  } finally {
    await page.close();
    await watched.stop();
    await plain.stop();
  }
}
