#!/usr/bin/env node
// 4. Emulator throughput: requests/s and p99 latency of `GET /cloud/games` and of server create
// (`POST …/servers`), against a bare `node:http` server answering the same bytes (status, headers and
// body recorded from the emulator; the request body is read first, as the emulator does). Each server
// runs in its own process; the load generator (undici, 16 keep-alive connections, bounded by count and
// time) runs in this one, on loopback. Then create and bootstrap latency with 50 000 servers in the state
// file against an empty one (lib/full-state.mjs); `--state-only` runs just that part.
import { request } from "undici";
import { serverBody } from "./lib/direct.mjs";
import { machine, serverTarget } from "./lib/env.mjs";
import { fullStateBench } from "./lib/full-state.mjs";
import { runLoad } from "./lib/load.mjs";
import { startBareProcess, startEmulatorProcess } from "./lib/proc.mjs";
import { figure, line, paired, quantile, spread } from "./lib/stats.mjs";

const CONNECTIONS = 16;
const ROUNDS = 5;
const ROUND = { maxRequests: 40_000, maxMs: 1_500 };
const TARGET = 0.5;
const STATE_ONLY = process.argv.includes("--state-only");

line(`# 4. emulator throughput — ${CONNECTIONS} connections — ${JSON.stringify(machine())}`);
const emulator = await startEmulatorProcess();
const target = serverTarget(emulator.fixture);
const auth = { authorization: `Bearer ${emulator.tokens.user}` };
const serversPath = `/games/${target.gameId}/environments/${target.environmentId}/servers`;
// A game-guard http port: placement takes no numbered port, so tens of thousands of creates fit in one
// datacenter (host-routed ports would exhaust the node's 6 000 public ports).
const createBody = JSON.stringify({
  ...serverBody(target),
  network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
});
const endpoints = [
  { name: "GET /cloud/games", req: { method: "GET", path: "/cloud/games", headers: auth } },
  {
    name: "POST …/servers (create)",
    req: {
      method: "POST",
      path: serversPath,
      headers: { ...auth, "content-type": "application/json" },
      body: createBody,
    },
  },
];

/** The emulator's answer to `req`, to be replayed byte for byte by the bare server. */
async function record(req) {
  const res = await request(`${emulator.url}${req.path}`, {
    method: req.method,
    headers: req.headers,
    body: req.body,
  });
  const body = await res.body.text();
  const keep = ["content-type", "content-length", "rvt-ray-id"];
  return {
    method: req.method,
    pathPrefix: req.path,
    status: res.statusCode,
    headers: Object.fromEntries(
      keep.filter((h) => res.headers[h] !== undefined).map((h) => [h, res.headers[h]]),
    ),
    body,
  };
}

/** A load run against `server`, with the server process's CPU time per answered request (µs). */
async function measured(server, req, opts) {
  const before = await server.call("cpu");
  const r = await runLoad(server.url, req, opts);
  const after = await server.call("cpu");
  return { ...r, cpuUs: (after.user - before.user + after.system - before.system) / r.requests };
}

const responses = [];
for (const e of endpoints) responses.push(await record(e.req));
const bare = await startBareProcess({ mode: "fixed", responses });
try {
  for (const [k, e] of STATE_ONLY ? [] : endpoints.entries()) {
    const opts = { connections: CONNECTIONS, ...ROUND, expectStatus: responses[k].status };
    // Warm-up of both servers (JIT, sockets).
    await runLoad(emulator.url, e.req, { ...opts, maxMs: 500 });
    await runLoad(bare.url, e.req, { ...opts, maxMs: 500 });
    const emu = [];
    const base = [];
    const result = await paired(ROUNDS, {
      subject: async () => {
        const r = await measured(emulator, e.req, opts);
        if (r.errors) throw new Error(`${e.name}: ${r.errors} errors from the emulator`);
        emu.push(r);
        return r.rps;
      },
      baseline: async () => {
        const r = await measured(bare, e.req, opts);
        base.push(r);
        return r.rps;
      },
    });
    const p99Ratio = emu.map((r, i) => r.p99Ms / base[i].p99Ms);
    line(
      `${e.name} (${Buffer.byteLength(responses[k].body)} B answer), ${ROUNDS} rounds of ≤ ${ROUND.maxMs} ms:`,
    );
    line(
      `  emulator  ${spread(
        emu.map((r) => r.rps),
        0,
        " req/s",
      )}, p50 ${spread(
        emu.map((r) => r.p50Ms),
        2,
        " ms",
      )}, p99 ${spread(
        emu.map((r) => r.p99Ms),
        2,
        " ms",
      )}`,
    );
    line(
      `  bare http ${spread(
        base.map((r) => r.rps),
        0,
        " req/s",
      )}, p50 ${spread(
        base.map((r) => r.p50Ms),
        2,
        " ms",
      )}, p99 ${spread(
        base.map((r) => r.p99Ms),
        2,
        " ms",
      )}`,
    );
    line(`  throughput ratio ${spread(result.ratio)} (target ≥ ${TARGET}); p99 ratio ${spread(p99Ratio)}`);
    const cpuRatio = emu.map((r, i) => r.cpuUs / base[i].cpuUs);
    line(
      `  server CPU per request: emulator ${spread(
        emu.map((r) => r.cpuUs),
        1,
        " µs",
      )}, bare ${spread(
        base.map((r) => r.cpuUs),
        1,
        " µs",
      )}, ratio ${spread(cpuRatio)}`,
    );
    figure({ name: `emulator/bare node:http server CPU time per request, ${e.name}`, values: cpuRatio });
    figure({
      name: `emulator/bare node:http requests per second, ${e.name}`,
      values: result.ratio,
      target: `≥ ${TARGET}`,
      met: quantile(result.ratio, 0.5) >= TARGET,
    });
    figure({ name: `emulator/bare node:http p99 latency, ${e.name}`, values: p99Ratio });
  }
} finally {
  await bare.stop();
  await emulator.stop();
}

await fullStateBench();
