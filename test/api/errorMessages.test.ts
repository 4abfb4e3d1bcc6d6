/**
 * Errors a user can act on: each service refusal, met through GamehostClient, says what happened,
 * what to do (which config key or env var, which id, when to retry) and the ray id to quote —
 * and never carries the token.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { CONFIG_KEYS, readSettings } from "../../src/api/config";
import { GamehostApiError, GamehostNetworkError } from "../../src/api/errors";
import type { CreateServerRequest } from "../../src/api/schemas";
import { closeSharedDispatchers } from "../../src/api/transport";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { json, type ScriptedServer, startScripted } from "./helpers/scriptedServer";
import { startSelfSigned } from "./helpers/selfSignedServer";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN_KEY = CONFIG_KEYS.token.key;
const TOKEN_ENV = CONFIG_KEYS.token.env;

let emu: RunningEmulator;
let game: string;
let env: string;
let datacenter: string;
let build: string;
let foreignGame: string;

beforeAll(async () => {
  emu = await startEmulator({ placementDelayMs: 20, watchHoldMs: 200 });
  const main = emu.fixture.games[0]!;
  game = main.id;
  const prod = main.environments.find((e) => e.builds.length > 0)!;
  env = prod.id;
  datacenter = main.datacenters[0]!.id;
  build = prod.builds[0]!.id;
  const alice = emu.fixture.tokens.find((t) => t.token === emu.tokens.user);
  const aliceId = alice?.kind === "user" ? alice.identityId : "";
  const foreignGroup = emu.fixture.groups.find((g) => !g.members.includes(aliceId))!.id;
  foreignGame = emu.fixture.games.find((g) => g.developerGroupId === foreignGroup)!.id;
});
afterAll(async () => {
  await emu.stop();
  await closeSharedDispatchers();
});

/** A client built as the Pulumi faces build one: every setting from Pulumi config. */
function client(token: string, baseUrl = emu.url): GamehostClient {
  const config: Record<string, string> = {
    [CONFIG_KEYS.baseUrl.key]: baseUrl,
    [TOKEN_KEY]: token,
    [CONFIG_KEYS.maxRetries.key]: "0",
  };
  return new GamehostClient(readSettings((key) => config[key]));
}

/** What `promise` rejects with (undefined when it resolves). */
function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

async function apiError(promise: Promise<unknown>): Promise<GamehostApiError> {
  const err = await rejectionOf(promise);
  expect(err).toBeInstanceOf(GamehostApiError);
  return err as GamehostApiError;
}

/**
 * The message names the status and code, says each of `mentions`, ends with the ray id, and the
 * token is nowhere in the error: not in its message, stack, fields or inspected form.
 */
function expectActionable(
  err: GamehostApiError,
  expected: { status: number; code: string; mentions: (string | RegExp)[]; token: string },
): void {
  expect(err.status).toBe(expected.status);
  expect(err.code).toBe(expected.code);
  expect(err.message).toContain(`${expected.status} ${expected.code}`);
  for (const m of expected.mentions) {
    if (typeof m === "string") expect(err.message).toContain(m);
    else expect(err.message).toMatch(m);
  }
  expect(err.rayId).toMatch(UUID);
  expect(err.message).toContain(`ray id ${err.rayId}`);
  expect(err.message).not.toMatch(/\.\./);
  // Short: one line, the cause once, no empty fields when inspected.
  expect(err.message.split("\n")).toHaveLength(1);
  expect(err.message.length).toBeLessThan(400);
  expect(inspect(err)).not.toContain("undefined");
  if (expected.token) {
    for (const text of [err.message, err.stack ?? "", JSON.stringify(err), inspect(err, { depth: 5 })]) {
      expect(text).not.toContain(expected.token);
    }
  }
}

const newServer = (overrides: Partial<CreateServerRequest> = {}): CreateServerRequest => ({
  datacenter,
  network: { ports: { game: { protocol: "udp" } } },
  resources: { cpu: 500, memory: 256 },
  runtime: { build },
  tags: {},
  ...overrides,
});

describe("authentication errors name where the token came from (here Pulumi config), or where to set one", () => {
  it("401 API_UNAUTHORIZED without a token", async () => {
    const err = await apiError(client("").listGames());
    expectActionable(err, {
      status: 401,
      code: "API_UNAUTHORIZED",
      mentions: [TOKEN_KEY, TOKEN_ENV, "pulumi config set --secret"],
      token: "",
    });
    expect(err.isAuthError).toBe(true);
  });

  it("401 CLAIMS_ENTITLEMENT_EXPIRED for an expired token, saying it expired", async () => {
    const token = emu.tokens.expired;
    const err = await apiError(client(token).getGame(game));
    expectActionable(err, {
      status: 401,
      code: "CLAIMS_ENTITLEMENT_EXPIRED",
      mentions: [/expired/i, TOKEN_KEY, "pulumi config set --secret"],
      token,
    });
  });

  it("400 TOKEN_INVALID for a token the service never issued", async () => {
    const token = `gh_live_${randomUUID()}`;
    const err = await apiError(client(token).listServers(game, env));
    expectActionable(err, {
      status: 400,
      code: "TOKEN_INVALID",
      mentions: [/not valid/, TOKEN_KEY, "pulumi config set --secret"],
      token,
    });
    expect(err.isAuthError).toBe(true);
  });

  it("401 CLAIMS_MISSING_ENTITLEMENT for a cloud token of another game", async () => {
    const token = emu.tokens.cloud[foreignGame]!;
    const err = await apiError(client(token).getGame(game));
    expectActionable(err, {
      status: 401,
      code: "CLAIMS_MISSING_ENTITLEMENT",
      mentions: [/this game.s cloud token/, TOKEN_KEY, "pulumi config set --secret"],
      token,
    });
  });

  it("401 CLAIMS_MISSING_ENTITLEMENT for a cloud token on a group's billing: only a member's user token will do", async () => {
    // The game's own cloud token, on its own developer group: no cloud token is entitled to group routes.
    const token = emu.tokens.cloud[game]!;
    const group = emu.fixture.games[0]!.developerGroupId;
    for (const call of [
      () => client(token).getGroupBilling(group),
      () => client(token).createPaymentPortalSession(group, { intent: "general" }),
    ]) {
      const err = await apiError(call());
      expectActionable(err, {
        status: 401,
        code: "CLAIMS_MISSING_ENTITLEMENT",
        mentions: [
          `group ${group}`,
          /take no cloud token/,
          /group member.s user token/,
          TOKEN_KEY,
          "pulumi config set --secret",
        ],
        token,
      });
      expect(err.message).not.toMatch(/cloud token of this game|this game.s cloud token|another game/);
    }
  });
});

describe("permission errors say what the token lacks", () => {
  it("403 GROUP_NOT_MEMBER for a game of a group the identity is not in", async () => {
    const token = emu.tokens.user;
    const err = await apiError(client(token).getGame(foreignGame));
    expectActionable(err, {
      status: 403,
      code: "GROUP_NOT_MEMBER",
      mentions: [/not a member of the group/, /add it|member's token/],
      token,
    });
  });
});

describe("a refusal names what it refused", () => {
  it("GROUP_NOT_MEMBER for a game id given where a group id goes says there may be no such group", async () => {
    // getGroupBilling({ groupId: env.gameId }): the service answers an unknown group as one the caller is not in.
    const err = await apiError(client(emu.tokens.user).getGroupBilling(game));
    expect(err.message).toMatch(
      new RegExp(
        `^The token's identity is not a member of group ${game}, or no group has that id \\(a group id is a game's developerGroupId\\):`,
      ),
    );
  });
});

describe("not-found errors name the id that does not exist", () => {
  const user = () => client(emu.tokens.user);

  it("GAME_NOT_FOUND names the game id", async () => {
    const missing = randomUUID();
    const err = await apiError(user().getGame(missing));
    expectActionable(err, {
      status: 400,
      code: "GAME_NOT_FOUND",
      mentions: [`Game ${missing} does not exist`],
      token: emu.tokens.user,
    });
    expect(err.isNotFound).toBe(true);
  });

  it("GAME_ENVIRONMENT_NOT_FOUND names the environment and its game", async () => {
    const missing = randomUUID();
    const err = await apiError(user().listServers(game, missing));
    expectActionable(err, {
      status: 400,
      code: "GAME_ENVIRONMENT_NOT_FOUND",
      mentions: [`Environment ${missing} does not exist in game ${game}`],
      token: emu.tokens.user,
    });
  });

  it("SERVERS_SERVER_NOT_FOUND names the server and the environment searched", async () => {
    const missing = randomUUID();
    const err = await apiError(user().getServer(game, env, missing));
    expectActionable(err, {
      status: 400,
      code: "SERVERS_SERVER_NOT_FOUND",
      mentions: [`Server ${missing} does not exist in environment ${env}`],
      token: emu.tokens.user,
    });
  });

  it("BUILDS_BUILD_NOT_FOUND names the build from the body, which the path does not hold", async () => {
    const missing = randomUUID();
    const err = await apiError(user().createServer(game, env, newServer({ runtime: { build: missing } })));
    expectActionable(err, {
      status: 400,
      code: "BUILDS_BUILD_NOT_FOUND",
      mentions: [`Build ${missing} does not exist in environment ${env}`, "runtime.build"],
      token: emu.tokens.user,
    });
    expect(err.path).not.toContain(missing);
  });

  it("CLUSTER_DATACENTER_NOT_FOUND names the datacenter from the body", async () => {
    const missing = randomUUID();
    const err = await apiError(user().createServer(game, env, newServer({ datacenter: missing })));
    expectActionable(err, {
      status: 400,
      code: "CLUSTER_DATACENTER_NOT_FOUND",
      mentions: [`Datacenter ${missing} is not one of game ${game}'s datacenters`, "getDatacenters"],
      token: emu.tokens.user,
    });
  });
});

describe("not-found errors from a terse service", () => {
  // The real service's messages need not name the id; the client knows it, and says it.
  let terse: ScriptedServer;
  const codes: Record<string, string> = {};
  beforeAll(async () => {
    terse = await startScripted((req, res) => {
      json(
        res,
        400,
        {
          code: codes[req.url.split("?")[0] ?? ""] ?? "GAME_NOT_FOUND",
          message: "Not found.",
          ray_id: randomUUID(),
        },
        { "rvt-ray-id": randomUUID() },
      );
    });
  });
  afterAll(async () => {
    await terse.close();
  });

  it("still names each missing id, and never the token", async () => {
    const token = `secret-${randomUUID()}`;
    const c = client(token, terse.url);
    const [g, e, s, d, b] = Array.from({ length: 5 }, () => randomUUID());
    const servers = `/games/${g}/environments/${e}/servers`;
    codes[`/cloud/games/${g}`] = "GAME_NOT_FOUND";
    codes[`${servers}/${s}`] = "SERVERS_SERVER_NOT_FOUND";
    codes[servers] = "CLUSTER_DATACENTER_NOT_FOUND";
    const cases: [Promise<unknown>, string][] = [
      [c.getGame(g!), `Game ${g} does not exist`],
      [c.getServer(g!, e!, s!), `Server ${s} does not exist in environment ${e}`],
      [c.createServer(g!, e!, newServer({ datacenter: d!, runtime: { build: b! } })), `Datacenter ${d}`],
    ];
    for (const [call, says] of cases) {
      const err = await apiError(call);
      expect(err.serviceMessage).toBe("Not found.");
      expect(err.message).toContain(says);
      expect(err.message).toContain(`ray id ${err.rayId}`);
      expect(err.message).not.toContain(token);
    }
    codes[servers] = "BUILDS_BUILD_NOT_FOUND";
    const err = await apiError(c.createServer(g!, e!, newServer({ datacenter: d!, runtime: { build: b! } })));
    expect(err.message).toContain(`Build ${b} does not exist in environment ${e}`);
  });
});

describe("refusals of the service that no id or token explains say what happened (docs/service-contract.md §2)", () => {
  it("403 API_FORBIDDEN of a cloud token watching the game list keeps the service's reason and says which token may watch it", async () => {
    const token = emu.tokens.cloud[game]!;
    const c = client(token);
    const { watch } = await c.listGames();
    const err = await apiError(c.listGames({ watchIndex: watch.index }));
    expectActionable(err, {
      status: 403,
      code: "API_FORBIDDEN",
      mentions: [
        "Cloud token cannot watch",
        "may not watch the game list",
        /user token of a group member/,
        /watchGame/,
      ],
      token,
    });
    // Another cloud token of the game would be refused the same way: the advice must not offer one.
    expect(err.message).not.toContain("a cloud token of this game");
  });

  describe("from a terse service", () => {
    // The service's own messages may say little; the client says what the code means.
    let terse: ScriptedServer;
    const TERSE_TOKEN = `secret-${randomUUID()}`;
    const answers: Record<string, { status: number; code: string }> = {};
    beforeAll(async () => {
      terse = await startScripted((req, res) => {
        const answer = answers[`${req.method} ${req.url.split("?")[0]}`] ?? { status: 500, code: "ERROR" };
        json(res, answer.status, { code: answer.code, message: "No.", ray_id: randomUUID() });
      });
    });
    afterAll(async () => {
      await terse.close();
    });

    it("400 API_METHOD_NOT_ALLOWED names the base URL to check", async () => {
      answers["GET /cloud/games"] = { status: 400, code: "API_METHOD_NOT_ALLOWED" };
      const err = await apiError(client(TERSE_TOKEN, terse.url).listGames());
      expectActionable(err, {
        status: 400,
        code: "API_METHOD_NOT_ALLOWED",
        mentions: [`${terse.url} serves /cloud/games, but not with GET`, CONFIG_KEYS.baseUrl.key],
        token: TERSE_TOKEN,
      });
    });

    it("400 BILLING_NOT_ENABLED says the deployment has no billing", async () => {
      const group = randomUUID();
      answers[`GET /cloud/groups/${group}/billing`] = { status: 400, code: "BILLING_NOT_ENABLED" };
      const err = await apiError(client(TERSE_TOKEN, terse.url).getGroupBilling(group));
      expectActionable(err, {
        status: 400,
        code: "BILLING_NOT_ENABLED",
        mentions: ["This deployment of the service has no billing"],
        token: TERSE_TOKEN,
      });
    });

    it("500 API_REQUEST_TIMEOUT names the time cap, and on a create that it may have taken effect", async () => {
      const [g, e] = [randomUUID(), randomUUID()];
      answers[`POST /games/${g}/environments/${e}/servers`] = { status: 500, code: "API_REQUEST_TIMEOUT" };
      const created = await apiError(client(TERSE_TOKEN, terse.url).createServer(g, e, newServer()));
      expectActionable(created, {
        status: 500,
        code: "API_REQUEST_TIMEOUT",
        mentions: ["50 s time cap", "may still have taken effect"],
        token: TERSE_TOKEN,
      });
      answers[`GET /cloud/games/${g}`] = { status: 500, code: "API_REQUEST_TIMEOUT" };
      const read = await apiError(client(TERSE_TOKEN, terse.url).getGame(g));
      expectActionable(read, {
        status: 500,
        code: "API_REQUEST_TIMEOUT",
        mentions: ["50 s time cap"],
        token: TERSE_TOKEN,
      });
      expect(read.message).not.toContain("taken effect");
    });

    it("400 SERVERS_SERVER_FAILED_TO_CREATE says the server could not be placed", async () => {
      const [g, e] = [randomUUID(), randomUUID()];
      answers[`POST /games/${g}/environments/${e}/servers`] = {
        status: 400,
        code: "SERVERS_SERVER_FAILED_TO_CREATE",
      };
      const err = await apiError(client(TERSE_TOKEN, terse.url).createServer(g, e, newServer()));
      expectActionable(err, {
        status: 400,
        code: "SERVERS_SERVER_FAILED_TO_CREATE",
        mentions: ["No.", "could not place the server"],
        token: TERSE_TOKEN,
      });
    });
  });
});

describe("rate limiting says when to retry", () => {
  it("429 API_RATE_LIMIT names the instant of retry-after and the ray id", async () => {
    // 12:05 in a window of 12:00 to 12:15.
    const clock = Date.UTC(2024, 7, 16, 12, 5, 0);
    const limited = await startEmulator({ rateLimit: true, now: () => clock });
    try {
      const token = limited.tokens.user;
      const c = client(token, limited.url);
      // GET allows 15 × 128 per endpoint and 15-minute window: use them up, then the client is refused.
      for (let i = 0; i < 15 * 128; i += 64) {
        const batch = Array.from({ length: 64 }, () => fetch(`${limited.url}/cloud/bootstrap`));
        expect((await Promise.all(batch)).map((r) => r.status)).toEqual(Array(64).fill(200));
      }
      const before = Date.now();
      const err = await c.getBootstrap().then(
        () => undefined,
        (e: unknown) => (e instanceof GamehostApiError ? e : Promise.reject(e)),
      );
      const after = Date.now();
      expect(err).toBeDefined();
      const e = err as GamehostApiError;
      // The window ends at 12:15 on the emulator's clock, 10 minutes after its 12:05 (its Date header):
      // in this machine's clock, whatever it reads, that is 10 minutes after the answer.
      expect(e.retryAfterMs).toBeGreaterThanOrEqual(before + 600_000);
      expect(e.retryAfterMs).toBeLessThanOrEqual(after + 600_000);
      expectActionable(e, {
        status: 429,
        code: "API_RATE_LIMIT",
        mentions: [
          `retry after ${new Date(e.retryAfterMs as number).toISOString()}`,
          "make fewer requests (the service counts them in fixed 15-minute windows)",
        ],
        token,
      });
      expect(e.isRateLimited).toBe(true);
    } finally {
      await limited.stop();
    }
  });
});

describe("errors that are not the service's", () => {
  it("a base URL where nothing answers names it and the setting to fix", async () => {
    const err = (await rejectionOf(client("t", "http://127.0.0.1:9").getGame(game))) as Error;
    expect(err.message).toMatch(
      /^Nothing answers at http:\/\/127\.0\.0\.1:9: check gamehost:baseUrl \(`pulumi config set gamehost:baseUrl <url>`\), and that the service is running\. \[GET \/cloud\/games\/\S+: no answer, /,
    );
    expect(err.message.split("\n")).toHaveLength(1);
  });

  it("https:// to a server without TLS (the emulator) says so and to use http://, not to retry", async () => {
    const https = emu.url.replace(/^http:/, "https:");
    const err = (await rejectionOf(client("t", https).getGame(game))) as Error;
    expect(err.message).toMatch(
      new RegExp(
        `^${https.replace(/[.]/g, "\\.")} answers without TLS: check gamehost:baseUrl \\(\`pulumi config set gamehost:baseUrl <url>\`\\); a server without TLS, as the emulator, takes http://\\. \\[GET `,
      ),
    );
    expect(err.message).not.toContain("retry");
    expect(err.message.split("\n")).toHaveLength(1);
  });

  it("a certificate the handshake refuses says nothing was sent and what to fix, not to retry; a create looks nothing up", async () => {
    const tls = await startSelfSigned();
    const url = tls.url;
    try {
      const retrying = new GamehostClient(
        readSettings((key) => ({ [CONFIG_KEYS.baseUrl.key]: url, [TOKEN_KEY]: "t" })[key]),
      );
      const get = (await rejectionOf(retrying.getGame(game))) as GamehostNetworkError;
      expect(get).toBeInstanceOf(GamehostNetworkError);
      expect(get.message).toMatch(
        new RegExp(
          `^The certificate of ${url.replace(/[.]/g, "\\.")} is not trusted, so nothing was sent: check gamehost:baseUrl \\(\`pulumi config set gamehost:baseUrl <url>\`\\); for a service whose certificate comes from a private authority, give Node that authority's certificate \\(NODE_EXTRA_CA_CERTS=<file\\.pem> in the environment that runs pulumi\\)\\. \\[GET \\S+: no answer, self-signed certificate\\]$`,
        ),
      );
      expect(get.message).not.toMatch(/retry/i);
      // No retry can change a certificate: one handshake, whatever maxRetries allows.
      expect(tls.connections()).toBe(1);
      // A create refused at the handshake was never sent: not "may have taken effect", no lookup to make.
      const post = (await rejectionOf(retrying.createServer(game, env, newServer()))) as GamehostNetworkError;
      expect(post.mayHaveCommitted).toBe(false);
      expect(post.message).toMatch(/^The certificate of .* is not trusted, so nothing was sent: /);
      expect(post.message).not.toMatch(/taken effect|listServers/);
    } finally {
      await tls.close();
    }
  });

  it("a 404 that is not the service's (a web server's page at a wrong base URL) says to check the base URL", async () => {
    // The service answers an unknown route 404 API_NOT_FOUND, and a missing game 400: a 404 page of another
    // server means the base URL points somewhere else, like the service's own API_NOT_FOUND.
    const web = http.createServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end(
        "<!DOCTYPE HTML>\n<html><head><title>Error response</title></head><body><h1>File not found</h1></body></html>",
      );
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(web.address() as AddressInfo).port}/api`;
    try {
      const err = await apiError(client("t", base).getGame(game));
      expect(err.message).toMatch(
        new RegExp(
          `^No such route at ${base.replace(/[.]/g, "\\.")} \\(a 404 that is not the service's\\): check gamehost:baseUrl \\(\`pulumi config set gamehost:baseUrl <url>\`\\); it must be the API's root`,
        ),
      );
      expect(err.message).not.toContain("<html>");
    } finally {
      await new Promise((resolve) => web.close(resolve));
    }
  });

  it("a 200 that is not JSON (a website's page for every path: the game's site, not its API) says to check the base URL", async () => {
    const site = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><html><body>Space Race</body></html>");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      const err = (await rejectionOf(client("t", base).listGames())) as Error;
      expect(err.message).toBe(
        `Invalid response of GET /cloud/games: is not valid JSON: ${base} is not the hosting API, which answers JSON: check gamehost:baseUrl (\`pulumi config set gamehost:baseUrl <url>\`); it must be the API's root (e.g. https://api.example.gg, no path, or the prefix a gateway serves it under, e.g. https://corp.example/gamehost).`,
      );
    } finally {
      await new Promise((resolve) => site.close(resolve));
    }
  });

  it("a base URL where nothing answers names where it was set: a client option, the variable", async () => {
    // A script's client (docs/client.md) is not a Pulumi program: no `pulumi config set` advice.
    const fromOption = (await new GamehostClient({ baseUrl: "http://127.0.0.1:9", token: "t", maxRetries: 0 })
      .listGames()
      .catch((e: unknown) => e)) as Error;
    expect(fromOption.message).toMatch(
      /^Nothing answers at http:\/\/127\.0\.0\.1:9: check the client option baseUrl, and that the service is running\. \[/,
    );
    vi.stubEnv("GAMEHOST_BASE_URL", "http://127.0.0.1:9");
    try {
      const fromEnv = (await new GamehostClient({ token: "t", maxRetries: 0 })
        .listGames()
        .catch((e: unknown) => e)) as Error;
      expect(fromEnv.message).toMatch(
        /^Nothing answers at http:\/\/127\.0\.0\.1:9: check the GAMEHOST_BASE_URL environment variable, and that the service is running\. \[/,
      );
      expect(fromEnv.message).not.toContain("pulumi config");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("a client's POST whose answer is lost says it may have run, and never just to retry (a duplicate server)", async () => {
    // docs/client.md, Retries: after a lost answer "the server may exist — find it by its tags with
    // listServers before creating another". The message is all a script's author reads.
    const body: CreateServerRequest = {
      datacenter,
      tags: { role: "match" },
      runtime: { build },
      network: { ports: {} },
      resources: { cpu: 1000, memory: 1024 },
    };
    const hanging = await startScripted(() => new Promise(() => {}));
    const resetting = await startScripted((_req, res) => void res.socket?.destroy());
    try {
      const timedOut = (await new GamehostClient({ baseUrl: hanging.url, token: "t", requestTimeoutMs: 200 })
        .createServer(game, env, body)
        .catch((e: unknown) => e)) as GamehostNetworkError;
      const reset = (await new GamehostClient({ baseUrl: resetting.url, token: "t" })
        .createServer(game, env, body)
        .catch((e: unknown) => e)) as GamehostNetworkError;
      for (const err of [timedOut, reset]) {
        expect(err).toBeInstanceOf(GamehostNetworkError);
        expect(err.mayHaveCommitted).toBe(true);
        expect(err.message).toMatch(/^[^[]*may have (run|taken effect)/);
        expect(err.message).toMatch(/^[^[]*listServers/);
        expect(err.message).not.toMatch(/^[^[]*: retry[;,]/);
        expect(err.message).not.toContain("gamehost:");
      }
      expect(timedOut.message).toMatch(/^[^[]*the client option requestTimeoutMs/);
      // A GET's timeout is safe to retry, and names the option it came from.
      const read = (await new GamehostClient({
        baseUrl: hanging.url,
        token: "t",
        requestTimeoutMs: 200,
        maxRetries: 0,
      })
        .listGames()
        .catch((e: unknown) => e)) as GamehostNetworkError;
      expect(read.message).toMatch(
        /^The service did not answer in time: retry, or raise the client option requestTimeoutMs\. \[/,
      );
      // A watch call's wait is timeouts.watchHeadersMs, and an explicit timeouts.headersMs wins over
      // requestTimeoutMs: the message names the one that cut the call off, or raising it changes nothing.
      const watch = (await new GamehostClient({
        baseUrl: hanging.url,
        token: "t",
        maxRetries: 0,
        timeouts: { watchHeadersMs: 200 },
      })
        .listGames({ watchIndex: "1" })
        .catch((e: unknown) => e)) as GamehostNetworkError;
      expect(watch.message).toMatch(/^[^[]*raise the client option timeouts\.watchHeadersMs\. \[/);
      const headers = (await new GamehostClient({
        baseUrl: hanging.url,
        token: "t",
        maxRetries: 0,
        timeouts: { headersMs: 200 },
      })
        .listGames()
        .catch((e: unknown) => e)) as GamehostNetworkError;
      expect(headers.message).toMatch(/^[^[]*raise the client option timeouts\.headersMs\. \[/);
    } finally {
      await hanging.close();
      await resetting.close();
    }
  });

  it("a base URL with a path prefix the service does not have says so, once", async () => {
    const err = await apiError(client(emu.tokens.user, `${emu.url}/api/v1`).getGame(game));
    expect(err.message).toMatch(
      new RegExp(
        `^No such route at ${emu.url}/api/v1: check gamehost:baseUrl .* no path, or the prefix a gateway serves it under, e\\.g\\. https://corp\\.example/gamehost\\)\\. \\[GET /cloud/games/${game}: 404 API_NOT_FOUND, ray id `,
      ),
    );
    expect(err.isNotFound).toBe(false);
  });

  it("a client built in code is told about its options and the environment, never `pulumi config set`", async () => {
    const inCode = (options: { token?: string; baseUrl?: string }) =>
      new GamehostClient({ baseUrl: emu.url, maxRetries: 0, ...options });
    const expired = await apiError(inCode({ token: emu.tokens.expired }).getGame(game));
    expect(expired.message).toMatch(
      /^The token has expired: set the client option token to a current token\. \[/,
    );
    const route = await apiError(
      inCode({ token: emu.tokens.user, baseUrl: `${emu.url}/api/v1` }).getGame(game),
    );
    expect(route.message).toContain(`No such route at ${emu.url}/api/v1: check the client option baseUrl;`);
    vi.stubEnv(TOKEN_ENV, "");
    try {
      const missing = await apiError(inCode({}).listGames());
      expect(missing.message).toContain(
        `set the client option token or the ${TOKEN_ENV} environment variable.`,
      );
      vi.stubEnv(TOKEN_ENV, emu.tokens.expired);
      const fromEnv = await apiError(inCode({}).getGame(game));
      expect(fromEnv.message).toContain(`set the ${TOKEN_ENV} environment variable to a current token.`);
    } finally {
      vi.unstubAllEnvs();
    }
    for (const err of [expired, route]) expect(err.message).not.toContain("pulumi config set");
  });

  it("a program that fails with one prints its message only (the SDK's RunError brand)", () => {
    const err = new GamehostApiError({
      method: "GET",
      path: "/x",
      status: 400,
      code: "GAME_NOT_FOUND",
      message: "gone",
    });
    expect((err as unknown as { __pulumiRunError?: boolean }).__pulumiRunError).toBe(true);
    expect(Object.keys(err)).not.toContain("__pulumiRunError");
    expect(Object.keys(err)).not.toContain("rayId");
  });
});
