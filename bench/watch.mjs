#!/usr/bin/env node
// 5. Watch (long poll): (a) wake-up latency — from the instant a mutation is applied inside the emulator
// process to the instant a held `GET /cloud/games/{id}?watch_index=…` answer is read here — for 1 and for
// 100 watchers woken by one change, against the latency of as many plain (unheld) GETs of the same route
// sent at once; (b) memory per held watcher with 5 000 concurrent watchers (emulator process heap and RSS
// growth), against a bare `node:http` server holding 5 000 requests unanswered.
import net from "node:net";
import { Pool } from "undici";
import { machine, serverTarget, wallNow } from "./lib/env.mjs";
import { startBareProcess, startEmulatorProcess } from "./lib/proc.mjs";
import { figure, fmt, line, quantile, spread } from "./lib/stats.mjs";

const TARGET_P99_MS = 10;
const FANOUTS = [
  { watchers: 1, rounds: 200 },
  { watchers: 100, rounds: 30 },
];
const HELD = 5_000;
const MEMORY_ROUNDS = 3;
const BATCHES = 3;

line(`# 5. watch — ${JSON.stringify(machine())}`);

/** Offset of the child's clock from ours (child − parent, ms), from the IPC ping with the smallest round trip. */
async function clockOffset(proc) {
  let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
  for (let i = 0; i < 50; i++) {
    const sent = wallNow();
    const theirs = await proc.call("clock");
    const received = wallNow();
    if (received - sent < best.rtt) best = { rtt: received - sent, offset: theirs - (sent + received) / 2 };
  }
  return best;
}

async function wakeLatency() {
  const emulator = await startEmulatorProcess({ watchHoldMs: 30_000, placementDelayMs: 0 });
  const { gameId } = serverTarget(emulator.fixture);
  const auth = { authorization: `Bearer ${emulator.tokens.user}` };
  const path = `/cloud/games/${gameId}`;
  const pool = new Pool(emulator.url, { connections: 100, pipelining: 1 });
  const get = async (query = "") => {
    const res = await pool.request({ method: "GET", path: `${path}${query}`, headers: auth });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`GET ${path} → ${res.statusCode}`);
    return { at: wallNow(), index: body.watch.index };
  };
  const { rtt, offset } = await clockOffset(emulator);
  line(`clock offset to the emulator process ${fmt(offset, 3)} ms (IPC round trip ${fmt(rtt, 3)} ms)`);
  let playerCount = 1;
  try {
    for (let i = 0; i < 200; i++) await get(); // warm-up
    for (const { watchers, rounds } of FANOUTS) {
      const wake = [];
      const plain = [];
      let { index } = await get();
      // The first changes warm up the watch path (JIT, sockets) and are not recorded.
      for (let r = -5; r < rounds; r++) {
        // Held: wait until every watcher is parked, then change the game inside the emulator.
        const answers = Array.from({ length: watchers }, () => get(`?watch_index=${index}`));
        while ((await emulator.call("watcherCount")) < watchers)
          await new Promise((res) => setTimeout(res, 1));
        const mutatedAt = (await emulator.call("mutate", { gameId, count: playerCount++ })) - offset;
        const done = await Promise.all(answers);
        if (r >= 0) for (const a of done) wake.push(a.at - mutatedAt);
        index = done[0].index;
        // Baseline: as many plain GETs, sent at once.
        const sentAt = wallNow();
        const answered = await Promise.all(Array.from({ length: watchers }, () => get()));
        if (r >= 0) for (const a of answered) plain.push(a.at - sentAt);
      }
      // Percentiles per third of the changes (the spread) and over all of them (pooled).
      const perBatch = (samples, q) => {
        const size = Math.ceil(samples.length / BATCHES);
        return Array.from({ length: BATCHES }, (_, k) =>
          quantile(samples.slice(k * size, (k + 1) * size), q),
        );
      };
      const wake99 = perBatch(wake, 0.99);
      const plain99 = perBatch(plain, 0.99);
      line(`${watchers} watcher(s) per change, ${rounds} changes (${wake.length} answers):`);
      line(
        `  wake-up   p50 ${fmt(quantile(wake, 0.5), 3)} ms, p99 ${fmt(quantile(wake, 0.99), 3)} ms (per third: ${spread(wake99, 3, " ms")}), max ${fmt(Math.max(...wake), 3)} ms (target p99 < ${TARGET_P99_MS} ms)`,
      );
      line(
        `  plain GET p50 ${fmt(quantile(plain, 0.5), 3)} ms, p99 ${fmt(quantile(plain, 0.99), 3)} ms (per third: ${spread(plain99, 3, " ms")}), max ${fmt(Math.max(...plain), 3)} ms`,
      );
      const ratio99 = wake99.map((v, k) => v / plain99[k]);
      line(
        `  ratio wake/plain: p50 ${fmt(quantile(wake, 0.5) / quantile(plain, 0.5))}, p99 ${spread(ratio99)}`,
      );
      figure({
        name: `watch wake-up p99 (ms) per third of ${rounds} changes, ${watchers} watcher(s) woken per change`,
        values: wake99,
        unit: " ms",
        digits: 3,
        target: `< ${TARGET_P99_MS} ms`,
        met: quantile(wake, 0.99) < TARGET_P99_MS,
      });
      figure({
        name: `watch wake-up p50 (ms), ${watchers} watcher(s) per change`,
        values: perBatch(wake, 0.5),
        unit: " ms",
        digits: 3,
      });
      figure({
        name: `watch wake-up p99 / p99 of as many plain GETs sent at once, ${watchers}`,
        values: ratio99,
      });
    }
  } finally {
    await pool.close();
    await emulator.stop();
  }
}

/** Opens `count` sockets to `port` (in batches, within the listen backlog) and sends `request` on each. */
async function holdRequests(port, count, request) {
  const sockets = [];
  for (let i = 0; i < count; i += 250) {
    const batch = Array.from(
      { length: Math.min(250, count - i) },
      () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => {
            socket.write(request);
            resolve(socket);
          });
          socket.on("error", reject);
        }),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

async function untilCount(read, count) {
  const deadline = Date.now() + 60_000;
  while ((await read()) < count) {
    if (Date.now() > deadline) throw new Error(`only ${await read()} of ${count} requests held after 60 s`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Heap and RSS growth of `server`'s process while it holds HELD requests, per request (bytes). */
async function perHeld(server, request, count) {
  const before = await server.call("memory");
  const sockets = await holdRequests(Number(new URL(server.url).port), HELD, request);
  await untilCount(count, HELD);
  const after = await server.call("memory");
  for (const s of sockets) s.destroy();
  return {
    heap: (after.heapUsed + after.external - before.heapUsed - before.external) / HELD,
    rss: (after.rss - before.rss) / HELD,
  };
}

async function memoryPerWatcher() {
  const emu = [];
  const bare = [];
  for (let r = 0; r < MEMORY_ROUNDS; r++) {
    const emulator = await startEmulatorProcess({ watchHoldMs: 120_000, requestTimeCapMs: 130_000 });
    const { gameId } = serverTarget(emulator.fixture);
    const first = await fetch(`${emulator.url}/cloud/games/${gameId}`, {
      headers: { authorization: `Bearer ${emulator.tokens.user}` },
    }).then((res) => res.json());
    const request = `GET /cloud/games/${gameId}?watch_index=${first.watch.index} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${emulator.tokens.user}\r\n\r\n`;
    const held = await startBareProcess({ mode: "hold" });
    try {
      const measureEmulator = async () =>
        emu.push(await perHeld(emulator, request, () => emulator.call("watcherCount")));
      const measureBare = async () => bare.push(await perHeld(held, request, () => held.call("held")));
      if (r % 2 === 0) {
        await measureBare();
        await measureEmulator();
      } else {
        await measureEmulator();
        await measureBare();
      }
    } finally {
      await held.stop();
      await emulator.stop();
    }
  }
  const kb = (v) => v / 1024;
  line(`memory per held request, ${HELD} at once, ${MEMORY_ROUNDS} rounds (fresh processes each):`);
  line(
    `  emulator watcher: heap+external ${spread(
      emu.map((m) => kb(m.heap)),
      2,
      " KiB",
    )}, RSS ${spread(
      emu.map((m) => kb(m.rss)),
      2,
      " KiB",
    )}`,
  );
  line(
    `  bare held request: heap+external ${spread(
      bare.map((m) => kb(m.heap)),
      2,
      " KiB",
    )}, RSS ${spread(
      bare.map((m) => kb(m.rss)),
      2,
      " KiB",
    )}`,
  );
  const ratio = emu.map((m, i) => m.rss / bare[i].rss);
  line(`  RSS ratio emulator/bare ${spread(ratio)}`);
  figure({
    name: `RSS per held watcher (KiB), ${HELD} watchers`,
    values: emu.map((m) => kb(m.rss)),
    unit: " KiB",
  });
  figure({ name: `RSS per held watcher / per held bare node:http request, ${HELD} at once`, values: ratio });
}

await wakeLatency();
await memoryPerWatcher();
