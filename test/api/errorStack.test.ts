/**
 * The SDK prints a program's error by its `stack` once the program's main has returned (a data source's
 * Output rejecting later): a message changed after the stack was first read (a data source's 429 restated
 * as "The service rate-limits … until …", the SDK's `error serializing property` prefix dropped) must be
 * the message the stack starts with, or the user reads the text the package replaced.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostError } from "../../src/api/errors";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { dataSourceClientOptions, dataSourceFailure } from "../../src/kinds/dataSourceCalls";

describe("an error's stack after its message changed", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ placementDelayMs: 0 });
  });
  afterAll(() => emulator.stop());

  it("starts with the new message", () => {
    const error = new GamehostError("first words");
    expect(error.stack?.split("\n")[0]).toBe("GamehostError: first words");
    error.message = 'error serializing property "datacenter": second words';
    expect(error.stack?.split("\n")[0]).toBe("GamehostError: second words");
    expect(error.stack).toMatch(/\n\s+at /);
  });

  it("of a data source's 429 restated, starts with the restated message", async () => {
    const client = new GamehostClient({
      baseUrl: emulator.url,
      token: emulator.tokens.user,
      ...dataSourceClientOptions(() => undefined),
    });
    const game = emulator.fixture.games[0]!;
    emulator.faults.inject({ method: "GET", kind: "rate_limit", retryAfterMs: 600_000 });
    const error = await client.listDatacenters(game.id, game.environments[0]!.id).then(
      () => undefined,
      (e: unknown) => dataSourceFailure(e) as Error,
    );
    expect(error?.message).toMatch(/^The service rate-limits GET .* longer than a data source waits/);
    expect(error?.stack?.startsWith(`${error.name}: ${error.message}\n`)).toBe(true);
  });
});
