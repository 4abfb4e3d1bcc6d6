// The emulator in a process of its own (forked by `startEmulatorProcess` in proc.mjs), so load generators
// and provider processes never share its event loop. Answers IPC requests `{id, op, args}` with
// `{id, result | error}`.
import { readFileSync } from "node:fs";
import { require } from "./env.mjs";
import { startLatencyProxy } from "./latency-proxy.mjs";

const { startEmulator, DEFAULT_FIXTURE_PATH: fixturePath } = require("pulumi-gamehost/emulator");

let emulator;
let proxy;

function memory() {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

const ops = {
  /**
   * `lobbyGenerators`: added to the default fixture, for the main game. `latencyMs`: also serve through a
   * latency proxy, whose URL is answered as `slowUrl`.
   */
  async start({ options = {}, lobbyGenerators, latencyMs } = {}) {
    let fixture = options.fixture;
    if (lobbyGenerators) {
      const base = JSON.parse(readFileSync(fixturePath, "utf8"));
      const gameId = base.games[0].id;
      fixture = {
        ...base,
        lobbyGenerators: [...(base.lobbyGenerators ?? []), ...lobbyGenerators.map((g) => ({ gameId, ...g }))],
      };
    }
    emulator = await startEmulator({ ...options, ...(fixture ? { fixture } : {}) });
    if (latencyMs) proxy = await startLatencyProxy(emulator.port, latencyMs);
    return {
      url: emulator.url,
      ...(proxy ? { slowUrl: `http://127.0.0.1:${proxy.port}` } : {}),
      port: emulator.port,
      tokens: emulator.tokens,
      fixture: emulator.fixture,
      ...(emulator.adminToken ? { adminToken: emulator.adminToken } : {}),
    };
  },
  connectionCount: () => emulator.connectionCount(),
  watcherCount: () => emulator.watcherCount(),
  requestCount: () => emulator.requests.length,
  liveServers: () => emulator.servers().filter((s) => s.destroyed_at === undefined).length,
  memory,
  /** This process's wall clock (see env.mjs `wallNow`), to estimate the offset between processes. */
  clock: () => performance.timeOrigin + performance.now(),
  /** CPU time used so far, µs (user, system). */
  cpu: () => process.cpuUsage(),
  /** A game update (a new logo) that wakes the game's watchers; answers the wall-clock instant just before it. */
  mutate({ gameId, count }) {
    const at = performance.timeOrigin + performance.now();
    emulator.mutate.setGameLogo(gameId, `https://cdn.example.game/logos/${count}.png`);
    return at;
  },
  async stop() {
    await proxy?.close();
    await emulator?.stop();
    setImmediate(() => process.exit(0));
    return true;
  },
};

process.on("message", async ({ id, op, args }) => {
  try {
    const result = await ops[op](args);
    process.send({ id, result });
  } catch (err) {
    process.send({ id, error: err instanceof Error ? err.stack || err.message : String(err) });
  }
});
process.on("disconnect", () => process.exit(0));
