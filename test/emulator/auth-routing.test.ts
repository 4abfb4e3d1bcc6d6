import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { call, codeOf, ids, start } from "./helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.stop());

describe("routing", () => {
  it("answers unknown routes, wrong methods and non-UUID id segments with 404 API_NOT_FOUND", async () => {
    const { gameId, prod } = ids(emu);
    const paths: Array<[string, string]> = [
      ["GET", "/nope"],
      ["GET", "/cloud/games/not-a-uuid"],
      ["GET", `/cloud/games/${gameId.toUpperCase()}`],
      ["PUT", `/cloud/games/${gameId}`],
      ["GET", `/games/${gameId}/environments/${prod.id}/servers/123`],
      ["GET", "/cloud/bootstrap/"],
    ];
    for (const [method, path] of paths) {
      const res = await call(emu, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(codeOf(res)).toBe("API_NOT_FOUND");
    }
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

  it("refuses a cloud token of another game with 401 CLAIMS_MISSING_ENTITLEMENT", async () => {
    const { gameId, prod, otherGame } = ids(emu);
    const token = emu.tokens.cloud[otherGame.id] as string;
    for (const path of [`/cloud/games/${gameId}`, `/games/${gameId}/environments/${prod.id}/servers`]) {
      const res = await call(emu, "GET", path, { token });
      expect([res.status, codeOf(res)], path).toEqual([401, "CLAIMS_MISSING_ENTITLEMENT"]);
    }
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
