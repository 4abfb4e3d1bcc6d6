import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { adminCall, call, codeOf, ids, rawRequest, serverBody, start, until } from "./helpers";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ admin: true, placementDelayMs: 10 });
});
afterAll(() => emu.stop());

const admin = (method: string, path: string, body?: unknown) => adminCall(emu, method, path, body);

/** A request with exactly these headers (fetch would not send a foreign Host), its JSON body parsed. */
async function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: { code?: string; message?: string } }> {
  const res = await rawRequest(emu, method, path, headers, body);
  return { status: res.status, body: JSON.parse(res.text) };
}

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

  it("inject, list and clear faults (path or pathGlob)", async () => {
    expect(
      (await admin("POST", "/faults", { kind: "error_500", pathGlob: "/cloud/boot*", count: 2 })).status,
    ).toBe(200);
    const listed = (await admin("GET", "/faults")).body as {
      faults: Array<{ pathGlob: string; remaining: number }>;
    };
    expect(listed.faults).toEqual([
      expect.objectContaining({ kind: "error_500", pathGlob: "/cloud/boot*", remaining: 2 }),
    ]);
    expect((await call(emu, "GET", "/cloud/games")).status).toBe(200);
    expect((await call(emu, "GET", "/cloud/bootstrap")).status).toBe(500);
    expect((await admin("DELETE", "/faults")).status).toBe(200);
    expect((await call(emu, "GET", "/cloud/bootstrap")).status).toBe(200);
    const bad = await admin("POST", "/faults", { kind: "explode" });
    expect([bad.status, codeOf(bad)]).toEqual([400, "API_BAD_BODY"]);
    expect((bad.body as { message: string }).message).toContain("kind");
  });

  it("list each fault with the settings of its kind only, and refuse another kind's settings", async () => {
    const injected = [
      { kind: "latency", latencyMs: 300, path: "/cloud/games" },
      { kind: "error_status", status: 502, path: "/cloud/games" },
      { kind: "rate_limit", retryAfter: "seconds", retryAfterMs: 2_000, path: "/cloud/games" },
      { kind: "reset", path: "/cloud/games" },
    ];
    let answer: unknown;
    for (const spec of injected) answer = (await admin("POST", "/faults", spec)).body;
    const common = { path: "/cloud/games", remaining: 1 };
    const expected = [
      { ...common, kind: "latency", latencyMs: 300 },
      { ...common, kind: "error_status", status: 502 },
      { ...common, kind: "rate_limit", retryAfter: "seconds", retryAfterMs: 2_000 },
      { ...common, kind: "reset" },
    ];
    // toStrictEqual: a key the kind does not use (a latency fault's retryAfterMs) fails it.
    expect(answer).toStrictEqual({ faults: expected });
    expect((await admin("GET", "/faults")).body).toStrictEqual({ faults: expected });
    await admin("DELETE", "/faults");
    for (const field of ["retryAfter", "retryAfterMs"] as const) {
      const value = field === "retryAfter" ? "date" : 500;
      const wrong = await admin("POST", "/faults", { kind: "latency", [field]: value });
      expect([wrong.status, codeOf(wrong)]).toEqual([400, "API_BAD_BODY"]);
      expect((wrong.body as { message: string }).message).toContain(
        `${field}: is only for kind "rate_limit"`,
      );
    }
    expect((await admin("GET", "/faults")).body).toStrictEqual({ faults: [] });
    // A status the kind cannot answer: named with the statuses it can (as docs/emulator.md lists them).
    const teapot = await admin("POST", "/faults", { kind: "error_status", status: 418 });
    expect([teapot.status, codeOf(teapot)]).toEqual([400, "API_BAD_BODY"]);
    expect((teapot.body as { message: string }).message).toContain("status: must be 500, 502, 503 or 504");
  });

  it("refuse a regular expression, and match an adversarial glob at once", async () => {
    // The pattern that froze the emulator at 99 % CPU when it took regular expressions.
    const evil = await admin("POST", "/faults", { kind: "error_500", pathRegex: "^([\\/a-z0-9-]+)+!$" });
    // Where it was taken, the next API request would freeze this process: clear it before asserting.
    if (evil.status === 200) await admin("DELETE", "/faults");
    expect([evil.status, codeOf(evil)]).toEqual([400, "API_BAD_BODY"]);
    expect((evil.body as { message: string }).message).toMatch(/pathRegex.*use pathGlob/);
    const both = await admin("POST", "/faults", { kind: "error_500", path: "/x", pathGlob: "/x" });
    expect((both.body as { message: string }).message).toContain("path or pathGlob");
    // Stars against a path that almost matches: matched in linear time, so the emulator answers at once.
    const { serversPath } = ids(emu);
    const glob = `${"**-".repeat(60)}!`;
    expect((await admin("POST", "/faults", { kind: "error_500", pathGlob: glob })).status).toBe(200);
    expect((await call(emu, "GET", serversPath)).status).toBe(200);
    await admin("DELETE", "/faults");
    await admin("POST", "/faults", { kind: "error_500", pathGlob: "/games/*/environments/*/servers" });
    expect((await call(emu, "GET", serversPath)).status).toBe(500);
    await admin("DELETE", "/faults");
  });

  it("refuse a request without the admin token, with another token, or a body not declared JSON", async () => {
    const body = JSON.stringify({ op: "setTotalPlayerCount", gameId: ids(emu).gameId, count: 7 });
    const json = { "content-type": "application/json" };
    const bearer = { authorization: `Bearer ${emu.adminToken}` };
    const cases: Array<[Record<string, string>, number, string]> = [
      [json, 401, "API_UNAUTHORIZED"],
      [{ ...json, authorization: `Bearer ${emu.tokens.user}` }, 401, "API_UNAUTHORIZED"],
      [{ ...json, authorization: `Bearer ${emu.adminToken}x` }, 401, "API_UNAUTHORIZED"],
      // The cross-site form post that renamed a game: text/plain needs no CORS preflight.
      [{ ...bearer, "content-type": "text/plain" }, 415, "API_BAD_BODY"],
      [bearer, 415, "API_BAD_BODY"],
    ];
    for (const [headers, status, code] of cases) {
      const res = await raw("POST", "/__admin/mutate", headers, body);
      expect([res.status, res.body.code], JSON.stringify(headers)).toEqual([status, code]);
    }
    // A route that takes no body (a kill) still needs the header, and the refusal says so: a user's first
    // `curl -X POST …/kill` sends none, and was told "Admin requests with a body must send it as JSON".
    const kill = `/__admin/servers/${crypto.randomUUID()}/kill`;
    const bare = await raw("POST", kill, bearer);
    expect([bare.status, bare.body.code]).toEqual([415, "API_BAD_BODY"]);
    expect(bare.body.message).toMatch(
      /also a route that takes none \(a kill\): set Content-Type: application\/json/,
    );
    const declared = await raw("POST", kill, { ...bearer, ...json });
    expect([declared.status, declared.body.code]).toEqual([400, "SERVERS_SERVER_NOT_FOUND"]);
    expect((await raw("GET", "/__admin/servers", {})).status).toBe(401);
    const players = async () =>
      (
        (await call(emu, "GET", `/cloud/games/${ids(emu).gameId}`)).body as {
          game: { total_player_count: number };
        }
      ).game.total_player_count;
    expect(await players()).not.toBe(7);
    const accepted = await raw(
      "POST",
      "/__admin/mutate",
      { ...bearer, "content-type": "application/json; charset=utf-8" },
      body,
    );
    expect(accepted.status).toBe(200);
    expect(await players()).toBe(7);
  });

  it("name the fields a mutation takes when it is given one it does not (billing's are the wire's, snake_case)", async () => {
    const groupId = emu.fixture.groups[0]!.id;
    const res = await admin("POST", "/mutate", {
      op: "setBilling",
      groupId,
      patch: { paymentSucceededTs: null },
    });
    expect([res.status, codeOf(res)]).toEqual([400, "API_BAD_BODY"]);
    expect((res.body as { message: string }).message).toContain(
      "patch.paymentSucceededTs: is not a known field (known: payment_failed_ts, payment_method_attached_ts, payment_method_valid_ts, payment_succeeded_ts)",
    );
    const op = await admin("POST", "/mutate", {
      op: "setGameDisplayName",
      gameId: ids(emu).gameId,
      name: "x",
    });
    expect((op.body as { message: string }).message).toContain(
      "name: is not a known field (known: op, gameId, displayName)",
    );
  });

  it("refuse a request addressed to another host name (DNS rebinding) or sent by another origin", async () => {
    const good = { authorization: `Bearer ${emu.adminToken}` };
    for (const host of ["evil.example", `evil.example:${emu.port}`, `127.0.0.1.evil.example:${emu.port}`]) {
      const res = await raw("GET", "/__admin/faults", { ...good, host });
      expect([res.status, res.body.code], host).toEqual([403, "API_FORBIDDEN"]);
    }
    for (const host of [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`, "localhost"]) {
      expect((await raw("GET", "/__admin/faults", { ...good, host })).status, host).toBe(200);
    }
    const foreign = await raw("GET", "/__admin/faults", { ...good, origin: "https://evil.example" });
    expect([foreign.status, foreign.body.code]).toEqual([403, "API_FORBIDDEN"]);
    const local = await raw("GET", "/__admin/faults", { ...good, origin: `http://localhost:${emu.port}` });
    expect(local.status).toBe(200);
  });

  it("leaves a server already destroyed as it is on a kill: no exit, its kill deadline kept (docs/emulator.md)", async () => {
    const created = await call(emu, "POST", ids(emu).serversPath, {
      body: serverBody(emu, { lifecycle: { kill_timeout: 60_000 } }),
    });
    const id = (created.body as { server: { id: string } }).server.id;
    await until(() => emu.servers().find((s) => s.id === id && s.started_at !== undefined));
    await call(emu, "DELETE", `${ids(emu).serversPath}/${id}`);
    const deadline = emu.killDeadline(id);
    const killed = await admin("POST", `/servers/${id}/kill`, {});
    expect(killed.status).toBe(200);
    expect(killed.body).not.toHaveProperty("exit");
    expect(emu.killDeadline(id)).toBe(deadline);
  });

  it("moves the clock forward: an export URL expires an hour later without waiting, times follow, never back", async () => {
    const before = (await admin("GET", "/clock")).body as { now: string; offsetMs: number };
    expect(before.offsetMs).toBe(0);
    const exported = await call(
      emu,
      "POST",
      `/cloud/games/${ids(emu).gameId}/matchmaker/lobbies/export-history`,
      {
        body: { query_start: 1, query_end: 2 },
      },
    );
    const url = (exported.body as { url: string }).url;
    expect((await fetch(url)).status).toBe(200);

    const moved = await admin("POST", "/clock", { advanceMs: 3_600_001 });
    const after = moved.body as { now: string; offsetMs: number };
    expect([moved.status, after.offsetMs]).toEqual([200, 3_600_001]);
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(3_600_001);
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { message: string }).message).toContain("expired");
    // The service's Date header reads the same clock (a client measures its offset from it).
    const dated = Date.parse((await fetch(`${emu.url}/cloud/games`)).headers.get("date") ?? "");
    expect(dated).toBeGreaterThanOrEqual(Date.parse(after.now) - 1_000);

    for (const [advanceMs, reason] of [
      [-1, "only moves forward"],
      [1.5, "whole number of milliseconds"],
      ["60000", "expected number"],
    ] as const) {
      const bad = await admin("POST", "/clock", { advanceMs });
      expect([bad.status, codeOf(bad)]).toEqual([400, "API_BAD_BODY"]);
      expect((bad.body as { message: string }).message).toContain("advanceMs");
      expect((bad.body as { message: string }).message).toContain(reason);
    }
    expect(((await admin("GET", "/clock")).body as { offsetMs: number }).offsetMs).toBe(3_600_001);
    // Advances add up, and not past 100 years ahead (each alone within range).
    const tooFar = await admin("POST", "/clock", { advanceMs: 100 * 365.25 * 86_400_000 });
    expect([tooFar.status, codeOf(tooFar)]).toEqual([400, "API_BAD_BODY"]);
    expect((tooFar.body as { message: string }).message).toContain("3600001 ms ahead now");
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

  it("applies game updates, which wake watchers, and answers the ids of what they create", async () => {
    const { gameId, game, staging } = ids(emu);
    const index = ((await call(emu, "GET", `/cloud/games/${gameId}`)).body as { watch: { index: string } })
      .watch.index;
    const held = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    await until(() => (emu.watcherCount() === 1 ? true : undefined));
    expect((await admin("GET", "/watchers")).body).toEqual({ count: 1 });
    const version = await admin("POST", "/mutate", {
      op: "publishVersion",
      gameId,
      version: { displayName: "v3" },
    });
    expect(version.status).toBe(200);
    const versionId = (version.body as { id: string }).id;
    const woken = (await held).body as { game: { versions: { version_id: string; display_name: string }[] } };
    expect(woken.game.versions.at(-1)).toMatchObject({ version_id: versionId, display_name: "v3" });

    const env = await admin("POST", "/mutate", {
      op: "createEnvironment",
      gameId,
      environment: { nameId: "qa", displayName: "QA", versionId },
    });
    const environmentId = (env.body as { id: string }).id;
    expect(environmentId).toMatch(/^[0-9a-f]{8}-/);
    // A new environment is one of the game's at once: its servers routes answer.
    expect((await call(emu, "GET", `/games/${gameId}/environments/${environmentId}/servers`)).status).toBe(
      200,
    );
    const ops = [
      { op: "setGameLogo", gameId, logoUrl: "https://cdn.example.game/l.png" },
      { op: "setGameBanner", gameId, bannerUrl: "https://cdn.example.game/b.png" },
      { op: "setEnvironmentVersion", gameId, environmentId: staging.id, versionId },
    ];
    for (const op of ops) expect((await admin("POST", "/mutate", op)).body, op.op).toEqual({});
    const after = (await call(emu, "GET", `/cloud/games/${gameId}`)).body as {
      game: {
        logo_url: string;
        banner_url: string;
        namespaces: { namespace_id: string; version_id: string }[];
      };
    };
    expect(after.game).toMatchObject({
      logo_url: "https://cdn.example.game/l.png",
      banner_url: "https://cdn.example.game/b.png",
    });
    expect(after.game.namespaces.find((n) => n.namespace_id === staging.id)?.version_id).toBe(versionId);
    expect(after.game.namespaces.find((n) => n.namespace_id === environmentId)).toBeDefined();
    expect(game.environments.map((e) => e.id)).toContain(environmentId);
  });

  it("applies quiet changes without waking a watcher", async () => {
    const { gameId } = ids(emu);
    const index = ((await call(emu, "GET", `/cloud/games/${gameId}`)).body as { watch: { index: string } })
      .watch.index;
    const held = call(emu, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    await until(() => (emu.watcherCount() === 1 ? true : undefined));
    expect((await admin("POST", "/mutate", { op: "setTotalPlayerCount", gameId, count: 55 })).status).toBe(
      200,
    );
    expect(emu.watcherCount()).toBe(1);
    expect(((await held).body as { game: { total_player_count: number } }).game.total_player_count).toBe(55);
  });

  it("refuses an invalid mutation with 400 API_BAD_BODY naming what is wrong", async () => {
    const { gameId, staging } = ids(emu);
    const missing = "00000000-0000-4000-8000-000000000000";
    const cases: Array<[unknown, string]> = [
      [{ op: "setTotalPlayerCount", gameId: missing, count: 1 }, missing],
      [{ op: "explode" }, "op"],
      [
        { op: "createEnvironment", gameId, environment: { nameId: "x", displayName: "X" } },
        "environment.versionId",
      ],
      [
        {
          op: "createEnvironment",
          gameId,
          environment: { nameId: "prod", displayName: "P", versionId: staging.versionId },
        },
        "prod",
      ],
      [{ op: "setEnvironmentVersion", gameId, environmentId: staging.id, versionId: missing }, missing],
      [
        { op: "setEnvironmentVersion", gameId, environmentId: missing, versionId: staging.versionId },
        missing,
      ],
      [{ op: "publishVersion", gameId, version: { displayName: "" } }, "version.displayName"],
      [{ op: "setGameLogo", gameId }, "logoUrl"],
    ];
    for (const [body, named] of cases) {
      const res = await admin("POST", "/mutate", body);
      expect([res.status, codeOf(res)], JSON.stringify(body)).toEqual([400, "API_BAD_BODY"]);
      expect((res.body as { message: string }).message, JSON.stringify(body)).toContain(named);
    }
  });

  it("reads and resets the request log, without logging itself", async () => {
    await admin("DELETE", "/requests");
    await call(emu, "GET", "/cloud/bootstrap");
    const log = (await admin("GET", "/requests")).body as { requests: Array<{ route: string }> };
    expect(log.requests.map((r) => r.route)).toEqual(["GET /cloud/bootstrap"]);
  });
});
