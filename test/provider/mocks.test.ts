import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { dist, REPO_ROOT } from "../support/dist";
import { serverArgs, serverTarget, startTestEmulator } from "../support/emulator";
import { recordSecretOutputs } from "../support/mocks";
import { resolvedValue } from "../support/outputs";

const pulumi = dist.pulumi();
const gamehost = dist.pkg();

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  at: number;
}
const registered: Registered[] = [];
/** Outputs the SDK asked the engine to keep secret, by resource name. */
let secretOutputsByName = new Map<string, string[]>();
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator();
  await pulumi.runtime.setMocks(
    {
      async newResource(args) {
        // A slow create, so ordering against dependsOn is observable.
        await new Promise((r) => setTimeout(r, 150));
        registered.push({ type: args.type, name: args.name, inputs: args.inputs, at: Date.now() });
        return {
          id: `${args.name}-id`,
          state: { ...args.inputs, serverId: `${args.name}-id`, endpoints: {}, url: "https://x/y" },
        };
      },
      call: () => ({}),
    },
    "gamehost-quickstart",
    "dev",
    false,
    "acme",
  );
  secretOutputsByName = recordSecretOutputs();
  pulumi.runtime.setAllConfig(
    {
      "gamehost:baseUrl": emulator.url,
      "gamehost:token": emulator.tokens.user,
      "gamehost-quickstart:game": emulator.fixture.games[0]!.nameId,
      "gamehost-quickstart:environment": "prod",
    },
    ["gamehost:token"],
  );
});
afterAll(() => emulator.stop());

const args = () => serverArgs(emulator);

describe("resources under mocks", () => {
  it("register with the gamehost type tokens and a small serialized provider without the token", async () => {
    const server = new gamehost.Server("mock-server", args());
    const exp = new gamehost.LobbyHistoryExport("mock-export", {
      gameId: serverTarget(emulator).gameId,
      queryStart: new Date("2024-08-16T00:00:00Z"),
      queryEnd: "2024-08-17T00:00:00Z",
    });
    await resolvedValue(server.id);
    await resolvedValue(exp.id);
    const s = registered.find((r) => r.name === "mock-server")!;
    const e = registered.find((r) => r.name === "mock-export")!;
    expect(s.type).toBe("pulumi-nodejs:dynamic/gamehost:Server");
    expect(e.type).toBe("pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport");
    // Only the declared inputs and the provider: nothing that names the stack salts a key any more.
    expect(Object.keys(s.inputs).sort()).toEqual([...Object.keys(args()), "__provider"].sort());
    expect(e.inputs.queryStart).toBe("2024-08-16T00:00:00.000Z");
    for (const r of [s, e]) {
      const text = r.inputs.__provider as string;
      expect(text.length).toBeLessThan(2048);
      expect(text).toContain('require("pulumi-gamehost/provider/');
      expect(text).not.toContain(emulator.tokens.user);
      expect(JSON.stringify(r.inputs)).not.toContain(emulator.tokens.user);
    }
  });

  it("asks the engine to keep the export URL secret", async () => {
    const exp = new gamehost.LobbyHistoryExport("secret-export", {
      gameId: serverTarget(emulator).gameId,
      queryStart: 1,
      queryEnd: 2,
    });
    await resolvedValue(exp.id);
    expect(secretOutputsByName.get("secret-export")).toEqual(["url"]);
    expect(secretOutputsByName.get("mock-server")).toEqual([]);
  });

  it("each class's isInstance knows its own kind and face only (a transform's check of args.resource)", async () => {
    const dynamic = new gamehost.Server("instance-dynamic", args());
    const native = new gamehost.native.Server("instance-native", args());
    const fleet = new gamehost.Fleet("instance-fleet", {
      gameId: serverTarget(emulator).gameId,
      environmentId: serverTarget(emulator).environmentId,
      template: {
        tags: {},
        runtime: { build: "b" },
        network: { ports: {} },
        resources: { cpu: 100, memory: 128 },
      },
      datacenters: {},
    });
    await Promise.all([dynamic, native, fleet].map((r) => resolvedValue(r.id)));
    expect([dynamic, native, fleet, {}, undefined].map((r) => gamehost.Server.isInstance(r))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
    expect([dynamic, native, fleet].map((r) => gamehost.native.Server.isInstance(r))).toEqual([
      false,
      true,
      false,
    ]);
    expect([dynamic, native, fleet].map((r) => gamehost.Fleet.isInstance(r))).toEqual([false, false, true]);
  });
});

describe("data sources", () => {
  it("getGamesOutput and getGameOutput return camelCase, validated data from the service", async () => {
    const t = serverTarget(emulator);
    const games = await resolvedValue(gamehost.getGamesOutput());
    expect(games.games.map((g) => g.gameId)).toContain(t.gameId);
    expect(games.groups[0]).toHaveProperty("isCurrentIdentityMember", true);
    const game = await resolvedValue(gamehost.getGameOutput({ gameId: pulumi.output(t.gameId) }));
    expect(game.game.namespaces.map((n) => n.namespaceId)).toContain(t.environmentId);
    expect(game.watch.index).toMatch(/^\d+$/);
    const promised = await gamehost.getGame({ gameId: t.gameId });
    expect(promised.game.displayName).toBe(game.game.displayName);
  });

  it("getEnvironment finds a game and environment by name ids: the ids a Server needs", async () => {
    const game = emulator.fixture.games[0]!;
    const prod = game.environments.find((e) => e.nameId === "prod")!;
    const found = await resolvedValue(
      gamehost.getEnvironmentOutput({ game: game.nameId, environment: "prod" }),
    );
    expect(found).toMatchObject({ gameId: game.id, environmentId: prod.id, gameNameId: game.nameId });
    expect(found.environment.namespaceId).toBe(prod.id);
    const byId = await gamehost.getEnvironment({ game: game.id.toUpperCase(), environment: "prod" });
    expect(byId.environmentId).toBe(prod.id);
    await expect(gamehost.getEnvironment({ game: game.nameId, environment: "qa" })).rejects.toThrow(
      new RegExp(`No environment "qa" in game ${game.nameId} \\(available: .*prod`),
    );
    await expect(gamehost.getEnvironment({ game: "no-such-game", environment: "prod" })).rejects.toThrow(
      /No game "no-such-game" in the caller's games \(available: .*space-race/,
    );
  });

  it("getDatacenters picks one by slug or name, and names the slugs there are when none matches", async () => {
    const { gameId, environmentId } = serverTarget(emulator);
    const t = { gameId, environmentId };
    const game = emulator.fixture.games[0]!;
    const [first] = [...game.datacenters].sort((a, b) => a.slug.localeCompare(b.slug));
    const all = await gamehost.getDatacenters({ gameId: t.gameId, environmentId: t.environmentId });
    expect(all.datacenters.map((d) => d.slug)).toEqual(game.datacenters.map((d) => d.slug).sort());
    const bySlug = await resolvedValue(
      gamehost.getDatacentersOutput({ gameId: t.gameId, environmentId: t.environmentId, slug: first!.slug }),
    );
    expect(bySlug.datacenters).toEqual([{ id: first!.id, slug: first!.slug, name: first!.name }]);
    const byName = await gamehost.getDatacenters({ ...t, name: first!.name });
    expect(byName.datacenters.map((d) => d.id)).toEqual([first!.id]);
    await expect(gamehost.getDatacenters({ ...t, slug: "mars-1" })).rejects.toThrow(
      /No datacenter with slug "mars-1" in game .* \(available: /,
    );
  });

  it("getBuilds lists an environment's builds newest first, filtered by tags", async () => {
    const { gameId, environmentId } = serverTarget(emulator);
    const t = { gameId, environmentId };
    const env = emulator.fixture.games[0]!.environments[0]!;
    const all = await gamehost.getBuilds({ gameId: t.gameId, environmentId: t.environmentId });
    expect(all.builds.map((b) => b.id).sort()).toEqual(env.builds.map((b) => b.id).sort());
    const created = all.builds.map((b) => Date.parse(b.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const tagged = env.builds.find((b) => Object.keys(b.tags).length > 0)!;
    const [key, value] = Object.entries(tagged.tags)[0]!;
    const filtered = await resolvedValue(
      gamehost.getBuildsOutput({ gameId: t.gameId, environmentId: t.environmentId, tags: { [key]: value } }),
    );
    expect(filtered.builds.map((b) => b.id)).toContain(tagged.id);
    expect(filtered.builds.every((b) => b.tags[key] === value)).toBe(true);
    await expect(gamehost.getBuilds({ ...t, tags: { nothing: "matches" } })).rejects.toThrow(
      /No build of environment .* carries the tags \{"nothing":"matches"\}/,
    );
  });

  it("names a bad argument before calling the service", async () => {
    emulator.resetRequests();
    await expect(gamehost.getGame({ gameId: "not-a-uuid" })).rejects.toThrow(
      /Invalid arguments of getGame: gameId: must be a UUID/,
    );
    expect(emulator.requests).toEqual([]);
  });

  it("tells a wait for the service's Retry-After as a warning of the stack", {
    timeout: 20_000,
  }, async () => {
    emulator.faults.inject({ path: "/cloud/games", kind: "rate_limit", retryAfterMs: 1_000 });
    const warnings: string[] = [];
    const warn = vi.spyOn(pulumi.log, "warn").mockImplementation((message) => {
      warnings.push(message);
      return Promise.resolve();
    });
    try {
      await gamehost.getGames();
    } finally {
      warn.mockRestore();
      emulator.faults.clear();
    }
    expect(warnings).toEqual([
      expect.stringMatching(
        /^GET \/cloud\/games: rate limited by the service; retrying in [1-3] s \(attempt 2 of 5\)$/,
      ),
    ]);
  });

  it("tells one wait of many data sources refused by one window once, not once per data source", {
    timeout: 20_000,
  }, async () => {
    // A lookup per server in a loop of 100 printed 100 identical warnings (twice each: progress, diagnostics).
    const { gameId, environmentId } = serverTarget(emulator);
    emulator.faults.inject({
      pathGlob: "/games/*/environments/*/datacenters",
      kind: "rate_limit",
      retryAfterMs: 1_000,
      count: 3,
    });
    const warnings: string[] = [];
    const warn = vi.spyOn(pulumi.log, "warn").mockImplementation((message) => {
      warnings.push(message);
      return Promise.resolve();
    });
    try {
      await Promise.all([1, 2, 3].map(() => gamehost.getDatacenters({ gameId, environmentId })));
    } finally {
      warn.mockRestore();
      emulator.faults.clear();
    }
    expect(warnings).toEqual([
      expect.stringMatching(
        /datacenters: rate limited by the service; retrying in [1-3] s \(attempt 2 of 5\)$/,
      ),
    ]);
  });

  it("two refusals for different games or groups each name theirs, with their own request", async () => {
    // A program reading what it may (billing of each group, a game it may not see) catches each refusal:
    // the one error of a cause shared by every data source must not stand for another game's or group's.
    const foreignGame = emulator.fixture.games.find((g) => g.nameId === "rival-arena")!;
    const foreignGroup = emulator.fixture.groups.find((g) => g.displayName === "Rival Works")!;
    const messageOf = (p: Promise<unknown>) =>
      p.then(
        () => "resolved",
        (e: Error) => e.message,
      );
    const game = await messageOf(gamehost.getGame({ gameId: foreignGame.id }));
    const billing = await messageOf(gamehost.getGroupBilling({ groupId: foreignGroup.id }));
    expect(game).toContain(`game ${foreignGame.id}`);
    expect(game).toContain(`[GET /cloud/games/${foreignGame.id}: 403 GROUP_NOT_MEMBER`);
    expect(billing).toContain(`group ${foreignGroup.id}`);
    expect(billing).toContain(`[GET /cloud/groups/${foreignGroup.id}/billing: 403 GROUP_NOT_MEMBER`);
  });

  it("never prints an argument given as a secret in a data source's error", async () => {
    // An unreleased game's name read with `config.requireSecret`: a misspelling must not print it in CI logs.
    // The Output form's two halves (its rejection is the SDK's to report, as a program's failure): which
    // arguments are secrets, and the data source's run with their text kept out of its error.
    const faces = require(
      path.join(REPO_ROOT, "dist", "dynamic", "runFunction.js"),
    ) as typeof import("../../src/dynamic/runFunction");
    const { FUNCTIONS } = require(
      path.join(REPO_ROOT, "dist", "kinds", "functions.js"),
    ) as typeof import("../../src/kinds/functions");
    const codename = "codename-hush-hush";
    const args = {
      game: pulumi.secret(codename),
      environment: "prod",
      tags: pulumi.secret({ channel: "beta" }),
    };
    const names = await faces.secretArgumentNames(args);
    expect(names).toEqual(["game", "tags"]);
    const resolved = { game: codename, environment: "prod" };
    expect(faces.secretArgumentValues({ ...resolved, tags: { channel: "beta" } }, names)).toEqual([
      codename,
      "channel",
      "beta",
    ]);
    const secrets = faces.secretArgumentValues(resolved, names);
    await expect(faces.runFunction(FUNCTIONS.getEnvironment, resolved, secrets)).rejects.toThrow(
      /^No game "\[redacted\]" in the caller's games \(available: /,
    );
    // The arguments not given as secrets are still named.
    const game = emulator.fixture.games[0]!.nameId;
    await expect(
      faces.runFunction(FUNCTIONS.getEnvironment, { game, environment: "qa" }, [game]),
    ).rejects.toThrow(/^No environment "qa" in game \[redacted\] \(available: /);
  });

  it("rejects with its message as its stack, which the SDK prints once the program's main has returned", async () => {
    // A program that declares servers in a loop and exports nothing waiting on the data source has returned
    // by the time the data source fails: the SDK then prints the rejection's `stack`, which was the message
    // with the package's frames under it.
    const faces = require(
      path.join(REPO_ROOT, "dist", "dynamic", "runFunction.js"),
    ) as typeof import("../../src/dynamic/runFunction");
    const { FUNCTIONS } = require(
      path.join(REPO_ROOT, "dist", "kinds", "functions.js"),
    ) as typeof import("../../src/kinds/functions");
    const error = await faces
      .runFunction(FUNCTIONS.getEnvironment, { game: "space-rase", environment: "prod" })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toMatch(/^No game "space-rase" in the caller's games/);
    expect(error?.stack).toBe(error?.message);
  });

  it("getBootstrap needs no token", async () => {
    const bootstrap = await gamehost.getBootstrap();
    expect(bootstrap.loginMethods).toEqual({ accessToken: false, email: true });
  });

  it("waits for dependsOn resources before calling the service", async () => {
    const server = new gamehost.Server("dep-server", args());
    emulator.resetRequests();
    const gameCalls = () => emulator.requests.filter((r) => r.route === "GET /cloud/games/:game").length;
    const game = gamehost.getGameOutput({ gameId: serverTarget(emulator).gameId }, { dependsOn: [server] });
    // The mock takes 150 ms to create the server: the data source must not have run yet.
    await new Promise((r) => setTimeout(r, 75));
    expect(registered.some((r) => r.name === "dep-server")).toBe(false);
    expect(gameCalls()).toBe(0);
    await resolvedValue(game);
    expect(registered.some((r) => r.name === "dep-server")).toBe(true);
    expect(gameCalls()).toBe(1);
  });

  it("refuses options given to a Promise form from plain JavaScript, which nothing would read", () => {
    // TypeScript refuses a second argument; JavaScript passed it unread: another service's provider, or a
    // dependsOn the call did not wait for, ignored without a word.
    const untyped = gamehost as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const target = { gameId: serverTarget(emulator).gameId };
    const provider = new gamehost.native.Provider("other-service", { baseUrl: emulator.url });
    expect(() => untyped.getGame!(target, { provider })).toThrow(
      /^getGame \(pulumi-gamehost\) runs in the program and takes no provider: .* use gamehost\.native\.getGame \(/,
    );
    const server = new gamehost.Server("promise-form-dep", args());
    expect(() => untyped.getGame!(target, { dependsOn: [server] })).toThrow(
      "getGame (pulumi-gamehost) takes one argument (its arguments object) and was given 1 more, which it would not read. Options (dependsOn) go to its Output form: getGameOutput(args, { dependsOn }).",
    );
    expect(() => untyped.getGames!({ dependsOn: [server] })).toThrow(
      /^getGames \(pulumi-gamehost\) takes no argument and was given 1 more, .* getGamesOutput\(\{ dependsOn \}\)\.$/,
    );
    // An explicit `undefined` (a wrapper passing its own optional options on) is no option.
    return expect(untyped.getBootstrap!(undefined)).resolves.toMatchObject({ loginMethods: {} });
  });

  it("waits for the children of a dependsOn component, as Pulumi's invokes do, on both faces", async () => {
    // `dependsOn: [component]` means the component's resources: its urn is known before its children exist.
    class Lobbies extends pulumi.ComponentResource {
      constructor(name: string) {
        super("acme:index:Lobbies", name, {});
        new gamehost.Server(`${name}-child`, args(), { parent: this });
        this.registerOutputs({});
      }
    }
    const gameId = serverTarget(emulator).gameId;
    await gamehost.getGame({ gameId }); // the client's first load is not what orders the read
    for (const [face, getGameOutput] of [
      ["root", gamehost.getGameOutput],
      ["native", gamehost.native.getGameOutput],
    ] as const) {
      const lobbies = new Lobbies(`dep-component-${face}`);
      const read = getGameOutput({ gameId }, { dependsOn: [lobbies] }).apply(() => Date.now());
      const readAt = await resolvedValue(read);
      const child = registered.find((r) => r.name === `dep-component-${face}-child`);
      expect(child, `${face}: the child was created before the data source ran`).toBeDefined();
      expect(readAt, face).toBeGreaterThanOrEqual(child!.at);
    }
  });

  it("marks the payment portal URL as a secret", async () => {
    const groupId = emulator.fixture.groups[0]!.id;
    const session = gamehost.createPaymentPortalSessionOutput({ groupId, intent: "general" });
    expect(await pulumi.isSecret(session)).toBe(true);
    expect((await resolvedValue(session)).url).toMatch(/^https?:\/\//);
  });

  it("reports a missing token by config key and env var", async () => {
    pulumi.runtime.setConfig("gamehost:token", "");
    const saved = process.env.GAMEHOST_TOKEN;
    delete process.env.GAMEHOST_TOKEN;
    try {
      await expect(gamehost.getGames()).rejects.toThrow(/gamehost:token.*GAMEHOST_TOKEN/);
    } finally {
      pulumi.runtime.setConfig("gamehost:token", emulator.tokens.user);
      if (saved !== undefined) process.env.GAMEHOST_TOKEN = saved;
    }
  });
});

describe("examples/quickstart", () => {
  it("declares two servers (game-guard http, host-routed udp), reads games and exports yesterday", async () => {
    const file = path.join(REPO_ROOT, "examples", "quickstart", "index.ts");
    const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2020,
        esModuleInterop: true,
      },
    });
    const exports: Record<string, unknown> = {};
    const requireFromExample = createRequire(file);
    new Function("exports", "require", "module", outputText)(exports, requireFromExample, { exports });
    const gameName = await resolvedValue(exports.gameName as ReturnType<typeof pulumi.output<string>>);
    expect(gameName).toBe(emulator.fixture.games[0]!.displayName);
    type Out = ReturnType<typeof pulumi.output<string>>;
    expect(await resolvedValue(exports.lobbyServerId as Out)).toBe("lobby-id");
    expect(await resolvedValue(exports.matchServerId as Out)).toBe("match-id");
    const lobby = registered.find((r) => r.name === "lobby")!;
    const match = registered.find((r) => r.name === "match")!;
    const history = registered.find((r) => r.name === "yesterday");
    expect(lobby.inputs.network).toMatchObject({
      ports: { web: { protocol: "http", routing: { gameGuard: {} } } },
    });
    expect(match.inputs.network).toMatchObject({
      ports: { game: { protocol: "udp", routing: { host: {} } } },
    });
    expect(history?.type).toBe("pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport");
    const start = Date.parse(history!.inputs.queryStart as string);
    const end = Date.parse(history!.inputs.queryEnd as string);
    expect(end - start).toBe(24 * 3600 * 1000);
  });
});
