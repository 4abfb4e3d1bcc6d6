import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetGameResponse, GetGroupBillingResponse, ListGamesResponse } from "../../src/api/schemas/cloud";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { call, codeOf, ids, start } from "./helpers";

const RFC3339_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Rust's order of strings (the service's): by their UTF-8 bytes. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.stop());

describe("GET /cloud/games", () => {
  it("lists the games of every group of the user, and those groups", async () => {
    const res = await call(emu, "GET", "/cloud/games");
    expect(res.status).toBe(200);
    const body = ListGamesResponse.parse(res.body);
    const { userIdentity } = ids(emu);
    const myGroups = emu.fixture.groups.filter((g) => g.members.includes(userIdentity));
    const myGames = emu.fixture.games.filter((g) => myGroups.some((gr) => gr.id === g.developerGroupId));
    expect(myGroups.length).toBeGreaterThanOrEqual(2);
    expect(body.groups.map((g) => g.group_id).sort()).toEqual(myGroups.map((g) => g.id).sort());
    expect(body.games.map((g) => g.game_id).sort()).toEqual(myGames.map((g) => g.id).sort());
    expect(body.groups.every((g) => g.is_current_identity_member)).toBe(true);
    expect(body.games.map((g) => g.game_id)).not.toContain(ids(emu).otherGame.id);
    for (const group of body.groups) {
      const source = myGroups.find((g) => g.id === group.group_id);
      expect(group.member_count).toBe(source?.members.length);
      expect(group.external.profile).toBe(`${emu.fixture.bootstrap.origins.hub}/groups/${group.group_id}`);
    }
  });

  it("gives each game its public URL and its developer group's profile link", async () => {
    const body = ListGamesResponse.parse((await call(emu, "GET", "/cloud/games")).body);
    const main = body.games.find((g) => g.game_id === ids(emu).gameId);
    expect(main?.url).toBe(ids(emu).game.url);
    expect(main?.developer.group_id).toBe(ids(emu).mainGroup);
    expect(main?.developer.external.profile).toBe(
      `${emu.fixture.bootstrap.origins.hub}/groups/${ids(emu).mainGroup}`,
    );
  });

  it("omits optional fields instead of sending null", async () => {
    const res = await call(emu, "GET", "/cloud/games");
    expect(res.text).not.toContain("null");
    const noLogo = (res.body as { games: Array<Record<string, unknown>> }).games.find(
      (g) => g.game_id !== ids(emu).gameId,
    );
    expect(noLogo && "logo_url" in noLogo).toBe(false);
  });

  it("sends the deprecated is_developer: true on every group summary (docs/service-contract.md §7)", async () => {
    // Even for a group the fixture marks as no developer group: in a summary the field is a constant.
    const fixture = structuredClone(emu.fixture);
    const mine = fixture.groups.filter((g) => g.members.includes(ids(emu).userIdentity));
    (mine[0] as (typeof fixture.groups)[number]).isDeveloper = false;
    const local = await startEmulator({ fixture });
    try {
      const body = (await call(local, "GET", "/cloud/games")).body as { groups: Record<string, unknown>[] };
      expect(body.groups).toHaveLength(mine.length);
      for (const group of body.groups) expect(group.is_developer).toBe(true);
    } finally {
      await local.stop();
    }
  });

  it("lists only its own game, and no groups, for a cloud token", async () => {
    const { gameId } = ids(emu);
    const body = ListGamesResponse.parse(
      (await call(emu, "GET", "/cloud/games", { token: emu.tokens.cloud[gameId] })).body,
    );
    expect(body.games.map((g) => g.game_id)).toEqual([gameId]);
    expect(body.groups).toEqual([]);
  });

  it("forbids a cloud token to watch the list", async () => {
    const res = await call(emu, "GET", "/cloud/games?watch_index=1", {
      token: emu.tokens.cloud[ids(emu).gameId],
    });
    expect([res.status, codeOf(res)]).toEqual([403, "API_FORBIDDEN"]);
  });

  it("reads the watch_index before refusing a cloud token its watch, as it reads a body before permissions", async () => {
    const res = await call(emu, "GET", "/cloud/games?watch_index=soon", {
      token: emu.tokens.cloud[ids(emu).gameId],
    });
    expect([res.status, codeOf(res)]).toEqual([400, "API_BAD_QUERY_PARAMETER"]);
  });
});

describe("GET /cloud/games/{game_id}", () => {
  it("returns the game with namespaces by display name and versions oldest first", async () => {
    const { gameId, game } = ids(emu);
    const res = await call(emu, "GET", `/cloud/games/${gameId}`);
    const body = GetGameResponse.parse(res.body);
    expect(body.game.game_id).toBe(gameId);
    const names = body.game.namespaces.map((n) => n.display_name);
    expect(names).toEqual([...names].sort(byUtf8));
    expect(names).toHaveLength(game.environments.length);
    const created = body.game.versions.map((v) => Date.parse(v.create_ts));
    expect(created).toEqual([...created].sort((a, b) => a - b));
    // The fixture lists them the other way round, so the sorting is the emulator's doing.
    expect(game.environments.map((e) => e.displayName)).not.toEqual(names);
    for (const ts of [body.game.create_ts, ...body.game.versions.map((v) => v.create_ts)]) {
      expect(ts).toMatch(RFC3339_MS);
    }
    expect(body.watch.index).toMatch(/^\d+$/);
  });

  it("sorts namespaces by display name as the service compares strings: by their bytes, not a locale's collation", async () => {
    const local = await start();
    try {
      const { gameId, game } = ids(local);
      const versionId = (game.versions[0] as { id: string }).id;
      for (const displayName of ["alpha", "Beta", "Ärger", "zeta"]) {
        const nameId = `env-${local.fixture.games[0]?.environments.length}`;
        local.mutate.createEnvironment(gameId, { nameId, displayName, versionId });
      }
      const body = GetGameResponse.parse((await call(local, "GET", `/cloud/games/${gameId}`)).body);
      const names = body.game.namespaces.map((n) => n.display_name);
      // Upper case before lower case, and "Ä" (U+00C4) after "z": a locale would put alpha, Ärger, Beta, zeta.
      expect(names.filter((n) => ["alpha", "Beta", "Ärger", "zeta"].includes(n))).toEqual([
        "Beta",
        "alpha",
        "zeta",
        "Ärger",
      ]);
      expect(names).toEqual([...names].sort(byUtf8));
    } finally {
      await local.stop();
    }
  });

  it('sends the deprecated universal_region: "unknown" on every region summary (docs/service-contract.md §7)', async () => {
    for (const game of emu.fixture.games.filter((g) => g.regions.length > 0)) {
      const res = await call(emu, "GET", `/cloud/games/${game.id}`, { token: emu.tokens.cloud[game.id] });
      const regions = (res.body as { game: { available_regions: Record<string, unknown>[] } }).game
        .available_regions;
      expect(regions).toHaveLength(game.regions.length);
      for (const region of regions) expect(region.universal_region).toBe("unknown");
    }
  });

  it("answers an unknown game with 400 GAME_NOT_FOUND", async () => {
    const res = await call(emu, "GET", "/cloud/games/00000000-0000-4000-8000-000000000000");
    expect([res.status, codeOf(res)]).toEqual([400, "GAME_NOT_FOUND"]);
  });

  it("rejects a watch_index that is not a number, before checking existence", async () => {
    const res = await call(emu, "GET", `/cloud/games/${ids(emu).gameId}?watch_index=abc`);
    expect([res.status, codeOf(res)]).toEqual([400, "API_BAD_QUERY_PARAMETER"]);
    expect((res.body as { message: string }).message).toContain("watch_index");
    const missing = await call(
      emu,
      "GET",
      "/cloud/games/00000000-0000-4000-8000-000000000000?watch_index=1.5",
    );
    expect(codeOf(missing)).toBe("API_BAD_QUERY_PARAMETER");
  });

  it("serves fixture timestamps in the service's form: milliseconds and Z", async () => {
    const fixture = structuredClone(emu.fixture);
    const game = fixture.games.find((g) => g.id === ids(emu).gameId);
    if (game) game.createTs = "2024-08-16T07:35:01+02:00";
    const local = await startEmulator({ fixture });
    try {
      const body = GetGameResponse.parse(
        (await call(local, "GET", `/cloud/games/${ids(local).gameId}`)).body,
      );
      expect(body.game.create_ts).toBe("2024-08-16T05:35:01.000Z");
    } finally {
      await local.stop();
    }
  });
});

describe("billing", () => {
  it("returns the group's billing record with unset fields omitted", async () => {
    for (const group of emu.fixture.groups.filter((g) => g.members.includes(ids(emu).userIdentity))) {
      const res = await call(emu, "GET", `/cloud/groups/${group.id}/billing`);
      const body = GetGroupBillingResponse.parse(res.body);
      expect(body.group).toEqual(group.billing);
      expect(res.text).not.toContain("null");
    }
  });

  it("creates a payment portal session for a valid intent", async () => {
    const { mainGroup } = ids(emu);
    const path = `/cloud/groups/${mainGroup}/billing/payment-portal-session`;
    const a = await call(emu, "POST", path, { body: { intent: "general" } });
    const b = await call(emu, "POST", path, { body: { intent: "payment_method_update" } });
    const urlA = (a.body as { payment_session_url: string }).payment_session_url;
    const urlB = (b.body as { payment_session_url: string }).payment_session_url;
    expect(urlA.startsWith(`${emu.fixture.bootstrap.origins.hub}/billing/portal/`)).toBe(true);
    expect(urlA).not.toBe(urlB);
  });

  it("ignores unknown fields of a portal-session body", async () => {
    const path = `/cloud/groups/${ids(emu).mainGroup}/billing/payment-portal-session`;
    const res = await call(emu, "POST", path, { body: { intent: "general", return_url: "https://x" } });
    expect(res.status, res.text).toBe(200);
  });

  it("rejects an unknown intent naming the field", async () => {
    const path = `/cloud/groups/${ids(emu).mainGroup}/billing/payment-portal-session`;
    const res = await call(emu, "POST", path, { body: { intent: "refund" } });
    expect([res.status, codeOf(res)]).toEqual([400, "API_BAD_BODY"]);
    expect((res.body as { message: string }).message).toContain("intent");
    const missing = await call(emu, "POST", path, { body: {} });
    expect((missing.body as { message: string }).message).toContain("intent");
  });

  it("answers BILLING_NOT_ENABLED when the deployment has no billing", async () => {
    const off = await startEmulator({ fixture: { ...structuredClone(emu.fixture), billingEnabled: false } });
    try {
      const group = ids(off).mainGroup;
      const get = await call(off, "GET", `/cloud/groups/${group}/billing`);
      expect([get.status, codeOf(get)]).toEqual([400, "BILLING_NOT_ENABLED"]);
      const post = await call(off, "POST", `/cloud/groups/${group}/billing/payment-portal-session`, {
        body: { intent: "general" },
      });
      expect(codeOf(post)).toBe("BILLING_NOT_ENABLED");
    } finally {
      await off.stop();
    }
  });
});
