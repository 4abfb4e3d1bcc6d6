import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { call, codeOf, ids, serverBody, start, until } from "./helpers";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ admin: true, placementDelayMs: 10 });
});
afterAll(() => emu.stop());

const admin = (method: string, path: string, body?: unknown) =>
  call(emu, method, `/__admin${path}`, { token: null, ...(body !== undefined ? { body } : {}) });

describe("admin routes", () => {
  it("are absent without admin: true", async () => {
    const plain = await start();
    try {
      const res = await call(plain, "GET", "/__admin/faults", { token: null });
      expect([res.status, codeOf(res)]).toEqual([404, "API_NOT_FOUND"]);
    } finally {
      await plain.stop();
    }
  });

  it("inject, list and clear faults (path or pathRegex)", async () => {
    expect(
      (await admin("POST", "/faults", { kind: "error_500", pathRegex: "^/cloud/boot", count: 2 })).status,
    ).toBe(200);
    const listed = (await admin("GET", "/faults")).body as {
      faults: Array<{ pathRegex: string; remaining: number }>;
    };
    expect(listed.faults).toMatchObject([{ kind: "error_500", remaining: 2 }]);
    expect(new RegExp(listed.faults[0]?.pathRegex as string).test("/cloud/bootstrap")).toBe(true);
    expect((await call(emu, "GET", "/cloud/bootstrap")).status).toBe(500);
    expect((await admin("DELETE", "/faults")).status).toBe(200);
    expect((await call(emu, "GET", "/cloud/bootstrap")).status).toBe(200);
    const bad = await admin("POST", "/faults", { kind: "explode" });
    expect([bad.status, codeOf(bad)]).toEqual([400, "API_BAD_BODY"]);
    expect((bad.body as { message: string }).message).toContain("kind");
  });

  it("switches placement", async () => {
    expect((await admin("POST", "/placement", { mode: "never" })).status).toBe(200);
    const created = await call(emu, "POST", ids(emu).serversPath, { body: serverBody(emu) });
    const id = (created.body as { server: { id: string } }).server.id;
    await new Promise((r) => setTimeout(r, 50));
    expect(emu.servers().find((s) => s.id === id)?.started_at).toBeUndefined();
    await admin("POST", "/placement", { mode: "auto" });
    await until(() => emu.servers().find((s) => s.id === id)?.started_at);
    const servers = (await admin("GET", "/servers")).body as { servers: Array<{ id: string }> };
    expect(servers.servers.map((s) => s.id)).toContain(id);
    expect(codeOf(await admin("POST", "/placement", { mode: "sometimes" }))).toBe("API_BAD_BODY");
  });

  it("mutates watched data and wakes watchers", async () => {
    const { gameId } = ids(emu);
    const index = ((await call(emu, "GET", `/cloud/games/${gameId}`)).body as { watch: { index: string } })
      .watch.index;
    const held = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    await until(() => (emu.watcherCount() === 1 ? true : undefined));
    expect((await admin("GET", "/watchers")).body).toEqual({ count: 1 });
    expect((await admin("POST", "/mutate", { op: "setTotalPlayerCount", gameId, count: 55 })).status).toBe(
      200,
    );
    expect(((await held).body as { game: { total_player_count: number } }).game.total_player_count).toBe(55);
    const unknown = await admin("POST", "/mutate", {
      op: "setTotalPlayerCount",
      gameId: "00000000-0000-4000-8000-000000000000",
      count: 1,
    });
    expect([unknown.status, codeOf(unknown)]).toEqual([400, "API_BAD_BODY"]);
  });

  it("reads and resets the request log, without logging itself", async () => {
    await admin("DELETE", "/requests");
    await call(emu, "GET", "/cloud/bootstrap");
    const log = (await admin("GET", "/requests")).body as { requests: Array<{ route: string }> };
    expect(log.requests.map((r) => r.route)).toEqual(["GET /cloud/bootstrap"]);
  });
});
