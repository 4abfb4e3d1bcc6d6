import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { emptyproto, engineproto, enginerpc } from "../../src/plugin/proto";
import { startTestEmulator } from "../support/emulator";
import { grpc, PluginCallError, PluginDriver, PluginProcess, secret } from "./pluginClient";

/** What the fake engine was told, in order. */
const logged: { severity: number; message: string }[] = [];
let engine: InstanceType<typeof grpc.Server>;
let emulator: RunningEmulator;
let plugin: PluginProcess;
let driver: PluginDriver;

beforeAll(async () => {
  engine = new grpc.Server();
  engine.addService(enginerpc.EngineService, {
    log: (
      call: { request: InstanceType<typeof engineproto.LogRequest> },
      callback: (e: null, r: unknown) => void,
    ) => {
      logged.push({ severity: call.request.getSeverity(), message: call.request.getMessage() });
      callback(null, new emptyproto.Empty());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    engine.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  emulator = await startTestEmulator();
  plugin = await PluginProcess.start(
    { GAMEHOST_BASE_URL: undefined, GAMEHOST_TOKEN: undefined },
    `127.0.0.1:${port}`,
  );
  driver = new PluginDriver(plugin);
  await driver.configure({ baseUrl: emulator.url, token: secret(emulator.tokens.user) });
});
afterAll(async () => {
  await plugin?.stop();
  await emulator?.stop();
  engine?.forceShutdown();
});
afterEach(() => {
  emulator.faults.clear();
  logged.length = 0;
});

describe("a rate-limited invoke of the plugin", () => {
  it("waits for the Retry-After and tells the engine, as a warning, while it waits", {
    timeout: 20_000,
  }, async () => {
    emulator.faults.inject({ path: "/cloud/games", kind: "rate_limit", retryAfterMs: 1_200 });
    const { result, failures } = await driver.invoke("gamehost:index:getGames", {});
    expect(failures).toEqual([]);
    expect((result.games as unknown[]).length).toBeGreaterThan(0);
    expect(logged).toEqual([
      {
        severity: engineproto.LogSeverity.WARNING,
        message: expect.stringMatching(
          /^GET \/cloud\/games: rate limited by the service; retrying in [23] s \(attempt 2 of 5\)$/,
        ),
      },
    ]);
  });

  it("fails at once past the bound, naming the endpoint and the instant", { timeout: 20_000 }, async () => {
    emulator.faults.inject({ path: "/cloud/games", kind: "rate_limit", retryAfterMs: 50_000 });
    emulator.resetRequests();
    const error = await driver.invoke("gamehost:index:getGames", {}).catch((e: unknown) => e);
    // "At once": one request and no retry (waiting out the 50 s would pass the test's timeout, a hang guard).
    expect(emulator.requests.filter((r) => r.path === "/cloud/games")).toHaveLength(1);
    expect(error).toBeInstanceOf(PluginCallError);
    expect((error as Error).message).toMatch(
      /The service rate-limits GET \/cloud\/games until \d{4}-\d\d-\d\dT[\d:.]+Z \(Retry-After, in 5\d s\), longer than a data source waits \(30 s in all\)/,
    );
    expect(logged).toEqual([]);
  });
});

describe("a rate-limited invoke when this machine's clock is 5 minutes behind the service's", () => {
  it("waits the second or two the service meant, not a 5-minute wait it refuses", {
    timeout: 20_000,
  }, async () => {
    const ahead = await startTestEmulator({ now: () => Date.now() + 5 * 60_000 });
    try {
      await driver.configure({ baseUrl: ahead.url, token: secret(ahead.tokens.user) });
      ahead.faults.inject({ path: "/cloud/games", kind: "rate_limit", retryAfterMs: 1_200 });
      const { result, failures } = await driver.invoke("gamehost:index:getGames", {});
      expect(failures).toEqual([]);
      expect((result.games as unknown[]).length).toBeGreaterThan(0);
      expect(logged.map((l) => l.message)).toEqual([
        expect.stringMatching(
          /^GET \/cloud\/games: rate limited by the service; retrying in [234] s \(attempt 2 of 5\)$/,
        ),
      ]);
    } finally {
      await driver.configure({ baseUrl: emulator.url, token: secret(emulator.tokens.user) });
      await ahead.stop();
    }
  });
});
