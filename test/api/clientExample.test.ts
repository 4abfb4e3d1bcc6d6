/**
 * The typed client's example (examples/client/index.ts, walked through in docs/client.md) runs as written
 * against the emulator: it loads `pulumi-gamehost/api` from the build, as a user's program would.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { walkthrough } from "../../examples/client";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { liveServers } from "../support/emulator";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ placementDelayMs: 20, watchHoldMs: 200 });
});
afterAll(async () => {
  await emulator?.stop();
});

it("docs/client.md's example runs against the emulator and leaves no server behind", async () => {
  const lines: string[] = [];
  const result = await walkthrough({
    baseUrl: emulator.url,
    token: emulator.tokens.user,
    log: (l) => lines.push(l),
  });
  expect(result).toMatchObject({
    environment: "prod",
    notFoundCode: "SERVERS_SERVER_NOT_FOUND",
    watchedVersions: 1,
  });
  expect(result.endpoint).toMatch(/^[^:]+:\d+$/);
  expect(lines.join("\n")).toContain(`server ${result.serverId} started`);
  expect(liveServers(emulator)).toEqual([]);
});
