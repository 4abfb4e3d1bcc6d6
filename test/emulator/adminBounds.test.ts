/**
 * Admin input bounded (issue #28, finding 6): the fault queue has a cap, and `retryAfterMs` and
 * `count` have ranges; past them the admin route answers 400 naming the field and what is allowed,
 * and nothing is queued. The test API (`faults.inject`) refuses the same.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { MAX_PENDING_FAULTS } from "../../src/emulator/faults";
import { MAX_RETRY_AFTER_MS } from "../../src/emulator/faultTypes";
import { call, codeOf, start } from "./helpers";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ admin: true });
});
afterAll(() => emu.stop());
afterEach(() => emu.faults.clear());

const admin = (method: string, path: string, body?: unknown) =>
  call(emu, method, `/__admin${path}`, {
    token: emu.adminToken ?? null,
    ...(body !== undefined ? { body } : {}),
  });

const messageOf = (res: { body: unknown }) => (res.body as { message: string }).message;

describe("admin faults are bounded", () => {
  it(`queues at most ${MAX_PENDING_FAULTS} faults; the next is a 400 saying how to go on`, async () => {
    for (let i = 0; i < MAX_PENDING_FAULTS; i++) {
      const res = await admin("POST", "/faults", { kind: "error_500", pathGlob: `/nowhere/${i}/**` });
      expect(res.status).toBe(200);
    }
    const refused = await admin("POST", "/faults", { kind: "error_500", pathGlob: "/nowhere/last/**" });
    expect([refused.status, codeOf(refused)]).toEqual([400, "API_BAD_BODY"]);
    expect(messageOf(refused)).toContain(
      `the queue holds ${MAX_PENDING_FAULTS} pending faults, the most it takes`,
    );
    expect(messageOf(refused)).toContain("DELETE /__admin/faults");
    expect(((await admin("GET", "/faults")).body as { faults: unknown[] }).faults).toHaveLength(
      MAX_PENDING_FAULTS,
    );
    expect(() => emu.faults.inject({ kind: "hang" })).toThrow(`the queue holds ${MAX_PENDING_FAULTS}`);
    // A tokenless request still meets the full queue's globs and is answered as before.
    expect((await call(emu, "GET", "/cloud/bootstrap", { token: null })).status).toBe(200);
  });

  it.each([
    [{ retryAfterMs: 8.64e15 }, "retryAfterMs", `at most ${MAX_RETRY_AFTER_MS}`],
    [{ retryAfterMs: 1e300 }, "retryAfterMs", `at most ${MAX_RETRY_AFTER_MS}`],
    [{ retryAfterMs: -1 }, "retryAfterMs", ">=0"],
    [{ count: 1e12 }, "count", "at most 1000000000"],
  ])("refuses %j with a 400 naming %s and the range", async (extra, field, allowed) => {
    const res = await admin("POST", "/faults", { kind: "rate_limit", ...extra });
    expect([res.status, codeOf(res)]).toEqual([400, "API_BAD_BODY"]);
    expect(messageOf(res)).toContain(field);
    expect(messageOf(res)).toContain(allowed);
    expect(((await admin("GET", "/faults")).body as { faults: unknown[] }).faults).toEqual([]);
    expect(() => emu.faults.inject({ kind: "rate_limit", ...extra })).toThrow(field);
  });

  it("the largest retryAfterMs still gives a valid retry-after date", async () => {
    expect(
      (await admin("POST", "/faults", { kind: "rate_limit", retryAfterMs: MAX_RETRY_AFTER_MS })).status,
    ).toBe(200);
    const res = await call(emu, "GET", "/cloud/bootstrap");
    expect(res.status).toBe(429);
    const retryAfter = res.headers.get("retry-after") ?? "";
    expect(retryAfter).not.toContain("Invalid");
    expect(Date.parse(retryAfter)).toBeGreaterThan(Date.now() + MAX_RETRY_AFTER_MS - 2_000);
  });
});
