// Part of bench 4: the emulator with 50 000 servers in its state file against the same emulator with an
// empty one. Creates run on 4 connections and `GET /cloud/bootstrap` on one more, at the same time, for a
// fixed time; the figures are the latencies with the full state over those with the empty one, per round.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { serverTarget } from "./env.mjs";
import { runLoad } from "./load.mjs";
import { startEmulatorProcess } from "./proc.mjs";
import { figure, line, paired, spread } from "./stats.mjs";

const SERVERS = 50_000;
const ROUNDS = 4;
const ROUND = { maxMs: 2_000 };

/** A state file of `count` live, placed servers of `target`'s environment (http ports: no port taken). */
function writeFullState(file, target, count) {
  const now = Date.now();
  const servers = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    servers.push(
      JSON.stringify({
        server: {
          id,
          environment: target.environmentId,
          datacenter: target.datacenter,
          created_at: now - count + i,
          started_at: now - count + i + 1_000,
          tags: { bench: "full-state", n: String(i) },
          resources: { cpu: 250, memory: 256 },
          lifecycle: { kill_timeout: 0 },
          network: {
            mode: "bridge",
            ports: {
              web: {
                protocol: "http",
                internal_port: 8080,
                routing: { game_guard: {} },
                public_hostname: `${id}-web.lobby.${target.datacenter}.example.game`,
                public_port: 80,
              },
            },
          },
          runtime: { build: target.build, arguments: [], environment: {} },
        },
        gameId: target.gameId,
        seq: i + 1,
      }),
    );
  }
  const secret = "b".repeat(64);
  writeFileSync(file, `{"version":1,"secret":"${secret}","servers":[${servers.join(",")}],"exports":[]}\n`);
}

/** One round against `emulator`: creates and bootstraps side by side. */
async function round(emulator, target) {
  const auth = { authorization: `Bearer ${emulator.tokens.user}` };
  const create = {
    method: "POST",
    path: `/games/${target.gameId}/environments/${target.environmentId}/servers`,
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      datacenter: target.datacenter,
      tags: { bench: "full-state" },
      runtime: { build: target.build },
      network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
      resources: { cpu: 250, memory: 256 },
    }),
  };
  const bootstrap = { method: "GET", path: "/cloud/bootstrap", headers: {} };
  const [creates, bootstraps] = await Promise.all([
    runLoad(emulator.url, create, { connections: 4, maxRequests: 20_000, ...ROUND }),
    runLoad(emulator.url, bootstrap, { connections: 1, maxRequests: 200_000, ...ROUND }),
  ]);
  if (creates.errors || bootstraps.errors) throw new Error("errors from the emulator under full state");
  return { creates, bootstraps };
}

/** Runs the comparison and prints its lines and figures. */
export async function fullStateBench() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-full-state-"));
  const probe = await startEmulatorProcess();
  const target = serverTarget(probe.fixture);
  await probe.stop();
  const t0 = performance.now();
  writeFullState(path.join(dir, "full.json"), target, SERVERS);
  const full = await startEmulatorProcess({ stateFile: path.join(dir, "full.json") });
  const startMs = performance.now() - t0;
  const empty = await startEmulatorProcess({ stateFile: path.join(dir, "empty.json") });
  try {
    line(
      `state file with ${SERVERS.toLocaleString("en-US")} servers vs an empty one (written and loaded in ${Math.round(startMs)} ms):`,
    );
    const fullRuns = [];
    const emptyRuns = [];
    await paired(ROUNDS, {
      subject: async () => {
        const r = await round(full, target);
        fullRuns.push(r);
        return r.creates.p50Ms;
      },
      baseline: async () => {
        const r = await round(empty, target);
        emptyRuns.push(r);
        return r.creates.p50Ms;
      },
    });
    const show = (runs, key) =>
      `p50 ${spread(
        runs.map((r) => r[key].p50Ms),
        2,
        " ms",
      )}, p99 ${spread(
        runs.map((r) => r[key].p99Ms),
        2,
        " ms",
      )}, ${spread(
        runs.map((r) => r[key].rps),
        0,
        " req/s",
      )}`;
    for (const [key, name] of [
      ["creates", "POST …/servers (create, 4 connections)"],
      ["bootstraps", "GET /cloud/bootstrap (1 connection, beside the creates)"],
    ]) {
      line(`  ${name}`);
      line(`    ${SERVERS} servers ${show(fullRuns, key)}`);
      line(`    empty         ${show(emptyRuns, key)}`);
      for (const q of ["p50Ms", "p99Ms"]) {
        const ratio = fullRuns.map((r, i) => r[key][q] / emptyRuns[i][key][q]);
        line(`    ${q.slice(0, 3)} ratio ${spread(ratio)}`);
        figure({
          name: `emulator with ${SERVERS} servers/empty state, ${q.slice(0, 3)} latency, ${name}`,
          values: ratio,
        });
      }
    }
  } finally {
    await full.stop();
    await empty.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
