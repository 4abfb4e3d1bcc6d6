/**
 * A Server create refused by a rate-limit window that ends later than it can wait fails at once, and its
 * message says it is the rate limit (429 `API_RATE_LIMIT`, with the request and ray id, as every other
 * refusal of the service) and how to get past it: on the plugin face, whose creates wait as long as the
 * resource's `customTimeouts` allow, by naming them even when none were given (60 s is then the wait).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import type { OperationContext } from "../../src/kinds/kind";
import { serverKind } from "../../src/kinds/server/implementation";
import { serverArgs } from "../support/emulator";

describe("a create refused by a rate-limit window 15 minutes long", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ placementDelayMs: 0 });
  });
  afterAll(() => emulator.stop());

  const refusal = async (face: Omit<OperationContext, "client">) => {
    const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
    const { inputs, failures } = serverKind.check(
      {},
      serverArgs(emulator, { tags: {}, waitForReady: false }),
      {},
    );
    expect(failures).toEqual([]);
    emulator.faults.inject({ method: "POST", kind: "rate_limit", retryAfterMs: 14 * 60_000 });
    return serverKind.create({ client: () => client, ...face }, inputs).then(
      () => "created",
      (e: unknown) => (e as Error).message,
    );
  };

  it("says it is the rate limit, on either face", async () => {
    for (const face of [{ boundDownloads: true }, {}]) {
      const message = await refusal(face);
      expect(message).toMatch(/refuses the create of a server .* until .*: run it again after that time/);
      expect(message).toMatch(/\[POST \/games\/.*\/servers: 429 API_RATE_LIMIT, ray id [\w-]+\]$/);
    }
  });

  it("on the plugin face, names the customTimeouts that let it wait, also when none were given", async () => {
    expect(await refusal({})).toContain("or raise the customTimeouts of the resource");
    expect(await refusal({ boundDownloads: true })).not.toContain("customTimeouts");
  });
});
