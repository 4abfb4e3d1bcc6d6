import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Server, ServerResponse } from "../../src/api/schemas/servers";
import { DEFAULT_FIXTURE_PATH, type FixtureInput, type RunningEmulator } from "../../src/emulator";
import { call, ids, serverBody, start, until } from "./helpers";

// The main game's first datacenter (where `serverBody` creates) gets tiny public port ranges, so a
// handful of servers exhausts them.
const HOST_PORTS = { min: 26_000, max: 26_002 };
const GAME_GUARD_PORTS = { min: 20_000, max: 20_001 };

function tinyFixture(): FixtureInput {
  const fixture = JSON.parse(readFileSync(DEFAULT_FIXTURE_PATH, "utf8")) as FixtureInput;
  const main = fixture.games.find((g) => g.nameId === "space-race");
  const dc = main?.datacenters?.[0];
  if (!dc) throw new Error("default fixture lost the main game's datacenter");
  dc.hostPorts = HOST_PORTS;
  dc.gameGuardPorts = GAME_GUARD_PORTS;
  return fixture;
}

const hostPort = { game: { protocol: "udp", routing: { host: {} } } };
const warnings: string[] = [];
const onWarning = (w: Error) => {
  if (w.name === "GamehostEmulatorWarning") warnings.push(w.message);
};

let emu: RunningEmulator;
beforeAll(() => {
  process.on("warning", onWarning);
});
afterAll(() => {
  process.off("warning", onWarning);
});
afterEach(async () => {
  await emu?.stop();
  warnings.length = 0;
});

async function create(ports: Record<string, unknown>): Promise<Server> {
  const res = await call(emu, "POST", ids(emu).serversPath, {
    body: serverBody(emu, { network: { ports } }),
  });
  expect(res.status, res.text).toBe(200);
  return ServerResponse.parse(res.body).server;
}

/** The server once placement has run for it: started, or exited without starting. */
async function settled(id: string): Promise<Server> {
  return until(async () => {
    const res = await call(emu, "GET", `${ids(emu).serversPath}/${id}`);
    const server = ServerResponse.parse(res.body).server;
    return server.started_at !== undefined || server.destroyed_at !== undefined ? server : undefined;
  });
}

function expectNeverStarted(server: Server): void {
  expect(server.started_at).toBeUndefined();
  expect(server.destroyed_at).toBeGreaterThanOrEqual(server.created_at);
  for (const port of Object.values(server.network.ports)) {
    expect(port.public_hostname).toBeUndefined();
    expect(port.public_port).toBeUndefined();
  }
}

async function expectServing(): Promise<void> {
  expect((await call(emu, "GET", "/cloud/games")).status).toBe(200);
}

describe("placement when a datacenter runs out of public ports", () => {
  it("fails the server that finds no free host port: it exits without starting, the emulator keeps serving", async () => {
    emu = await start({ fixture: tinyFixture(), placementDelayMs: 5 });
    const first = await Promise.all([create(hostPort), create(hostPort), create(hostPort)]);
    const live = await Promise.all(first.map((s) => settled(s.id)));
    const taken = live.map((s) => s.network.ports.game?.public_port);
    expect(live.every((s) => s.started_at !== undefined)).toBe(true);
    expect(new Set(taken)).toEqual(new Set([26_000, 26_001, 26_002]));

    const extra = await create(hostPort);
    const failed = await settled(extra.id);
    expectNeverStarted(failed);
    expect(warnings.some((m) => m.includes(extra.id) && m.includes("no free public port"))).toBe(true);
    await expectServing();

    // A failed server is gone: it is listed only with include_destroyed, and deleting it is a no-op.
    const listed = await call(emu, "GET", ids(emu).serversPath);
    expect((listed.body as { servers: Server[] }).servers.map((s) => s.id)).not.toContain(extra.id);
    expect((await call(emu, "DELETE", `${ids(emu).serversPath}/${extra.id}`)).status).toBe(200);

    // Deleting a live server frees its port for the next one.
    const victim = live[1] as Server;
    expect((await call(emu, "DELETE", `${ids(emu).serversPath}/${victim.id}`)).status).toBe(200);
    const next = await settled((await create(hostPort)).id);
    expect(next.started_at).toBeDefined();
    expect(next.network.ports.game?.public_port).toBe(victim.network.ports.game?.public_port);
  });

  it("places all ports or none: a server short of one port gives back the ones it took", async () => {
    emu = await start({ fixture: tinyFixture(), placementDelayMs: 5 });
    const two = await settled((await create({ a: hostPort.game, b: hostPort.game })).id);
    expect(two.started_at).toBeDefined();

    // One host port is left; a server that needs two cannot start, and leaves that one free.
    const three = await settled((await create({ a: hostPort.game, b: hostPort.game, c: hostPort.game })).id);
    expectNeverStarted(three);
    const one = await settled((await create(hostPort)).id);
    expect(one.started_at).toBeDefined();
    const used = [two.network.ports.a, two.network.ports.b, one.network.ports.game].map(
      (p) => p?.public_port,
    );
    expect(new Set(used)).toEqual(new Set([26_000, 26_001, 26_002]));
  });

  it("fails a game-guard port the same way, while http/https ports (80/443) still place", async () => {
    emu = await start({ fixture: tinyFixture(), placementDelayMs: 5 });
    const udp = { game: { protocol: "udp", internal_port: 7777 } };
    const placed = await Promise.all([create(udp), create(udp)].map(async (s) => settled((await s).id)));
    expect(placed.every((s) => s.started_at !== undefined)).toBe(true);
    expectNeverStarted(await settled((await create(udp)).id));
    const web = await settled((await create({ web: { protocol: "http", internal_port: 8080 } })).id);
    expect(web.network.ports.web?.public_port).toBe(80);
    await expectServing();
  });

  it("rejects a fixture port range whose min is above its max, naming the field", async () => {
    const fixture = tinyFixture();
    const dc = fixture.games.find((g) => g.nameId === "space-race")?.datacenters?.[0];
    if (!dc) throw new Error("no datacenter");
    dc.hostPorts = { min: 27_000, max: 26_000 };
    await expect(start({ fixture })).rejects.toThrow(/datacenters\.0\.hostPorts\.max/);
  });

  it("refuses a range that widens the service's public ports rather than narrowing them (docs/service-contract.md §4)", async () => {
    const fixture = tinyFixture();
    const dc = fixture.games.find((g) => g.nameId === "space-race")?.datacenters?.[0];
    if (!dc) throw new Error("no datacenter");
    // Before: accepted, and servers were placed on public ports 8000–8010, which the service never gives.
    dc.hostPorts = { min: 8_000, max: 8_010 };
    dc.gameGuardPorts = { min: 19_000, max: 20_500 };
    const refusal = start({ fixture });
    await expect(refusal).rejects.toThrow(/datacenters\.0\.hostPorts: must lie within 26000–31999/);
    await expect(refusal).rejects.toThrow(/datacenters\.0\.gameGuardPorts: must lie within 20000–31999/);
  });
});

describe("a game-guard port without internal_port (docs/service-contract.md §4)", () => {
  it("is accepted, but its server never starts: destroyed after the placement delay, no port taken", async () => {
    emu = await start({ fixture: tinyFixture(), placementDelayMs: 30 });
    const cases = [
      { web: { protocol: "http" } },
      { game: { protocol: "udp", routing: { game_guard: {} } } },
      // One such port is enough, however good the others are.
      { ok: { protocol: "udp", internal_port: 7777 }, bad: { protocol: "tcp_tls" } },
    ];
    for (const ports of cases) {
      const before = Date.now();
      const created = await create(ports);
      expect(created.destroyed_at).toBeUndefined();
      const failed = await settled(created.id);
      expectNeverStarted(failed);
      expect(failed.destroyed_at).toBeGreaterThanOrEqual(before + 25);
      expect(warnings.some((m) => m.includes(created.id) && m.includes("internal_port"))).toBe(true);
    }
    // It took none of the datacenter's two game-guard ports: two good servers still start.
    const good = { game: { protocol: "udp", internal_port: 7777 } };
    const placed = await Promise.all([create(good), create(good)].map(async (s) => settled((await s).id)));
    expect(placed.every((s) => s.started_at !== undefined)).toBe(true);
    // A host-routed port needs no internal port.
    expect((await settled((await create(hostPort)).id)).started_at).toBeDefined();
  });
});

describe("timer callbacks never crash the emulator", () => {
  it("turns a failing state-file write during placement into a warning", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-placement-"));
    try {
      // Placement held until the directory is gone: a timer racing the test's own steps would flake under load.
      emu = await start({ stateFile: path.join(dir, "state.json"), placement: "never" });
      const server = await create(hostPort);
      // The state file's directory vanishes before placement writes to it.
      rmSync(dir, { recursive: true, force: true });
      emu.setPlacement("auto");
      await until(() => warnings.some((m) => m.includes("state file")), "the state-file warning");
      expect(emu.servers().find((s) => s.id === server.id)?.started_at).toBeDefined();
      await expectServing();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
