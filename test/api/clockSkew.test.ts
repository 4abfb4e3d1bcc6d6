/**
 * A machine whose clock is minutes off the service's: the instants the service names (a 429's
 * `Retry-After` HTTP date and its `metadata`) are in the service's clock, and its `Date` header says
 * what that clock reads. The client waits as long as the service meant, whatever this machine's clock says.
 */
import { describe, expect, it } from "vitest";
import { type ClientEvent, GamehostClient } from "../../src/api/client";
import { GamehostApiError } from "../../src/api/errors";
import { startEmulator } from "../../src/emulator";
import { failure } from "../support/failure";
import { BOOTSTRAP, json, useScriptedServers } from "./helpers/scriptedServer";

const scripted = useScriptedServers();

const FIVE_MINUTES = 5 * 60_000;

/**
 * A service whose clock reads `skewMs` off this machine's: its first answer is a 429 naming the whole
 * second at least `aheadMs` away on its own clock (as an HTTP date, and in `metadata`), the next ones 200.
 */
async function skewedService(skewMs: number, aheadMs: number, refusals = 1) {
  return scripted((_req, res, n) => {
    const serviceNow = Date.now() + skewMs;
    if (n < refusals) {
      const until = Math.ceil((serviceNow + aheadMs) / 1000) * 1000;
      json(
        res,
        429,
        { code: "API_RATE_LIMIT", message: "Rate limit exceeded.", metadata: until },
        { "retry-after": new Date(until).toUTCString(), date: new Date(serviceNow).toUTCString() },
      );
    } else json(res, 200, BOOTSTRAP, { date: new Date(serviceNow).toUTCString() });
  });
}

function client(url: string, maxRetries = 4, token = "tok") {
  const events: ClientEvent[] = [];
  const c = new GamehostClient({
    baseUrl: url,
    token,
    retry: { maxRetries },
    onEvent: (e) => events.push(e),
  });
  const waits = () => events.flatMap((e) => (e.type === "retry" ? [e.delayMs] : []));
  return { client: c, waits };
}

describe("a client whose clock is off the service's", () => {
  it("ahead by 5 minutes: waits for the instant Retry-After names, not the backoff", async () => {
    // The service's date is 1 to 2 s away on its clock; on this machine's it read 5 minutes in the past.
    const s = await skewedService(-FIVE_MINUTES, 1_000);
    const { client: c, waits } = client(s.url);
    await expect(c.getBootstrap()).resolves.toEqual(BOOTSTRAP);
    const [wait] = waits();
    expect(wait).toBeGreaterThanOrEqual(900);
    expect(wait).toBeLessThanOrEqual(3_200);
  });

  it("behind by 5 minutes: waits the second or two meant, instead of giving up on a 5-minute wait", async () => {
    const s = await skewedService(FIVE_MINUTES, 1_000);
    const { client: c, waits } = client(s.url);
    await expect(c.getBootstrap()).resolves.toEqual(BOOTSTRAP);
    expect(waits()).toHaveLength(1);
    expect(waits()[0]).toBeLessThanOrEqual(3_200);
  });

  it("names the retry instant in this machine's clock (retryAfterMs and the message)", async () => {
    // Ten minutes away on the service's clock, which is 5 minutes behind: still ten minutes away here.
    const s = await skewedService(-FIVE_MINUTES, 600_000, 10);
    const { client: c } = client(s.url, 0);
    const err = await failure(c.getBootstrap());
    expect(err).toBeInstanceOf(GamehostApiError);
    const api = err as GamehostApiError;
    const away = (api.retryAfterMs as number) - Date.now();
    expect(away).toBeGreaterThan(590_000);
    expect(away).toBeLessThanOrEqual(602_000);
    expect(api.message).toContain(new Date(api.retryAfterMs as number).toISOString());
  });

  it("takes the service's instants as they are when the clocks agree within what a Date header says", async () => {
    const until = Math.ceil((Date.now() + 600_000) / 1000) * 1000;
    const s = await scripted((_req, res) =>
      json(
        res,
        429,
        { code: "API_RATE_LIMIT", message: "Rate limit exceeded.", metadata: until },
        // Node's own Date header: this machine's clock, to the second.
        { "retry-after": new Date(until).toUTCString() },
      ),
    );
    const err = await failure(client(s.url, 0).client.getBootstrap());
    expect((err as GamehostApiError).retryAfterMs).toBe(until);
  });
});

describe("the emulator as a service whose clock is off this machine's (its `now` option)", () => {
  it("sends its own clock in the Date header, so a client ahead of it still waits out a 429", async () => {
    const emulator = await startEmulator({ now: () => Date.now() - FIVE_MINUTES });
    try {
      const answer = await fetch(`${emulator.url}/cloud/bootstrap`);
      await answer.arrayBuffer();
      const away = Date.now() - Date.parse(answer.headers.get("date") ?? "");
      expect(away).toBeGreaterThanOrEqual(FIVE_MINUTES - 2_000);
      expect(away).toBeLessThanOrEqual(FIVE_MINUTES + 2_000);

      emulator.faults.inject({
        method: "GET",
        path: "/cloud/bootstrap",
        kind: "rate_limit",
        retryAfterMs: 1_000,
      });
      const { client: c, waits } = client(emulator.url, 4, emulator.tokens.user);
      await c.getBootstrap();
      expect(waits()).toHaveLength(1);
      expect(waits()[0]).toBeGreaterThanOrEqual(900);
    } finally {
      await emulator.stop();
    }
  });
});
