/**
 * The requests monitor's stream sends each request once: a request made while no dashboard was open is in
 * the snapshot of the page that opens next, and must not come again with the next `requests` event (the page
 * listed it twice, up to the 500 the monitor keeps).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { start, until } from "./helpers";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ dashboard: true });
});
afterAll(() => emu.stop());

const get = async (path: string) =>
  (await fetch(`${emu.url}${path}`, { headers: { authorization: `Bearer ${emu.tokens.user}` } })).text();

describe("the dashboard's requests stream", () => {
  it("does not send again a request the snapshot had", async () => {
    await get("/cloud/games");
    const abort = new AbortController();
    const res = await fetch(`${emu.url}/__admin/events`, {
      headers: { authorization: `Bearer ${emu.adminToken}` },
      signal: abort.signal,
    });
    const seqs: number[] = [];
    let text = "";
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          text += decoder.decode(chunk, { stream: true });
        }
      } catch {
        // aborted
      }
    })();
    try {
      const blocks = () =>
        text
          .split("\n\n")
          .map((b) => ({ name: /^event: (.*)$/m.exec(b)?.[1], data: /^data: (.*)$/m.exec(b)?.[1] }))
          .filter((b) => b.name && b.data);
      await until(() => blocks().find((b) => b.name === "snapshot"));
      await get("/cloud/bootstrap");
      await until(() => blocks().find((b) => b.name === "requests" && b.data?.includes("/cloud/bootstrap")));
      for (const b of blocks()) {
        const data = JSON.parse(b.data ?? "null");
        if (b.name === "snapshot") seqs.push(...data.requests.map((r: { seq: number }) => r.seq));
        if (b.name === "requests") seqs.push(...data.map((r: { seq: number }) => r.seq));
      }
      expect(seqs).toEqual([...new Set(seqs)]);
      expect(seqs.length).toBe(2);
    } finally {
      abort.abort();
    }
  });
});
