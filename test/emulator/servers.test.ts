import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListServersResponse, type Server, ServerResponse } from "../../src/api/schemas/servers";
import type { RunningEmulator } from "../../src/emulator";
import { call, codeOf, ids, serverBody, start, until } from "./helpers";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ placementDelayMs: 30 });
});
afterAll(() => emu.stop());

async function create(overrides: Record<string, unknown> = {}, path = ids(emu).serversPath): Promise<Server> {
  const res = await call(emu, "POST", path, { body: serverBody(emu, overrides) });
  expect(res.status, res.text).toBe(200);
  return ServerResponse.parse(res.body).server;
}

/**
 * Resolves once the clock has moved past the current millisecond: servers created on either side of it
 * differ in `created_at`, so a cursor at the later one counts the earlier as older (the service compares
 * creation times, and two servers of one millisecond are neither older than the other).
 */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await new Promise((resolve) => setImmediate(resolve));
}

async function get(id: string, path = ids(emu).serversPath) {
  return call(emu, "GET", `${path}/${id}`);
}

async function placed(id: string): Promise<Server> {
  return until(async () => {
    const server = ServerResponse.parse((await get(id)).body).server;
    return server.started_at !== undefined ? server : undefined;
  });
}

describe("create", () => {
  it("answers at once, before placement, echoing the defaults", async () => {
    const before = Date.now();
    const server = await create();
    expect(server.created_at).toBeGreaterThanOrEqual(before);
    expect(server.started_at).toBeUndefined();
    expect(server.destroyed_at).toBeUndefined();
    expect(server.environment).toBe(ids(emu).prod.id);
    expect(server.network.mode).toBe("bridge");
    expect(server.runtime.arguments).toEqual([]);
    expect(server.runtime.environment).toEqual({});
    expect(server.lifecycle.kill_timeout).toBe(0);
    expect(server.network.ports.game).toEqual({
      protocol: "udp",
      internal_port: 7777,
      routing: { game_guard: {} },
    });
  });

  it("places the server: game-guard hostnames, fixed http/https ports and ranged free ports", async () => {
    const { game } = ids(emu);
    const server = await create({
      network: {
        mode: "host",
        ports: {
          web: { protocol: "http", internal_port: 8080 },
          secure: { protocol: "https", internal_port: 8443, routing: { game_guard: {} } },
          game: { protocol: "udp", internal_port: 7777 },
          tls: { protocol: "tcp_tls", internal_port: 7778 },
          // Host routing needs no internal port.
          direct: { protocol: "tcp", routing: { host: {} } },
        },
      },
    });
    const live = await placed(server.id);
    expect(live.started_at).toBeGreaterThanOrEqual(live.created_at);
    const dc = game.datacenters.find((d) => d.id === live.datacenter);
    const jobDomain = emu.fixture.bootstrap.domains?.job;
    const hostname = (name: string) => `${live.id}-${name}.lobby.${live.datacenter}.${jobDomain}`;
    const ports = live.network.ports;
    expect(ports.web).toMatchObject({ public_hostname: hostname("web"), public_port: 80 });
    expect(ports.secure).toMatchObject({ public_hostname: hostname("secure"), public_port: 443 });
    for (const name of ["game", "tls"]) {
      expect(ports[name]?.public_hostname).toBe(hostname(name));
      expect(ports[name]?.public_port).toBeGreaterThanOrEqual(20_000);
      expect(ports[name]?.public_port).toBeLessThanOrEqual(31_999);
    }
    expect(ports.direct?.public_hostname).toBe(dc?.nodeIp);
    expect(ports.direct?.public_port).toBeGreaterThanOrEqual(26_000);
    expect(ports.direct?.public_port).toBeLessThanOrEqual(31_999);
    expect(live.network.mode).toBe("host");
  });

  it("never hands the same public port to two live servers of a datacenter", async () => {
    const servers = await Promise.all(Array.from({ length: 8 }, () => create()));
    const live = await Promise.all(servers.map((s) => placed(s.id)));
    const ports = live.map((s) => s.network.ports.game?.public_port);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("holds placement while placement is 'never' and resumes on 'auto'", async () => {
    emu.setPlacement("never");
    const server = await create();
    await new Promise((r) => setTimeout(r, 100));
    expect(ServerResponse.parse((await get(server.id)).body).server.started_at).toBeUndefined();
    emu.setPlacement("auto");
    expect((await placed(server.id)).started_at).toBeDefined();
  });

  it("rejects bad bodies with API_BAD_BODY naming the field", async () => {
    const { serversPath } = ids(emu);
    const cases: Array<[unknown, string]> = [
      [{ ...serverBody(emu), tags: { a: 1 } }, "tags.a"],
      [{ ...serverBody(emu), datacenter: undefined }, "datacenter"],
      [
        serverBody(emu, { network: { ports: { game: { protocol: "quic" } } } }),
        "network.ports.game.protocol",
      ],
      [serverBody(emu, { network: { mode: "overlay", ports: {} } }), "network.mode"],
      [serverBody(emu, { resources: { cpu: 0, memory: 128 } }), "resources.cpu"],
      [serverBody(emu, { lifecycle: { kill_timeout: 7_200_000 } }), "lifecycle.kill_timeout"],
    ];
    for (const [body, field] of cases) {
      const res = await call(emu, "POST", serversPath, { body });
      expect([res.status, codeOf(res)], field).toEqual([400, "API_BAD_BODY"]);
      expect((res.body as { message: string }).message, field).toContain(field);
    }
  });

  it("answers routing rule violations with their own codes", async () => {
    const { serversPath } = ids(emu);
    const both = await call(emu, "POST", serversPath, {
      body: serverBody(emu, {
        network: { ports: { game: { protocol: "udp", routing: { game_guard: {}, host: {} } } } },
      }),
    });
    expect([both.status, codeOf(both)]).toEqual([400, "SERVERS_MUST_SPECIFY_ROUTING_TYPE"]);
    const neither = await call(emu, "POST", serversPath, {
      body: serverBody(emu, { network: { ports: { game: { protocol: "udp", routing: {} } } } }),
    });
    expect(codeOf(neither)).toBe("SERVERS_MUST_SPECIFY_ROUTING_TYPE");
    const hostHttp = await call(emu, "POST", serversPath, {
      body: serverBody(emu, { network: { ports: { web: { protocol: "http", routing: { host: {} } } } } }),
    });
    expect([hostHttp.status, codeOf(hostHttp)]).toEqual([400, "SERVERS_UNSUPPORTED_HOST_PROTOCOL"]);
  });

  it("checks existence with 400 codes: game, environment, datacenter, build", async () => {
    const { gameId, prod, otherGame } = ids(emu);
    const missing = "00000000-0000-4000-8000-000000000000";
    const noGame = await call(emu, "POST", `/games/${missing}/environments/${prod.id}/servers`, {
      body: serverBody(emu),
    });
    expect([noGame.status, codeOf(noGame)]).toEqual([400, "GAME_NOT_FOUND"]);
    const otherEnv = otherGame.environments[0]?.id;
    const noEnv = await call(emu, "POST", `/games/${gameId}/environments/${otherEnv}/servers`, {
      body: serverBody(emu),
    });
    expect([noEnv.status, codeOf(noEnv)]).toEqual([400, "GAME_ENVIRONMENT_NOT_FOUND"]);
    const otherDc = otherGame.datacenters[0]?.id;
    const noDc = await call(emu, "POST", ids(emu).serversPath, {
      body: serverBody(emu, { datacenter: otherDc }),
    });
    expect([noDc.status, codeOf(noDc)]).toEqual([400, "CLUSTER_DATACENTER_NOT_FOUND"]);
    const stagingBuild = ids(emu).staging.builds[0]?.id as string;
    const noBuild = await call(emu, "POST", ids(emu).serversPath, {
      body: serverBody(emu, { runtime: { build: stagingBuild } }),
    });
    expect([noBuild.status, codeOf(noBuild)]).toEqual([400, "BUILDS_BUILD_NOT_FOUND"]);
  });

  it("ignores unknown fields at every level, as a client of a newer version may send them", async () => {
    const body = serverBody(emu, {
      gpu: { count: 1 },
      network: {
        mode: "bridge",
        future: true,
        ports: {
          game: {
            protocol: "udp",
            internal_port: 7777,
            weight: 2,
            routing: { game_guard: { sticky: true }, hint: {} },
          },
        },
      },
      resources: { cpu: 1000, memory: 512, disk: 10 },
      runtime: { build: (ids(emu).prod.builds[0] as { id: string }).id, image: "x" },
      lifecycle: { kill_timeout: 5, grace: 1 },
    });
    const res = await call(emu, "POST", ids(emu).serversPath, { body });
    expect(res.status, res.text).toBe(200);
    const server = ServerResponse.parse(res.body).server;
    // Nothing unknown is echoed: the answer is the server as the service knows it.
    expect(res.text).not.toMatch(/gpu|future|weight|sticky|hint|disk|image|grace/);
    expect(server.network.ports.game).toEqual({
      protocol: "udp",
      internal_port: 7777,
      routing: { game_guard: {} },
    });
  });

  it("reads the body whatever its Content-Type, an empty body as {}, and still refuses broken JSON", async () => {
    const { serversPath } = ids(emu);
    const broken = await call(emu, "POST", serversPath, { body: '{"datacenter": ' });
    expect([broken.status, codeOf(broken)]).toEqual([400, "API_BAD_BODY"]);
    expect((broken.body as { message: string }).message).toContain("not valid JSON");
    const plain = await call(emu, "POST", serversPath, {
      body: JSON.stringify(serverBody(emu)),
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status, plain.text).toBe(200);
    // An empty body is {}: every required field is named missing, not "not JSON".
    const empty = await call(emu, "POST", serversPath, { body: "" });
    expect([empty.status, codeOf(empty)]).toEqual([400, "API_BAD_BODY"]);
    for (const field of ["datacenter", "network", "resources", "runtime", "tags"])
      expect((empty.body as { message: string }).message).toContain(field);
    expect((empty.body as { message: string }).message).not.toContain("JSON");
    const array = await call(emu, "POST", serversPath, { body: "[]" });
    expect(codeOf(array)).toBe("API_BAD_BODY");
  });
});

describe("get and delete", () => {
  it("answers an unknown id, or an id of another environment, with 400 SERVERS_SERVER_NOT_FOUND", async () => {
    const { gameId, staging } = ids(emu);
    const unknown = await get("00000000-0000-4000-8000-000000000000");
    expect([unknown.status, codeOf(unknown)]).toEqual([400, "SERVERS_SERVER_NOT_FOUND"]);
    const server = await create();
    const elsewhere = await get(server.id, `/games/${gameId}/environments/${staging.id}/servers`);
    expect([elsewhere.status, codeOf(elsewhere)]).toEqual([400, "SERVERS_SERVER_NOT_FOUND"]);
    const del = await call(emu, "DELETE", `/games/${gameId}/environments/${staging.id}/servers/${server.id}`);
    expect(codeOf(del)).toBe("SERVERS_SERVER_NOT_FOUND");
  });

  it("sets destroyed_at at once, still returns the server, and records the kill deadline", async () => {
    const server = await create({ lifecycle: { kill_timeout: 30_000 } });
    expect(server.lifecycle.kill_timeout).toBe(30_000);
    const before = Date.now();
    const del = await call(emu, "DELETE", `${ids(emu).serversPath}/${server.id}`);
    expect([del.status, del.body]).toEqual([200, {}]);
    const after = ServerResponse.parse((await get(server.id)).body).server;
    expect(after.destroyed_at).toBeGreaterThanOrEqual(before);
    expect(emu.killDeadline(server.id)).toBe((after.destroyed_at as number) + 30_000);

    const other = await create({ lifecycle: { kill_timeout: 30_000 } });
    await call(emu, "DELETE", `${ids(emu).serversPath}/${other.id}?override_kill_timeout=500`);
    const gone = ServerResponse.parse((await get(other.id)).body).server;
    expect(emu.killDeadline(other.id)).toBe((gone.destroyed_at as number) + 500);
  });

  it("answers a delete of a server already destroyed with {}, changing nothing of the first delete", async () => {
    const server = await create({ lifecycle: { kill_timeout: 30_000 } });
    await call(emu, "DELETE", `${ids(emu).serversPath}/${server.id}?override_kill_timeout=500`);
    const first = ServerResponse.parse((await get(server.id)).body).server;
    const deadline = emu.killDeadline(server.id);
    await new Promise((r) => setTimeout(r, 5));
    const again = await call(emu, "DELETE", `${ids(emu).serversPath}/${server.id}?override_kill_timeout=0`);
    expect([again.status, again.body]).toEqual([200, {}]);
    expect(ServerResponse.parse((await get(server.id)).body).server).toEqual(first);
    expect(emu.killDeadline(server.id)).toBe(deadline);
  });

  it("is never placed once deleted before placement", async () => {
    emu.setPlacement("never");
    const server = await create();
    await call(emu, "DELETE", `${ids(emu).serversPath}/${server.id}`);
    emu.setPlacement("auto");
    await new Promise((r) => setTimeout(r, 80));
    expect(ServerResponse.parse((await get(server.id)).body).server.started_at).toBeUndefined();
  });

  it("validates override_kill_timeout with 400 API_BAD_QUERY_PARAMETER", async () => {
    const server = await create();
    for (const value of ["-1", "7200000", "abc", "1.5"]) {
      const res = await call(
        emu,
        "DELETE",
        `${ids(emu).serversPath}/${server.id}?override_kill_timeout=${value}`,
      );
      expect([res.status, codeOf(res)], value).toEqual([400, "API_BAD_QUERY_PARAMETER"]);
      expect((res.body as { message: string }).message).toContain("override_kill_timeout");
    }
    expect(ServerResponse.parse((await get(server.id)).body).server.destroyed_at).toBeUndefined();
    const ok = await call(
      emu,
      "DELETE",
      `${ids(emu).serversPath}/${server.id}?override_kill_timeout=7199999`,
    );
    expect(ok.status).toBe(200);
  });
});

describe("list", () => {
  it("filters by tag containment, newest first, hides destroyed unless asked, pages with cursor", async () => {
    const { gameId, staging } = ids(emu);
    const path = `/games/${gameId}/environments/${staging.id}/servers`;
    const build = staging.builds[0]?.id as string;
    const make = async (tags: Record<string, string>) => {
      await nextMillisecond();
      return ServerResponse.parse(
        (await call(emu, "POST", path, { body: serverBody(emu, { runtime: { build }, tags }) })).body,
      ).server;
    };
    const a = await make({ team: "red", mode: "ranked" });
    const b = await make({ team: "blue", mode: "ranked" });
    const c = await make({ team: "red", mode: "casual" });
    const d = await make({ team: "red", mode: "ranked" });
    await call(emu, "DELETE", `${path}/${d.id}`);

    const list = async (query: string) =>
      ListServersResponse.parse((await call(emu, "GET", `${path}${query}`)).body).servers.map((s) => s.id);
    expect(await list("")).toEqual([c.id, b.id, a.id]);
    expect(await list("?include_destroyed=true")).toEqual([d.id, c.id, b.id, a.id]);
    const red = encodeURIComponent(JSON.stringify({ team: "red" }));
    expect(await list(`?tags_json=${red}`)).toEqual([c.id, a.id]);
    const redRanked = encodeURIComponent(JSON.stringify({ team: "red", mode: "ranked" }));
    expect(await list(`?tags_json=${redRanked}&include_destroyed=true`)).toEqual([d.id, a.id]);
    expect(await list(`?cursor=${c.id}`)).toEqual([b.id, a.id]);
    expect(await list(`?cursor=${a.id}`)).toEqual([]);
  });

  it("takes any server's id as cursor, of another environment too: servers strictly older than it (docs/service-contract.md §4)", async () => {
    const { gameId, staging, serversPath } = ids(emu);
    const tags = { run: crypto.randomUUID() };
    const older = await create({ tags });
    await nextMillisecond();
    const elsewhere = await create(
      { runtime: { build: staging.builds[0]?.id as string }, tags },
      `/games/${gameId}/environments/${staging.id}/servers`,
    );
    await nextMillisecond();
    const newer = await create({ tags });
    const filter = `tags_json=${encodeURIComponent(JSON.stringify(tags))}`;
    const list = async (query: string) =>
      ListServersResponse.parse(
        (await call(emu, "GET", `${serversPath}?${filter}${query}`)).body,
      ).servers.map((s) => s.id);
    expect(await list("")).toEqual([newer.id, older.id]);
    expect(await list(`&cursor=${elsewhere.id}`)).toEqual([older.id]);
    // An id no server has matches nothing older.
    expect(await list(`&cursor=${crypto.randomUUID()}`)).toEqual([]);
  });

  it("counts as strictly older only a server created before the cursor's millisecond, not one of the same (docs/service-contract.md §4)", async () => {
    // A clock the test moves: servers made while it stands still share their `created_at`, as servers
    // created in one millisecond do on the service, whose cursor compares creation times.
    let at = 1_800_000_000_000;
    const own = await start({ now: () => at });
    try {
      const tags = { run: crypto.randomUUID() };
      const make = async () => {
        const res = await call(own, "POST", ids(own).serversPath, { body: serverBody(own, { tags }) });
        return ServerResponse.parse(res.body).server.id;
      };
      const oldest = await make();
      at += 1;
      const first = await make();
      const second = await make();
      at += 1;
      const newest = await make();
      const list = async (cursor: string) =>
        ListServersResponse.parse(
          (
            await call(
              own,
              "GET",
              `${ids(own).serversPath}?tags_json=${encodeURIComponent(JSON.stringify(tags))}&cursor=${cursor}`,
            )
          ).body,
        ).servers.map((s) => s.id);
      expect(await list(newest)).toEqual([expect.any(String), expect.any(String), oldest]);
      expect(new Set((await list(newest)).slice(0, 2))).toEqual(new Set([first, second]));
      // Neither of the two is older than the other: each cursor skips both.
      expect(await list(second)).toEqual([oldest]);
      expect(await list(first)).toEqual([oldest]);
    } finally {
      await own.stop();
    }
  });

  it("rejects bad query parameters with 400 API_BAD_QUERY_PARAMETER naming them", async () => {
    const { serversPath } = ids(emu);
    const cases: Array<[string, string]> = [
      ["?tags_json=%7Bnot-json", "tags_json"],
      [`?tags_json=${encodeURIComponent("[1]")}`, "tags_json"],
      [`?tags_json=${encodeURIComponent('{"a":1}')}`, "tags_json.a"],
      ["?include_destroyed=yes", "include_destroyed"],
      ["?cursor=nope", "cursor"],
    ];
    for (const [query, field] of cases) {
      const res = await call(emu, "GET", `${serversPath}${query}`);
      expect([res.status, codeOf(res)], query).toEqual([400, "API_BAD_QUERY_PARAMETER"]);
      expect((res.body as { message: string }).message, query).toContain(field);
    }
  });
});

describe("datacenters and builds", () => {
  it("lists the game's datacenters sorted by slug", async () => {
    const { gameId, prod, game } = ids(emu);
    const res = await call(emu, "GET", `/games/${gameId}/environments/${prod.id}/datacenters`);
    const dcs = (res.body as { datacenters: Array<{ id: string; slug: string; name: string }> }).datacenters;
    expect(dcs.map((d) => d.slug)).toEqual(game.datacenters.map((d) => d.slug).sort());
    expect(Object.keys(dcs[0] ?? {}).sort()).toEqual(["id", "name", "slug"]);
  });

  it("lists the environment's builds, filtered by tags_json", async () => {
    const { gameId, prod } = ids(emu);
    const path = `/games/${gameId}/environments/${prod.id}/builds`;
    const all = (await call(emu, "GET", path)).body as {
      builds: Array<{ id: string; tags: Record<string, string> }>;
    };
    expect(all.builds.map((b) => b.id).sort()).toEqual(prod.builds.map((b) => b.id).sort());
    const stable = prod.builds.find((b) => b.tags.channel === "stable");
    const filtered = (
      await call(emu, "GET", `${path}?tags_json=${encodeURIComponent('{"channel":"stable"}')}`)
    ).body as { builds: Array<{ id: string }> };
    expect(filtered.builds.map((b) => b.id)).toEqual([stable?.id]);
  });
});
