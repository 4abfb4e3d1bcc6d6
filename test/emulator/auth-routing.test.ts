import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { call, codeOf, ids, serverBody, start } from "./helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.stop());

describe("routing", () => {
  it("answers unknown routes and id segments that are no UUID with 404 API_NOT_FOUND", async () => {
    const { gameId, prod } = ids(emu);
    const paths: Array<[string, string]> = [
      ["GET", "/nope"],
      ["GET", "/cloud/games/not-a-uuid"],
      ["GET", `/cloud/games/${gameId}0`],
      ["GET", `/cloud/games/{${gameId.replace(/-/g, "")}}`],
      ["GET", `/games/${gameId}/environments/${prod.id}/servers/123`],
      ["GET", "/cloud/bootstrap/"],
      ["POST", "/nope"],
    ];
    for (const [method, path] of paths) {
      const res = await call(emu, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(codeOf(res)).toBe("API_NOT_FOUND");
    }
  });

  it("answers a known path with a method it does not serve with 400 API_METHOD_NOT_ALLOWED", async () => {
    const { gameId, serversPath, mainGroup } = ids(emu);
    const paths: Array<[string, string]> = [
      ["PUT", `/cloud/games/${gameId}`],
      ["DELETE", "/cloud/games"],
      ["POST", "/cloud/bootstrap"],
      ["GET", `/cloud/groups/${mainGroup}/billing/payment-portal-session`],
      ["PATCH", `${serversPath}/00000000-0000-4000-8000-000000000000`],
      ["PUT", `/cloud/games/${gameId.toUpperCase()}`],
    ];
    for (const [method, path] of paths) {
      // Routing comes first: even without a token.
      const res = await call(emu, method, path, { token: null });
      expect([res.status, codeOf(res)], `${method} ${path}`).toEqual([400, "API_METHOD_NOT_ALLOWED"]);
    }
  });

  it("reads id segments in every form the service parses and answers with canonical ids", async () => {
    const { gameId, prod } = ids(emu);
    const simple = (id: string) => id.replace(/-/g, "");
    const forms = [
      (id: string) => id.toUpperCase(),
      simple,
      (id: string) => simple(id).toUpperCase(),
      (id: string) => `{${id}}`,
      (id: string) => `%7B${id.toUpperCase()}%7D`,
      (id: string) => `urn:uuid:${id}`,
      (id: string) => `URN:UUID:${id.toUpperCase()}`,
    ];
    for (const form of forms) {
      const game = await call(emu, "GET", `/cloud/games/${form(gameId)}`);
      expect(game.status, form(gameId)).toBe(200);
      expect((game.body as { game: { game_id: string } }).game.game_id).toBe(gameId);
    }
    // Through a servers route: the server answered (and stored) in canonical form.
    const created = await call(
      emu,
      "POST",
      `/games/${forms[1]!(gameId)}/environments/${forms[3]!(prod.id)}/servers`,
      {
        body: serverBody(emu),
      },
    );
    expect(created.status, created.text).toBe(200);
    const server = (created.body as { server: { id: string; environment: string } }).server;
    expect(server.environment).toBe(prod.id);
    const got = await call(
      emu,
      "GET",
      `/games/${forms[5]!(gameId)}/environments/${prod.id.toUpperCase()}/servers/${forms[0]!(server.id)}`,
    );
    expect((got.body as { server: { id: string } }).server.id).toBe(server.id);
    // An unknown id in another form is named in canonical form.
    const missing = await call(emu, "GET", `/cloud/games/${simple("0000000A-0000-4000-8000-000000000000")}`);
    expect(codeOf(missing)).toBe("GAME_NOT_FOUND");
    expect((missing.body as { message: string }).message).toContain("0000000a-0000-4000-8000-000000000000");
  });

  it("puts a ray id header on every response and repeats it in error bodies", async () => {
    const ok = await call(emu, "GET", "/cloud/bootstrap");
    expect(ok.headers.get("rvt-ray-id")).toMatch(UUID);
    const notFound = await call(emu, "GET", "/nope");
    const ray = notFound.headers.get("rvt-ray-id");
    expect(ray).toMatch(UUID);
    expect((notFound.body as { ray_id: string }).ray_id).toBe(ray);
    const bad = await call(emu, "GET", "/cloud/games", { token: "nonsense" });
    expect((bad.body as { ray_id: string }).ray_id).toBe(bad.headers.get("rvt-ray-id"));
    expect(ok.headers.get("rvt-ray-id")).not.toBe(ray);
  });

  it("links every coded error to its documentation page, and only the internal ERROR to none", async () => {
    const { gameId, serversPath } = ids(emu);
    const errors = [
      await call(emu, "GET", "/nope"),
      await call(emu, "PUT", `/cloud/games/${gameId}`),
      await call(emu, "GET", "/cloud/games", { token: null }),
      await call(emu, "GET", "/cloud/games", { token: "who-is-this" }),
      await call(emu, "GET", "/cloud/games/00000000-0000-4000-8000-000000000000"),
      await call(emu, "POST", serversPath, { body: "{" }),
      await call(emu, "GET", `${serversPath}?include_destroyed=maybe`),
      await call(emu, "GET", `/cloud/games?watch_index=1`, { token: emu.tokens.cloud[gameId] }),
    ];
    const seen = new Set<string>();
    for (const res of errors) {
      const body = res.body as { code: string; documentation?: string };
      seen.add(body.code);
      expect(body.documentation, body.code).toBe(`https://docs.gamehost.example/errors/${body.code}`);
    }
    expect(seen.size).toBe(errors.length);

    emu.faults.inject({ path: "/cloud/bootstrap", kind: "error_500" });
    const internal = await call(emu, "GET", "/cloud/bootstrap");
    expect(codeOf(internal)).toBe("ERROR");
    expect(internal.body).not.toHaveProperty("documentation");
  });

  it("routes a 404 before checking the token", async () => {
    const res = await call(emu, "GET", "/cloud/games/xyz", { token: null });
    expect(res.status).toBe(404);
  });

  it("logs requests by route pattern", async () => {
    emu.resetRequests();
    await call(emu, "GET", `/cloud/games/${ids(emu).gameId}`);
    await call(emu, "GET", "/nope");
    expect(emu.requests.map((r) => [r.route, r.status])).toEqual([
      ["GET /cloud/games/:game", 200],
      ["GET <unknown>", 404],
    ]);
  });
});

describe("bootstrap", () => {
  it("answers the fixture's bootstrap without a token", async () => {
    const res = await call(emu, "GET", "/cloud/bootstrap", { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(emu.fixture.bootstrap);
  });

  it("answers a self-hosted deployment's bootstrap as the service does: no domains, an empty captcha (docs/service-contract.md §7)", async () => {
    const selfHosted = {
      cluster: "oss",
      access: "private",
      origins: { hub: "http://localhost:5080" },
      captcha: {},
      login_methods: { access_token: true, email: false },
    } as const;
    const local = await start({ fixture: { ...structuredClone(emu.fixture), bootstrap: selfHosted } });
    try {
      const res = await call(local, "GET", "/cloud/bootstrap", { token: null });
      expect([res.status, res.body]).toEqual([200, selfHosted]);
      expect(res.text).not.toMatch(/domains|null/);
    } finally {
      await local.stop();
    }
  });

  it("treats a malformed Authorization header as no token", async () => {
    const res = await call(emu, "GET", "/cloud/bootstrap", {
      token: null,
      headers: { authorization: "Basic abc" },
    });
    expect(res.status).toBe(200);
  });

  it("still checks a token that is sent", async () => {
    expect(codeOf(await call(emu, "GET", "/cloud/bootstrap", { token: "unknown-token" }))).toBe(
      "TOKEN_INVALID",
    );
    const expired = await call(emu, "GET", "/cloud/bootstrap", { token: emu.tokens.expired });
    expect([expired.status, codeOf(expired)]).toEqual([401, "CLAIMS_ENTITLEMENT_EXPIRED"]);
  });
});

describe("auth matrix", () => {
  it("rejects missing, malformed, unknown and expired tokens on every protected route", async () => {
    const { gameId, prod, mainGroup } = ids(emu);
    const routes: Array<[string, string]> = [
      ["GET", "/cloud/games"],
      ["GET", `/cloud/games/${gameId}`],
      ["GET", `/cloud/groups/${mainGroup}/billing`],
      ["GET", `/games/${gameId}/environments/${prod.id}/servers`],
      ["GET", `/games/${gameId}/environments/${prod.id}/datacenters`],
      ["GET", `/games/${gameId}/environments/${prod.id}/builds`],
    ];
    for (const [method, path] of routes) {
      const none = await call(emu, method, path, { token: null });
      expect([none.status, codeOf(none)], path).toEqual([401, "API_UNAUTHORIZED"]);
      const basic = await call(emu, method, path, { token: null, headers: { authorization: "Token abc" } });
      expect([basic.status, codeOf(basic)], path).toEqual([401, "API_UNAUTHORIZED"]);
      const unknown = await call(emu, method, path, { token: "who-is-this" });
      expect([unknown.status, codeOf(unknown)], path).toEqual([400, "TOKEN_INVALID"]);
      const expired = await call(emu, method, path, { token: emu.tokens.expired });
      expect([expired.status, codeOf(expired)], path).toEqual([401, "CLAIMS_ENTITLEMENT_EXPIRED"]);
    }
  });

  it("rejects missing, malformed, unknown and expired tokens on every route that changes something, changing nothing", async () => {
    const { gameId, mainGroup, serversPath } = ids(emu);
    const created = await call(emu, "POST", serversPath, { body: serverBody(emu) });
    const serverId = (created.body as { server: { id: string } }).server.id;
    const routes: Array<[string, string, unknown?]> = [
      ["POST", serversPath, serverBody(emu)],
      ["DELETE", `${serversPath}/${serverId}`],
      ["POST", `/cloud/games/${gameId}/matchmaker/lobbies/export-history`, { query_start: 0, query_end: 1 }],
      ["POST", `/cloud/groups/${mainGroup}/billing/payment-portal-session`, { intent: "general" }],
    ];
    const serversBefore = emu.servers().length;
    for (const [method, path, body] of routes) {
      const withBody = body !== undefined ? { body } : {};
      const none = await call(emu, method, path, { token: null, ...withBody });
      expect([none.status, codeOf(none)], path).toEqual([401, "API_UNAUTHORIZED"]);
      const basic = await call(emu, method, path, {
        token: null,
        headers: { authorization: `Basic ${emu.tokens.user}` },
        ...withBody,
      });
      expect([basic.status, codeOf(basic)], path).toEqual([401, "API_UNAUTHORIZED"]);
      const unknown = await call(emu, method, path, { token: "who-is-this", ...withBody });
      expect([unknown.status, codeOf(unknown)], path).toEqual([400, "TOKEN_INVALID"]);
      const expired = await call(emu, method, path, { token: emu.tokens.expired, ...withBody });
      expect([expired.status, codeOf(expired)], path).toEqual([401, "CLAIMS_ENTITLEMENT_EXPIRED"]);
    }
    expect(emu.servers()).toHaveLength(serversBefore);
    expect(emu.servers().find((s) => s.id === serverId)?.destroyed_at).toBeUndefined();
  });

  it("refuses a cloud token of another game: 401 CLAIMS_MISSING_ENTITLEMENT on cloud routes", async () => {
    const { gameId, otherGame } = ids(emu);
    const token = emu.tokens.cloud[otherGame.id] as string;
    const exportPath = `/cloud/games/${gameId}/matchmaker/lobbies/export-history`;
    const get = await call(emu, "GET", `/cloud/games/${gameId}`, { token });
    expect([get.status, codeOf(get)]).toEqual([401, "CLAIMS_MISSING_ENTITLEMENT"]);
    const post = await call(emu, "POST", exportPath, { token, body: { query_start: 0, query_end: 1 } });
    expect([post.status, codeOf(post)]).toEqual([401, "CLAIMS_MISSING_ENTITLEMENT"]);
  });

  it("refuses a cloud token of another game on servers routes with 403 API_FORBIDDEN, after the environment", async () => {
    const { gameId, prod, otherGame, serversPath } = ids(emu);
    const token = emu.tokens.cloud[otherGame.id] as string;
    const serversBefore = emu.servers().length;
    const routes: Array<[string, string, unknown?]> = [
      ["GET", serversPath],
      ["POST", serversPath, serverBody(emu)],
      ["GET", `${serversPath}/00000000-0000-4000-8000-000000000000`],
      ["DELETE", `${serversPath}/00000000-0000-4000-8000-000000000000`],
      ["GET", `/games/${gameId}/environments/${prod.id}/datacenters`],
      ["GET", `/games/${gameId}/environments/${prod.id}/builds`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(emu, method, path, { token, ...(body ? { body } : {}) });
      expect([res.status, codeOf(res)], `${method} ${path}`).toEqual([403, "API_FORBIDDEN"]);
    }
    // The environment is checked first: an unknown one is named even for such a token.
    const unknownEnv = `/games/${gameId}/environments/00000000-0000-4000-8000-000000000000/servers`;
    const res = await call(emu, "GET", unknownEnv, { token });
    expect([res.status, codeOf(res)]).toEqual([400, "GAME_ENVIRONMENT_NOT_FOUND"]);
    // And the token's own game still works.
    const own = otherGame.environments[0]?.id;
    const mine = await call(emu, "GET", `/games/${otherGame.id}/environments/${own}/servers`, { token });
    expect(mine.status).toBe(200);
    expect(emu.servers()).toHaveLength(serversBefore);
  });

  it("refuses a cloud token on user-only billing routes", async () => {
    const { gameId, mainGroup } = ids(emu);
    const res = await call(emu, "GET", `/cloud/groups/${mainGroup}/billing`, {
      token: emu.tokens.cloud[gameId],
    });
    expect([res.status, codeOf(res)]).toEqual([401, "CLAIMS_MISSING_ENTITLEMENT"]);
  });

  it("refuses a user outside the developer group with 403 GROUP_NOT_MEMBER", async () => {
    const { gameId, prod, mainGroup } = ids(emu);
    for (const path of [
      `/cloud/games/${gameId}`,
      `/games/${gameId}/environments/${prod.id}/servers`,
      `/cloud/groups/${mainGroup}/billing`,
    ]) {
      const res = await call(emu, "GET", path, { token: emu.tokens.otherUser });
      expect([res.status, codeOf(res)], path).toEqual([403, "GROUP_NOT_MEMBER"]);
    }
  });

  it("lets a cloud token of the game and a member use its routes", async () => {
    const { gameId, prod } = ids(emu);
    for (const token of [emu.tokens.user, emu.tokens.cloud[gameId] as string]) {
      const res = await call(emu, "GET", `/games/${gameId}/environments/${prod.id}/datacenters`, { token });
      expect(res.status).toBe(200);
    }
  });

  it("reads the body after the token's validity but before what the token may do (docs/service-contract.md §1)", async () => {
    const { gameId, otherGame, mainGroup } = ids(emu);
    const exportPath = `/cloud/games/${gameId}/matchmaker/lobbies/export-history`;
    const portalPath = `/cloud/groups/${mainGroup}/billing/payment-portal-session`;
    const otherGameToken = emu.tokens.cloud[otherGame.id] as string;
    const cases: Array<[string, string, string, unknown, string]> = [
      [
        "a cloud token of another game",
        exportPath,
        otherGameToken,
        { query_start: 0 },
        "CLAIMS_MISSING_ENTITLEMENT",
      ],
      [
        "a user outside the group",
        portalPath,
        emu.tokens.otherUser,
        { intent: "refund" },
        "GROUP_NOT_MEMBER",
      ],
      [
        "a cloud token on a user route",
        portalPath,
        emu.tokens.cloud[gameId] as string,
        {},
        "CLAIMS_MISSING_ENTITLEMENT",
      ],
    ];
    for (const [who, path, token, badBody, refusal] of cases) {
      const bad = await call(emu, "POST", path, { token, body: badBody });
      expect([bad.status, codeOf(bad)], who).toEqual([400, "API_BAD_BODY"]);
      // With a good body, the refusal of the token itself.
      const good = path === exportPath ? { query_start: 0, query_end: 1 } : { intent: "general" };
      expect(codeOf(await call(emu, "POST", path, { token, body: good })), who).toBe(refusal);
    }
    // An invalid token is still refused before the body is read.
    const invalid = await call(emu, "POST", exportPath, { token: "who-is-this", body: "{not json" });
    expect(codeOf(invalid)).toBe("TOKEN_INVALID");
  });

  it("checks auth before the body, and the body before existence", async () => {
    const { gameId, prod } = ids(emu);
    const path = `/games/${gameId}/environments/${prod.id}/servers`;
    const noAuth = await call(emu, "POST", path, { token: null, body: "{not json" });
    expect(codeOf(noAuth)).toBe("API_UNAUTHORIZED");
    const missingGame = "00000000-0000-4000-8000-000000000000";
    const badBody = await call(emu, "POST", `/games/${missingGame}/environments/${prod.id}/servers`, {
      body: {},
    });
    expect(codeOf(badBody)).toBe("API_BAD_BODY");
  });
});
