import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ClientEvent, type ClientOptions, GamehostClient } from "../../src/api/client";
import { GamehostApiError, GamehostNetworkError, GamehostValidationError } from "../../src/api/errors";
import type { CreateServerRequest } from "../../src/api/schemas";
import { LOBBY_HISTORY_COLUMNS } from "../../src/api/schemas";
import { closeSharedDispatchers } from "../../src/api/transport";
import { type RunningEmulator, startEmulator } from "../../src/emulator";

let emu: RunningEmulator;
// Ids of the shipped fixture, read from the emulator so the test follows the fixture.
let game: string;
let otherGame: string;
let env: string;
let otherEnv: string;
let datacenter: string;
let build: string;
let group: string;
let foreignGroup: string;

beforeAll(async () => {
  emu = await startEmulator({ placementDelayMs: 50, watchHoldMs: 300 });
  const [first, second] = emu.fixture.games;
  game = first!.id;
  otherGame = second!.id;
  const prod = first!.environments.find((e) => e.builds.length > 0)!;
  env = prod.id;
  otherEnv = first!.environments.find((e) => e.id !== env)!.id;
  datacenter = first!.datacenters[0]!.id;
  build = prod.builds[0]!.id;
  group = first!.developerGroupId;
  const alice = emu.fixture.tokens.find((t) => t.token === emu.tokens.user);
  const aliceId = alice?.kind === "user" ? alice.identityId : "";
  foreignGroup = emu.fixture.groups.find((g) => !g.members.includes(aliceId))!.id;
});
afterEach(() => emu.faults.clear());
afterAll(async () => {
  await emu.stop();
  await closeSharedDispatchers();
});

function clientWith(token: string | undefined, extra: ClientOptions = {}): GamehostClient {
  return new GamehostClient({
    baseUrl: emu.url,
    token: token ?? "",
    retry: { minDelayMs: 10, maxDelayMs: 50 },
    ...extra,
  });
}
const user = () => clientWith(emu.tokens.user);

async function apiError(promise: Promise<unknown>): Promise<GamehostApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GamehostApiError) return err;
    throw err;
  }
  throw new Error("expected a GamehostApiError");
}

function serverBody(tags: Record<string, string> = {}): CreateServerRequest {
  return {
    datacenter,
    network: { mode: "bridge", ports: { game: { protocol: "udp", internal_port: 7777 } } },
    resources: { cpu: 500, memory: 512 },
    runtime: { build, arguments: ["--port", "7777"], environment: { MODE: "test" } },
    lifecycle: { kill_timeout: 1_000 },
    tags: { suite: "client", ...tags },
  };
}

describe("bootstrap", () => {
  it("answers without a token", async () => {
    await expect(clientWith(undefined).getBootstrap()).resolves.toEqual(emu.fixture.bootstrap);
  });

  it("still checks a token that is sent", async () => {
    const err = await apiError(clientWith("not-a-token").getBootstrap());
    expect(err).toMatchObject({ status: 400, code: "TOKEN_INVALID", isAuthError: true });
    expect(err.rayId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("games", () => {
  it("lists the user's games and groups", async () => {
    const answer = await user().listGames();
    expect(answer.games.map((g) => g.game_id)).toContain(game);
    expect(answer.groups.map((g) => g.group_id)).toContain(group);
    expect(answer.watch.index).toMatch(/^\d+$/);
  });

  it("lists one game and no groups for a cloud token", async () => {
    const answer = await clientWith(emu.tokens.cloud[game]).listGames();
    expect(answer.games.map((g) => g.game_id)).toEqual([game]);
    expect(answer.groups).toEqual([]);
  });

  it("gets a game with its environments and versions", async () => {
    const answer = await user().getGame(game);
    expect(answer.game.game_id).toBe(game);
    expect(answer.game.namespaces.map((n) => n.namespace_id).sort()).toEqual([env, otherEnv].sort());
    expect(answer.game.versions.length).toBeGreaterThan(0);
  });

  it.each([
    ["no token", () => undefined, 401, "API_UNAUTHORIZED", true],
    ["an unknown token", () => "bogus-token", 400, "TOKEN_INVALID", true],
    ["an expired token", () => emu.tokens.expired, 401, "CLAIMS_ENTITLEMENT_EXPIRED", true],
    [
      "another game's cloud token",
      () => emu.tokens.cloud[otherGame],
      401,
      "CLAIMS_MISSING_ENTITLEMENT",
      true,
    ],
    ["a non-member", () => emu.tokens.otherUser, 403, "GROUP_NOT_MEMBER", false],
  ])("refuses a game to %s", async (_name, token, status, code, auth) => {
    const err = await apiError(clientWith(token()).getGame(game));
    expect(err).toMatchObject({
      status,
      code,
      isAuthError: auth,
      method: "GET",
      path: `/cloud/games/${game}`,
    });
  });

  it("reports an unknown game as a 400 not-found", async () => {
    const err = await apiError(user().getGame(randomUUID()));
    expect(err).toMatchObject({ status: 400, code: "GAME_NOT_FOUND", isNotFound: true });
  });

  it("refuses a cloud token a watch of the game list", async () => {
    const cloud = clientWith(emu.tokens.cloud[game]);
    const { watch } = await cloud.listGames();
    const err = await apiError(cloud.listGames({ watchIndex: watch.index }));
    expect(err).toMatchObject({ status: 403, code: "API_FORBIDDEN" });
  });
});

describe("servers", () => {
  it("creates a server that is accepted before it is placed, then placed", async () => {
    const tag = randomUUID();
    const c = user();
    const created = await c.createServer(game, env, serverBody({ run: tag }));
    expect(created).toMatchObject({
      datacenter,
      environment: env,
      tags: { suite: "client", run: tag },
      resources: { cpu: 500, memory: 512 },
      lifecycle: { kill_timeout: 1_000 },
    });
    expect(created.started_at).toBeUndefined();
    expect(created.network.ports.game?.public_port).toBeUndefined();

    let placed = await c.getServer(game, env, created.id);
    for (let i = 0; i < 50 && placed.started_at === undefined; i++) {
      await new Promise((r) => setTimeout(r, 20));
      placed = await c.getServer(game, env, created.id);
    }
    expect(placed.started_at).toBeGreaterThanOrEqual(created.created_at);
    expect(placed.network.ports.game?.public_port).toBeGreaterThan(0);
    expect(placed.network.ports.game?.public_hostname).toBeTruthy();
  });

  it("lists by tags (newest first), pages by cursor and shows destroyed servers on request", async () => {
    const tag = randomUUID();
    const c = user();
    const a = await c.createServer(game, env, serverBody({ run: tag, n: "a" }));
    await new Promise((r) => setTimeout(r, 5));
    const b = await c.createServer(game, env, serverBody({ run: tag, n: "b" }));
    expect((await c.listServers(game, env, { tags: { run: tag } })).map((s) => s.id)).toEqual([b.id, a.id]);
    expect((await c.listServers(game, env, { tags: { run: tag, n: "a" } })).map((s) => s.id)).toEqual([a.id]);
    expect((await c.listServers(game, env, { tags: { run: tag }, cursor: b.id })).map((s) => s.id)).toEqual([
      a.id,
    ]);

    await c.deleteServer(game, env, a.id, { override_kill_timeout: 0 });
    const destroyed = await c.getServer(game, env, a.id);
    expect(destroyed.destroyed_at).toBeGreaterThan(0);
    expect((await c.listServers(game, env, { tags: { run: tag } })).map((s) => s.id)).toEqual([b.id]);
    const all = await c.listServers(game, env, { tags: { run: tag }, include_destroyed: true });
    expect(all.map((s) => s.id)).toEqual([b.id, a.id]);
    await c.deleteServer(game, env, b.id);
  });

  it.each([
    ["server", () => [game, env, randomUUID()] as const, "SERVERS_SERVER_NOT_FOUND"],
    ["environment", () => [game, randomUUID(), randomUUID()] as const, "GAME_ENVIRONMENT_NOT_FOUND"],
    ["game", () => [randomUUID(), env, randomUUID()] as const, "GAME_NOT_FOUND"],
  ])("reports an unknown %s on GET and DELETE", async (_what, ids, code) => {
    const [g, e, s] = ids();
    for (const call of [user().getServer(g, e, s), user().deleteServer(g, e, s)]) {
      const err = await apiError(call);
      expect(err).toMatchObject({ status: 400, code, isNotFound: true });
    }
  });

  it("reports a server of another environment as not found", async () => {
    const c = user();
    const created = await c.createServer(game, env, serverBody());
    const err = await apiError(c.getServer(game, otherEnv, created.id));
    expect(err.code).toBe("SERVERS_SERVER_NOT_FOUND");
    await c.deleteServer(game, env, created.id);
  });

  it.each([
    ["datacenter", () => ({ ...serverBody(), datacenter: randomUUID() }), "CLUSTER_DATACENTER_NOT_FOUND"],
    ["build", () => ({ ...serverBody(), runtime: { build: randomUUID() } }), "BUILDS_BUILD_NOT_FOUND"],
  ])("refuses an unknown %s", async (_what, body, code) => {
    const err = await apiError(user().createServer(game, env, body()));
    expect(err).toMatchObject({ status: 400, code, isNotFound: true });
  });

  it("lets a game's cloud token manage servers and refuses another game's", async () => {
    const cloud = clientWith(emu.tokens.cloud[game]);
    const created = await cloud.createServer(game, env, serverBody());
    await cloud.deleteServer(game, env, created.id);
    // On the servers routes the service calls another game's token forbidden, not unentitled.
    const err = await apiError(clientWith(emu.tokens.cloud[otherGame]).listServers(game, env));
    expect(err).toMatchObject({ status: 403, code: "API_FORBIDDEN", isAuthError: false });
  });

  it("validates a bad body before sending: the service sees nothing", async () => {
    emu.resetRequests();
    const body = {
      ...serverBody(),
      network: { ports: { game: { protocol: "http", routing: { host: {} } } } },
    };
    const err = await user()
      .createServer(game, env, body as CreateServerRequest)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GamehostValidationError);
    expect((err as GamehostValidationError).issues).toEqual([
      expect.objectContaining({
        path: "network.ports.game.protocol",
        apiCode: "SERVERS_UNSUPPORTED_HOST_PROTOCOL",
      }),
    ]);
    expect(emu.requests).toHaveLength(0);
  });

  it("lists datacenters by slug and builds by tag", async () => {
    const c = user();
    const datacenters = await c.listDatacenters(game, env);
    expect(datacenters.map((d) => d.slug)).toEqual([...datacenters.map((d) => d.slug)].sort());
    expect(datacenters.map((d) => d.id)).toContain(datacenter);

    const builds = await c.listBuilds(game, env);
    const fixtureBuilds = emu.fixture.games[0]!.environments.find((e) => e.id === env)!.builds;
    expect(builds.map((b) => b.id).sort()).toEqual(fixtureBuilds.map((b) => b.id).sort());
    const tagged = fixtureBuilds.find((b) => Object.keys(b.tags).length > 0)!;
    const [key, value] = Object.entries(tagged.tags)[0]!;
    const filtered = await c.listBuilds(game, env, { tags: { [key]: value } });
    expect(filtered.map((b) => b.id)).toContain(tagged.id);
    expect(filtered.every((b) => b.tags[key] === value)).toBe(true);
  });
});

describe("lobby history export", () => {
  it("exports a span and downloads the CSV without the token", async () => {
    const c = user();
    const { url } = await c.exportLobbyHistory(game, {
      query_start: 1723766400000,
      query_end: 1723852800000,
    });
    expect(url).toMatch(/^http/);
    const stream = await c.openExport(url);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const rows = parse(Buffer.concat(chunks).toString("utf8")) as string[][];
    expect(rows[0]).toEqual([...LOBBY_HISTORY_COLUMNS]);
    expect(rows.length).toBeGreaterThan(1);
  });

  it("refuses a non-member", async () => {
    const err = await apiError(
      clientWith(emu.tokens.otherUser).exportLobbyHistory(game, { query_start: 1, query_end: 2 }),
    );
    expect(err).toMatchObject({ status: 403, code: "GROUP_NOT_MEMBER" });
  });
});

describe("billing", () => {
  it("reads a group's billing and opens a portal session", async () => {
    const c = user();
    const billing = await c.getGroupBilling(group);
    expect(billing.watch.index).toMatch(/^\d+$/);
    expect(typeof billing.group).toBe("object");
    const session = await c.createPaymentPortalSession(group, { intent: "payment_method_update" });
    expect(session.payment_session_url).toMatch(/^http/);
  });

  it("refuses another group's billing and cloud tokens", async () => {
    expect(await apiError(user().getGroupBilling(foreignGroup))).toMatchObject({
      status: 403,
      code: "GROUP_NOT_MEMBER",
    });
    expect(await apiError(clientWith(emu.tokens.cloud[game]).getGroupBilling(group))).toMatchObject({
      status: 401,
      code: "CLAIMS_MISSING_ENTITLEMENT",
    });
  });

  it("reports billing that is not enabled", async () => {
    emu.mutate.setBillingEnabled(false);
    try {
      expect(await apiError(user().getGroupBilling(group))).toMatchObject({
        status: 400,
        code: "BILLING_NOT_ENABLED",
      });
    } finally {
      emu.mutate.setBillingEnabled(true);
    }
  });
});

describe("faults", () => {
  it("waits out a 429 whose Retry-After is an HTTP date", async () => {
    emu.faults.inject({
      method: "GET",
      path: "/cloud/bootstrap",
      kind: "rate_limit",
      retryAfter: "date",
      retryAfterMs: 300,
    });
    const events: ClientEvent[] = [];
    let answeredBy = 0;
    const c = clientWith(undefined, {
      onEvent: (e) => {
        if (e.type === "retry") answeredBy = Date.now();
        events.push(e);
      },
    });
    const started = Date.now();
    await c.getBootstrap();
    // The service rounds its instant (300 ms after it answered) up to a whole second. It answered between
    // `started` and the retry's notice, so the instant lies between these two.
    const roundedUp = (at: number) => Math.ceil((at + 300) / 1000) * 1000;
    expect(Date.now()).toBeGreaterThanOrEqual(roundedUp(started) - 15);
    // It waited for that instant and no longer, from the answer's arrival (after `started`), plus at most 100 ms
    // of jitter. (Rounding from `started` failed under load: an answer sent 20 ms later can round up to the
    // next second.)
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ status: 429, attempt: 2 });
    expect(retry?.delayMs).toBeLessThanOrEqual(roundedUp(answeredBy) - started + 100);
    expect(c.stats).toEqual({ requests: 1, retries: 1 });
  });

  it("waits out a 429 whose Retry-After is in seconds", async () => {
    emu.faults.inject({
      path: "/cloud/bootstrap",
      kind: "rate_limit",
      retryAfter: "seconds",
      retryAfterMs: 1_000,
    });
    const events: ClientEvent[] = [];
    const c = clientWith(undefined, { onEvent: (e) => events.push(e) });
    const started = Date.now();
    await c.getBootstrap();
    expect(Date.now() - started).toBeGreaterThanOrEqual(980);
    // The 1 s asked for, plus at most 100 ms of jitter, once.
    const waits = events.filter((e) => e.type === "retry").map((e) => e.delayMs);
    expect(waits).toEqual([expect.any(Number)]);
    expect(waits[0]).toBeGreaterThanOrEqual(1_000);
    expect(waits[0]).toBeLessThanOrEqual(1_100);
  });

  it("surfaces a 429 that outlasts the retries with retryAfterMs", async () => {
    emu.faults.inject({ path: "/cloud/bootstrap", kind: "rate_limit", retryAfterMs: 30_000, count: 3 });
    const c = clientWith(undefined, { retry: { maxTotalDelayMs: 1_000 } });
    const before = Date.now();
    const err = await apiError(c.getBootstrap());
    expect(err).toMatchObject({ status: 429, code: "API_RATE_LIMIT", isRateLimited: true });
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(before + 30_000);
    expect(err.retryAfterMs! % 1000).toBe(0);
    expect(err.message).toContain("Rate limited");
  });

  it("retries a GET after a 500 and after a reset", async () => {
    emu.faults.inject({ method: "GET", path: "/cloud/games", kind: "error_500" });
    emu.faults.inject({ method: "GET", path: "/cloud/games", kind: "reset" });
    const c = user();
    await expect(c.listGames()).resolves.toMatchObject({ games: expect.any(Array) });
    expect(c.stats.retries).toBe(2);
  });

  it("retries a DELETE whose answer was lost; the repeat finds the server already destroyed", async () => {
    const c = user();
    const created = await c.createServer(game, env, serverBody());
    emu.faults.inject({ method: "DELETE", kind: "commit_then_reset" });
    await c.deleteServer(game, env, created.id);
    expect(c.stats.retries).toBe(1);
    expect(emu.servers().find((s) => s.id === created.id)?.destroyed_at).toBeGreaterThan(0);
  });

  it("does not retry a POST answered with 500", async () => {
    emu.faults.inject({ method: "POST", kind: "error_500" });
    const tag = randomUUID();
    const c = user();
    const err = await apiError(c.createServer(game, env, serverBody({ run: tag })));
    expect(err).toMatchObject({ status: 500, code: "ERROR" });
    expect(c.stats.retries).toBe(0);
    expect(emu.servers().filter((s) => s.tags.run === tag)).toHaveLength(0);
  });

  it("does not retry a POST whose answer was lost: exactly one server exists", async () => {
    emu.faults.inject({
      method: "POST",
      path: "/games/:game/environments/:env/servers",
      kind: "commit_then_reset",
    });
    const tag = randomUUID();
    const c = user();
    const err = await c.createServer(game, env, serverBody({ run: tag })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GamehostNetworkError);
    expect((err as GamehostNetworkError).mayHaveCommitted).toBe(true);
    expect(c.stats.retries).toBe(0);
    expect(emu.servers().filter((s) => s.tags.run === tag)).toHaveLength(1);
  });

  it("does not retry a POST that committed and then failed with 500", async () => {
    emu.faults.inject({
      method: "POST",
      path: "/games/:game/environments/:env/servers",
      kind: "commit_then_500",
    });
    const tag = randomUUID();
    const err = await apiError(user().createServer(game, env, serverBody({ run: tag })));
    expect(err.status).toBe(500);
    expect(emu.servers().filter((s) => s.tags.run === tag)).toHaveLength(1);
  });

  it("gives up after maxRetries against a persistent fault", async () => {
    emu.faults.inject({ method: "GET", path: "/cloud/bootstrap", kind: "error_500", count: 10 });
    const c = clientWith(undefined, { retry: { maxRetries: 2, minDelayMs: 5, maxDelayMs: 5 } });
    emu.resetRequests();
    const err = await apiError(c.getBootstrap());
    expect(err.status).toBe(500);
    expect(emu.requests.filter((r) => r.path === "/cloud/bootstrap")).toHaveLength(3);
  });
});
