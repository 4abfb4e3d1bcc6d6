import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerResponse } from "../../src/api/schemas/servers";
import { loadFixture, startEmulator } from "../../src/emulator";
import { readState } from "../../src/emulator/stateFormat";
import { call, codeOf, ids, serverBody, start, until } from "./helpers";

const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("state file", () => {
  it("keeps servers across a restart: create, stop, start again, get and delete", async () => {
    const stateFile = path.join(dir, "servers.json");
    const first = await start({ stateFile, placementDelayMs: 10 });
    const created = ServerResponse.parse(
      (await call(first, "POST", ids(first).serversPath, { body: serverBody(first) })).body,
    ).server;
    const placed = await until(async () => {
      const s = ServerResponse.parse(
        (await call(first, "GET", `${ids(first).serversPath}/${created.id}`)).body,
      ).server;
      return s.started_at !== undefined ? s : undefined;
    });
    await first.stop();
    expect(readState(stateFile)?.servers).toHaveLength(1);

    const second = await start({ stateFile });
    try {
      const again = await call(second, "GET", `${ids(second).serversPath}/${created.id}`);
      expect(again.status).toBe(200);
      expect(ServerResponse.parse(again.body).server).toEqual(placed);
      const del = await call(second, "DELETE", `${ids(second).serversPath}/${created.id}`);
      expect(del.status).toBe(200);
    } finally {
      await second.stop();
    }
    const third = await start({ stateFile });
    try {
      const gone = ServerResponse.parse(
        (await call(third, "GET", `${ids(third).serversPath}/${created.id}`)).body,
      );
      expect(gone.server.destroyed_at).toBeDefined();
    } finally {
      await third.stop();
    }
  });

  it("places, after a restart, a server that was still waiting for placement", async () => {
    const stateFile = path.join(dir, "pending.json");
    const first = await start({ stateFile, placement: "never" });
    const created = ServerResponse.parse(
      (await call(first, "POST", ids(first).serversPath, { body: serverBody(first) })).body,
    ).server;
    await first.stop();
    const second = await start({ stateFile, placementDelayMs: 5 });
    try {
      await until(async () => {
        const s = ServerResponse.parse(
          (await call(second, "GET", `${ids(second).serversPath}/${created.id}`)).body,
        );
        return s.server.started_at;
      });
    } finally {
      await second.stop();
    }
  });

  it.each([
    ["when the export dir is kept", "exports.json", (d: string) => ({ exportDir: path.join(d, "exports") })],
    ["with the state file alone: exports are kept beside it", "exports-alone.json", () => ({})],
  ])("keeps export URLs valid across a restart %s", async (_, name, options) => {
    const stateFile = path.join(dir, name);
    const first = await start({ stateFile, ...options(dir) });
    const res = await call(
      first,
      "POST",
      `/cloud/games/${ids(first).gameId}/matchmaker/lobbies/export-history`,
      {
        body: { query_start: 0, query_end: Date.UTC(2025, 0, 1) },
      },
    );
    const url = new URL((res.body as { url: string }).url);
    const before = await (await fetch(url)).text();
    await first.stop();
    const second = await start({ stateFile, ...options(dir) });
    try {
      url.port = String(second.port);
      const after = await fetch(url);
      expect(after.status).toBe(200);
      expect(await after.text()).toBe(before);
    } finally {
      await second.stop();
    }
  });

  it("refuses a corrupt state file with an error naming it", async () => {
    const stateFile = path.join(dir, "corrupt.json");
    writeFileSync(stateFile, "{ nope");
    await expect(startEmulator({ stateFile })).rejects.toThrow(stateFile);
    writeFileSync(stateFile, JSON.stringify({ version: 1, secret: "x", servers: [], exports: [] }));
    await expect(startEmulator({ stateFile })).rejects.toThrow(/secret/);
  });

  it("does not answer for a server of an unknown id after restart", async () => {
    const stateFile = path.join(dir, "empty.json");
    const e = await start({ stateFile });
    try {
      const res = await call(e, "GET", `${ids(e).serversPath}/00000000-0000-4000-8000-000000000000`);
      expect(codeOf(res)).toBe("SERVERS_SERVER_NOT_FOUND");
    } finally {
      await e.stop();
    }
  });

  it("warns when the state file holds servers of environments its fixture lacks (made with another fixture)", async () => {
    const stateFile = path.join(dir, "other-fixture.json");
    const first = await start({ stateFile, placement: "never" });
    const created = ServerResponse.parse(
      (await call(first, "POST", ids(first).serversPath, { body: serverBody(first) })).body,
    ).server;
    await first.stop();
    // The user's own fixture: the default one without its main game's prod environment.
    const fixture = structuredClone(loadFixture());
    const game = fixture.games[0];
    if (game) game.environments = game.environments.filter((e) => e.id !== created.environment);
    fixture.lobbies = fixture.lobbies.filter((l) => l.environmentId !== created.environment);
    const warnings: string[] = [];
    const second = await start({ stateFile, fixture, onWarning: (m) => warnings.push(m) });
    await second.stop();
    // Before: no word at all; the server stayed, placed on 127.0.0.1, shown by the dashboard, reached by no route.
    expect(warnings).toEqual([
      `the state file ${stateFile} holds 1 server of environments the fixture does not have (${created.environment}): was it made with another fixture? No route reaches them; start with that fixture, or pass another state file (--state).`,
    ]);
  });
});

describe("start-up errors", () => {
  it("reports a port in use", async () => {
    const first = await start();
    try {
      await expect(startEmulator({ port: first.port })).rejects.toThrow(/127\.0\.0\.1:\d+.*EADDRINUSE/);
    } finally {
      await first.stop();
    }
  });

  it("names an option a JavaScript caller misspelt or gave the wrong type, rather than ignoring it", async () => {
    // Before: `dashbord` was ignored, `admin: "yes"` served no admin routes, `placement: "manual"` placed
    // servers as "auto", and the test that relied on them failed later with a 404 or a placed server.
    const refusal = (options: Record<string, unknown>) => startEmulator(options as never);
    await expect(refusal({ dashbord: true })).rejects.toThrow(
      /^Unknown emulator option dashbord \(startEmulator takes port, fixture, .*dashboard.*\)$/,
    );
    await expect(refusal({ admin: "yes" })).rejects.toThrow(
      /^Emulator option admin must be true or false, got "yes"$/,
    );
    await expect(refusal({ placement: "manual" })).rejects.toThrow(
      /^Emulator option placement must be "auto" or "never", got "manual"$/,
    );
    await expect(refusal({ port: "8787" })).rejects.toThrow(
      /^Emulator option port must be a number, got "8787"$/,
    );
  });

  it("rejects negative or fractional durations", async () => {
    await expect(startEmulator({ watchHoldMs: -1 })).rejects.toThrow(/watchHoldMs/);
    await expect(startEmulator({ placementDelayMs: 1.5 })).rejects.toThrow(/placementDelayMs/);
  });
});
