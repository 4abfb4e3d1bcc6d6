/**
 * Bad input, property-based: every single-field mistake in a server or export spec is reported
 * naming that field (provider check — through the dynamic face's module and through the plugin's gRPC
 * Check — emulator, client), arbitrary bodies and query values never crash the emulator, and valid specs
 * pass. Runs are bounded so the file stays well under 20 s.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientEvent, GamehostClient } from "../../src/api/client";
import { GamehostValidationError } from "../../src/api/errors";
import { closeSharedDispatchers } from "../../src/api/transport";
import { check as dynamicExportCheck } from "../../src/dynamic/generated/host/lobbyHistoryExport";
import { check as dynamicServerCheck } from "../../src/dynamic/generated/host/server";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { IDEMPOTENCY_TAG } from "../../src/kinds/server/spec";
import { PluginDriver, PluginProcess } from "../plugin/pluginClient";
import {
  applyMutation,
  badKillTimeout,
  badUuid,
  camelPathOf,
  KILL_TIMEOUT_LIMIT,
  type Mutation,
  notA,
  PROTOCOLS,
  parsesAsUuid,
  portName,
  serverMutation,
  toProviderSpec,
  uuid,
  uuidOtherForm,
  validServerBody,
} from "./arbitraries";
import { exportMutation, providerExportMutation, validExportSpec } from "./exportArbitraries";
import { expectServiceError, send } from "./http";

const ID = "11111111-1111-4111-8111-111111111111";
const SCOPE = { gameId: ID, environmentId: ID };

/** Provider inputs for a wire body: camelCase, plus the ids the resource class adds. */
const providerNews = (body: Record<string, unknown>): Record<string, unknown> => ({
  ...(toProviderSpec(body) as Record<string, unknown>),
  ...SCOPE,
});

const properties = (failures: { property: string }[]) => failures.map((f) => f.property);

/** A resource's check as one face runs it: the dynamic provider module, or the plugin over gRPC. */
type Check = (
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
) => Promise<{
  inputs: { idempotencyKey?: unknown; queryStart?: unknown; queryEnd?: unknown };
  failures: { property: string; reason: string }[];
}>;

let plugin: PluginProcess | undefined;
let driver: PluginDriver;
beforeAll(async () => {
  plugin = await PluginProcess.start();
  driver = new PluginDriver(plugin);
  await driver.configure({ baseUrl: "http://127.0.0.1:1", token: "unused" });
});
afterAll(async () => plugin?.stop());

/** The plugin's Check of `type`. */
const pluginCheck =
  (type: string): Check =>
  async (olds, news) =>
    driver.check(type, "r", news, olds);

const CHECKS: Record<"dynamic" | "plugin", { server: Check; export: Check }> = {
  dynamic: { server: dynamicServerCheck, export: dynamicExportCheck },
  plugin: {
    server: pluginCheck("gamehost:index:Server"),
    export: pluginCheck("gamehost:index:LobbyHistoryExport"),
  },
};
const FACES = ["dynamic", "plugin"] as const;

describe.each(FACES)("Server check (%s face)", (face) => {
  const checkServer: Check = (olds, news) => CHECKS[face].server(olds, news);

  it("accepts every valid spec", async () => {
    await fc.assert(
      fc.asyncProperty(validServerBody(), async (body) => {
        const { failures, inputs } = await checkServer({}, providerNews(body));
        expect(failures).toEqual([]);
        expect(inputs.idempotencyKey).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a game-guard port without internalPort, which the service accepts but never starts", async () => {
    const unstartable = fc
      .tuple(validServerBody(), portName, fc.constantFrom(...PROTOCOLS), fc.boolean())
      .map(([body, name, protocol, explicit]) => {
        const port = explicit ? { protocol, routing: { game_guard: {} } } : { protocol };
        const network = body.network as { ports: Record<string, unknown> };
        return {
          body: { ...body, network: { ...network, ports: { ...network.ports, [name]: port } } },
          name,
        };
      });
    await fc.assert(
      fc.asyncProperty(unstartable, async ({ body, name }) => {
        const { failures } = await checkServer({}, providerNews(body));
        expect(properties(failures)).toEqual([`network.ports.${name}.internalPort`]);
      }),
      { numRuns: 100 },
    );
  });

  it("names the camelCase path of any one mistake, user map keys kept, and never throws", async () => {
    await fc.assert(
      fc.asyncProperty(validServerBody(), serverMutation(), async (body, mutation) => {
        const { failures } = await checkServer({}, providerNews(applyMutation(body, mutation)));
        expect(properties(failures)).toContain(camelPathOf(mutation.expect).join("."));
        for (const f of failures) expect(f.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("names provider-only mistakes: ids, knobs, the reserved tag", async () => {
    const mistake = fc.oneof(
      fc.record({ property: fc.constantFrom("gameId", "environmentId"), value: badUuid }),
      fc.record({ property: fc.constantFrom("gameId", "environmentId"), value: notA("string") }),
      fc.record({ property: fc.constant("adoptServerId"), value: badUuid }),
      fc.record({ property: fc.constant("waitForReady"), value: notA("boolean") }),
      fc.record({
        property: fc.constant("readyTimeoutSeconds"),
        value: fc.oneof(
          fc.integer({ max: 0 }),
          fc.integer({ min: 86_401 }),
          fc.double({ min: 0, max: 86_400, noNaN: true }).filter((n) => !Number.isInteger(n)),
          notA("number"),
        ),
      }),
      fc.record({ property: fc.constant("destroyKillTimeout"), value: badKillTimeout }),
    );
    await fc.assert(
      fc.asyncProperty(validServerBody(), mistake, async (body, { property, value }) => {
        const { failures } = await checkServer({}, { ...providerNews(body), [property]: value });
        expect(properties(failures)).toContain(property);
      }),
      { numRuns: 200 },
    );
    await fc.assert(
      fc.asyncProperty(validServerBody(), fc.string(), async (body, value) => {
        const news = providerNews(body);
        news.tags = { ...(news.tags as object), [IDEMPOTENCY_TAG]: value };
        const { failures } = await checkServer({}, news);
        expect(properties(failures)).toContain(`tags.${IDEMPOTENCY_TAG}`);
      }),
      { numRuns: 30 },
    );
  });

  it("keeps a user's map key whole in the property, dots and underscores included", async () => {
    const news = providerNews(fc.sample(validServerBody(), 1)[0]!);
    news.tags = { "app.build_id": 5 };
    news.runtime = { build: ID, environment: { "log.max_size": true } };
    const { failures } = await checkServer({}, news);
    expect(properties(failures).sort()).toEqual(["runtime.environment.log.max_size", "tags.app.build_id"]);
  });

  it("rejects snake_case spellings of known fields instead of passing them to the API", async () => {
    // `internal_port` would reach the service as a valid field while the provider reads
    // `internalPort`: the spec would mean something else than it says.
    const body = { ...SCOPE, datacenter: ID, tags: {}, resources: { cpu: 1, memory: 1 } };
    const { failures } = await checkServer(
      {},
      {
        ...body,
        runtime: { build: ID },
        network: { ports: { game: { protocol: "udp", internal_port: 7777, routing: { game_guard: {} } } } },
        lifecycle: { kill_timeout: 5 },
      },
    );
    expect(properties(failures).sort()).toEqual([
      "lifecycle.kill_timeout",
      "network.ports.game.internal_port",
      "network.ports.game.routing.game_guard",
    ]);
    expect(failures.every((f) => f.reason.includes("camelCase"))).toBe(true);
  });
});

describe.each(FACES)("LobbyHistoryExport check (%s face)", (face) => {
  const checkExport: Check = (olds, news) => CHECKS[face].export(olds, news);

  it("accepts RFC 3339 (any offset) and epoch-ms spans, normalized to the same instants", async () => {
    await fc.assert(
      fc.asyncProperty(validExportSpec(), async ({ news, startMs, endMs }) => {
        const { failures, inputs } = await checkExport({}, news);
        expect(failures).toEqual([]);
        expect(inputs.queryStart).toBe(startMs);
        expect(inputs.queryEnd).toBe(endMs);
      }),
      { numRuns: 200 },
    );
  });

  it("names the property of any one mistake and never throws", async () => {
    await fc.assert(
      fc.asyncProperty(validExportSpec(), providerExportMutation(), async ({ news }, mutation) => {
        const { failures } = await checkExport({}, mutation.apply(news));
        expect(properties(failures)).toContain(mutation.property);
      }),
      { numRuns: 300 },
    );
  });
});

describe("emulator under bad bodies and queries", () => {
  let emu: RunningEmulator;
  let serversPath: string;
  let exportPath: string;
  let portalPath: string;
  let gamePath: string;
  let billingPath: string;
  let datacenters: string[];
  let builds: string[];

  beforeAll(async () => {
    emu = await startEmulator({ placementDelayMs: 5, watchHoldMs: 20 });
    const game = emu.fixture.games[0]!;
    const env = game.environments.find((e) => e.builds.length > 0)!;
    serversPath = `/games/${game.id}/environments/${env.id}/servers`;
    exportPath = `/cloud/games/${game.id}/matchmaker/lobbies/export-history`;
    portalPath = `/cloud/groups/${game.developerGroupId}/billing/payment-portal-session`;
    gamePath = `/cloud/games/${game.id}`;
    billingPath = `/cloud/groups/${game.developerGroupId}/billing`;
    datacenters = game.datacenters.map((d) => d.id);
    builds = env.builds.map((b) => b.id);
  });
  afterAll(async () => {
    await emu.stop();
  });

  /** The emulator answered nothing with a 5xx and still serves a valid create. */
  async function expectStillServing(): Promise<void> {
    expect(emu.requests.filter((r) => r.status >= 500 || r.status === 0)).toEqual([]);
    const body = fc.sample(
      validServerBody({ datacenter: fc.constant(datacenters[0]!), build: fc.constant(builds[0]!) }),
      1,
    )[0];
    const res = await send(emu, "POST", serversPath, { json: body });
    expect(res.status).toBe(200);
  }

  it("accepts every valid create body, startable or not (the mutations below start from these)", async () => {
    const ids = { datacenter: fc.constantFrom(...datacenters), build: fc.constantFrom(...builds) };
    await fc.assert(
      fc.asyncProperty(validServerBody(ids, { startable: false }), async (body) => {
        const res = await send(emu, "POST", serversPath, { json: body });
        expect(res.status, res.text).toBe(200);
      }),
      { numRuns: 40 },
    );
  });

  it("answers a mutated create body with 400 naming the field and the rule's code", async () => {
    const mistakes = serverMutation().filter((m) => m.kind !== "unknown key");
    await fc.assert(
      fc.asyncProperty(validServerBody(), mistakes, async (body, mutation: Mutation) => {
        const res = await send(emu, "POST", serversPath, { json: applyMutation(body, mutation) });
        expectServiceError(res, [mutation.code], mutation.expect.join("."));
      }),
      { numRuns: 250 },
    );
    await expectStillServing();
  });

  it("ignores an unknown key anywhere in a create body, as the service does (docs/service-contract.md §1)", async () => {
    const ids = { datacenter: fc.constantFrom(...datacenters), build: fc.constantFrom(...builds) };
    const unknownKey = serverMutation().filter((m) => m.kind === "unknown key");
    await fc.assert(
      fc.asyncProperty(validServerBody(ids), unknownKey, async (body, mutation: Mutation) => {
        const res = await send(emu, "POST", serversPath, { json: applyMutation(body, mutation) });
        expect(res.status, res.text).toBe(200);
        // Not echoed either: the answer is the server as the service knows it.
        let parent = (res.body as { server: Record<string, unknown> }).server;
        for (const segment of mutation.expect.slice(0, -1))
          parent = parent[segment] as Record<string, unknown>;
        expect(parent).toBeTypeOf("object");
        expect(Object.hasOwn(parent, mutation.expect.at(-1) as string)).toBe(false);
      }),
      { numRuns: 120 },
    );
    await expectStillServing();
  });

  it("answers arbitrary JSON and text bodies on every body route with 400 API_BAD_BODY", async () => {
    const raw = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.constantFrom("", "{", "[1,", "nul", "{}}", '{"a":1,}', "\u0000", "[".repeat(5_000)),
    );
    const route = fc.constantFrom(
      () => serversPath,
      () => exportPath,
      () => portalPath,
    );
    await fc.assert(
      fc.asyncProperty(route, raw, async (path, text) => {
        const res = await send(emu, "POST", path(), { raw: text });
        // A random value could only be valid for the payment portal ({"intent":"general"}) or, as
        // unknown fields are ignored and no range is checked, an export naming two integers.
        if (res.status === 200) {
          expect([portalPath, exportPath]).toContain(path());
          return;
        }
        const { message } = expectServiceError(res, ["API_BAD_BODY"]);
        expect(message).toMatch(/request body/i);
      }),
      { numRuns: 200 },
    );
    await expectStillServing();
  });

  it("names an own __proto__ key of a map instead of dropping it (zod skips that key)", async () => {
    const valid = fc.sample(validServerBody(), 1)[0]!;
    const cases: [string, string][] = [
      ["tags", '{"__proto__":"x"}'],
      ["tags", '{"__proto__":5}'],
      ["runtime.environment", '{"__proto__":"x"}'],
      ["network.ports", '{"__proto__":{"protocol":"udp"}}'],
    ];
    for (const [path, map] of cases) {
      // JSON text, since only parsed JSON can carry an own __proto__ key.
      const [head, tail] = path.split(".") as [string, string | undefined];
      const inner = tail ? { ...(valid[head] as object), [tail]: "@MAP@" } : "@MAP@";
      const text = JSON.stringify({ ...valid, [head]: inner }).replace('"@MAP@"', map);
      const res = await send(emu, "POST", serversPath, { raw: text });
      expectServiceError(res, ["API_BAD_BODY"], `${path}.__proto__`);
    }
    const query = new URLSearchParams({ tags_json: '{"__proto__":"x"}' }).toString();
    const res = await send(emu, "GET", `${serversPath}?${query}`);
    expectServiceError(res, ["API_BAD_QUERY_PARAMETER"], "tags_json.__proto__");
  });

  it("answers a mutated export body with 400 naming query_start or query_end", async () => {
    await fc.assert(
      fc.asyncProperty(exportMutation("service"), async ({ body, expect: field }) => {
        const res = await send(emu, "POST", exportPath, { json: body });
        expectServiceError(res, ["API_BAD_BODY"], field);
      }),
      { numRuns: 150 },
    );
    await expectStillServing();
  });

  it("answers any payment-portal intent but the two known ones with 400 naming intent", async () => {
    const intent = fc.oneof(fc.string({ maxLength: 24 }), notA("string"));
    await fc.assert(
      fc.asyncProperty(intent, async (value) => {
        const res = await send(emu, "POST", portalPath, { json: { intent: value } });
        if (value === "general" || value === "payment_method_update") expect(res.status).toBe(200);
        else expectServiceError(res, ["API_BAD_BODY"], "intent");
      }),
      { numRuns: 120 },
    );
  });

  it("answers every bad query value with 400 naming the parameter, and good ones normally", async () => {
    const digits = fc.integer({ min: 1, max: 400 }).map((n) => "9".repeat(n));
    const text = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.integer().map(String),
      fc.double().map(String),
      digits,
      fc.constantFrom("", "-0", "+5", "1e3", "0x10", " 5", "true", "false", "TRUE", "null"),
    );
    const tagsJson = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      fc
        .dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 })
        .map((d) => JSON.stringify(d)),
      fc.constantFrom('{"__proto__":"x"}', '{"a":1}', "[]", "{"),
      text,
    );
    const killTimeoutOk = (s: string) =>
      /^-?\d+$/.test(s) && Number(s) >= 0 && Number(s) < KILL_TIMEOUT_LIMIT;
    const tagsOk = (s: string) => {
      try {
        const v: unknown = JSON.parse(s);
        return (
          typeof v === "object" &&
          v !== null &&
          !Array.isArray(v) &&
          !Object.hasOwn(v, "__proto__") &&
          Object.values(v).every((x) => typeof x === "string")
        );
      } catch {
        return false;
      }
    };
    type Case = {
      method: string;
      path: () => string;
      name: string;
      value: string;
      ok: boolean;
      okCode?: string;
    };
    const cases: fc.Arbitrary<Case> = fc.oneof(
      fc.oneof(text, fc.integer({ min: 0, max: KILL_TIMEOUT_LIMIT + 5 }).map(String)).map((value) => ({
        method: "DELETE",
        // An unknown server: a valid timeout gets as far as the existence check.
        path: () => `${serversPath}/${ID}`,
        name: "override_kill_timeout",
        value,
        ok: killTimeoutOk(value),
        okCode: "SERVERS_SERVER_NOT_FOUND",
      })),
      tagsJson.map((value) => ({
        method: "GET",
        path: () => serversPath,
        name: "tags_json",
        value,
        ok: tagsOk(value),
      })),
      fc.oneof(text, fc.constantFrom("true", "false")).map((value) => ({
        method: "GET",
        path: () => serversPath,
        name: "include_destroyed",
        value,
        ok: value === "true" || value === "false",
      })),
      fc.oneof(text, uuid, uuidOtherForm, badUuid).map((value) => ({
        method: "GET",
        path: () => serversPath,
        name: "cursor",
        value,
        ok: parsesAsUuid(value),
      })),
      fc
        .tuple(
          fc.oneof(text, fc.nat().map(String), fc.constant(String(Date.now() + 1))),
          fc.constantFrom(
            () => "/cloud/games",
            () => gamePath,
            () => billingPath,
          ),
        )
        .map(([value, path]) => ({
          method: "GET",
          path,
          name: "watch_index",
          value,
          // Any number within int64 is a time to the service (service facts §5): a negative one is answered at once.
          ok: /^[+-]?\d{1,19}$/.test(value) && BigInt(value) >= -(2n ** 63n) && BigInt(value) < 2n ** 63n,
        })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const query = new URLSearchParams({ [c.name]: c.value }).toString();
        const res = await send(emu, c.method, `${c.path()}?${query}`);
        if (!c.ok) expectServiceError(res, ["API_BAD_QUERY_PARAMETER"], c.name, true);
        else if (c.okCode) expectServiceError(res, [c.okCode]);
        else expect(res.status, res.text).toBe(200);
      }),
      { numRuns: 300 },
    );
    await expectStillServing();
  });
});

describe("client request validation", () => {
  let emu: RunningEmulator;
  let client: GamehostClient;
  const events: ClientEvent[] = [];
  let game: string;
  let env: string;
  let group: string;

  beforeAll(async () => {
    emu = await startEmulator();
    client = new GamehostClient({ baseUrl: emu.url, token: emu.tokens.user, onEvent: (e) => events.push(e) });
    game = emu.fixture.games[0]!.id;
    env = emu.fixture.games[0]!.environments[0]!.id;
    group = emu.fixture.games[0]!.developerGroupId;
  });
  afterAll(async () => {
    await emu.stop();
    await closeSharedDispatchers();
  });

  async function validationError(promise: Promise<unknown>): Promise<GamehostValidationError> {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GamehostValidationError);
    return err as GamehostValidationError;
  }

  /** The error names `path` in its issues and its message, and nothing reached the service. */
  function expectNamed(err: GamehostValidationError, path: string): void {
    expect(err.issues.map((i) => i.path)).toContain(path);
    expect(err.message).toContain(path);
    expect(events).toEqual([]);
    expect(emu.requests).toEqual([]);
  }

  it("refuses a mutated create body naming the field, before sending anything", async () => {
    await fc.assert(
      fc.asyncProperty(validServerBody(), serverMutation(), async (body, mutation) => {
        const bad = applyMutation(body, mutation) as never;
        expectNamed(await validationError(client.createServer(game, env, bad)), mutation.expect.join("."));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses bad export bodies, intents and server queries naming the field, before sending anything", async () => {
    await fc.assert(
      fc.asyncProperty(exportMutation("client"), async ({ body, expect: field }) => {
        expectNamed(await validationError(client.exportLobbyHistory(game, body as never)), field);
      }),
      { numRuns: 100 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string().filter((s) => s !== "general" && s !== "payment_method_update"),
          notA("string"),
        ),
        async (intent) => {
          const err = await validationError(client.createPaymentPortalSession(group, { intent } as never));
          expectNamed(err, "intent");
        },
      ),
      { numRuns: 50 },
    );
    const killTimeout = fc.oneof(badKillTimeout, notA("number"));
    await fc.assert(
      fc.asyncProperty(uuid, killTimeout, async (server, value) => {
        const query = { override_kill_timeout: value } as never;
        expectNamed(
          await validationError(client.deleteServer(game, env, server, query)),
          "override_kill_timeout",
        );
      }),
      { numRuns: 50 },
    );
    const listMistake = fc.oneof(
      fc.tuple(fc.constant("cursor"), badUuid),
      fc.tuple(fc.constant("include_destroyed"), notA("boolean")),
      fc.tuple(fc.constant("tags"), notA("object")),
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 6 }), fc.integer())
        .filter(([k]) => !["cursor", "include_destroyed", "tags", "__proto__"].includes(k)),
    );
    await fc.assert(
      fc.asyncProperty(listMistake, async ([name, value]) => {
        const err = await validationError(client.listServers(game, env, { [name]: value } as never));
        expectNamed(err, name);
      }),
      { numRuns: 50 },
    );
  });

  it("refuses non-UUID path ids naming the parameter, before sending anything", async () => {
    await fc.assert(
      fc.asyncProperty(
        badUuid,
        fc.constantFrom("game_id", "environment_id", "server_id"),
        async (bad, which) => {
          const ids = { game_id: game, environment_id: env, server_id: ID, [which]: bad };
          const err = await validationError(client.getServer(ids.game_id, ids.environment_id, ids.server_id));
          expectNamed(err, which);
        },
      ),
      { numRuns: 60 },
    );
  });
});
