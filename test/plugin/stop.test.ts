/**
 * A plugin told to stop (SIGTERM or SIGINT from a supervisor) while a call runs: the call's answer still
 * reaches the caller before the connections close. A create's answer is the only record of the server it
 * made; cutting it off left a live server that no state held.
 */
import { afterEach, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { liveServers, serverArgs } from "../support/emulator";
import { until } from "../support/until";
import { type PluginDriver, type PluginProcess, startPluginOnEmulator } from "./pluginClient";

const SERVER = "gamehost:index:Server";
let emulator: RunningEmulator | undefined;
let plugin: PluginProcess | undefined;

afterEach(async () => {
  await plugin?.stop();
  await emulator?.stop();
});

it("answers a create that was running when the stop came, then exits", async () => {
  let driver: PluginDriver;
  ({ emulator, plugin, driver } = await startPluginOnEmulator());
  const running = emulator;
  const { inputs, failures } = await driver.check(
    SERVER,
    "stopping",
    serverArgs(running, { tags: { role: "stop" }, waitForReady: false }),
  );
  expect(failures).toEqual([]);
  // The POST is held by the emulator long enough for the stop to come while it runs.
  running.faults.inject({ method: "POST", path: /\/servers$/, kind: "latency", latencyMs: 1_000, count: 1 });
  const create = driver.create(SERVER, "stopping", inputs);
  // The fault is taken when the POST arrives.
  await until(() => running.faults.pending().length === 0, "the create's POST");
  const exited = new Promise<number | null>((resolve) => plugin?.child.once("exit", resolve));
  plugin?.child.kill("SIGTERM");
  const { id } = await create;
  const [live, ...others] = liveServers(running);
  expect(others).toEqual([]);
  expect(id).toBe(live?.id);
  expect(await exited).toBe(0);
});
