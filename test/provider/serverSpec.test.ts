import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/dynamic/generated/host/server";
import { UNKNOWN } from "../../src/kinds/checks";
import { serverKind } from "../../src/kinds/server/implementation";
import {
  changedSpecFields,
  IDEMPOTENCY_TAG,
  newIdempotencyKey,
  type ServerInputs,
  type ServerOutputs,
  wireBody,
} from "../../src/kinds/server/spec";
import { FLEET_TAGS } from "../../src/kinds/server/tags";
import { SAMPLE_ID, SAMPLE_SERVER_INPUTS } from "../support/serverInputs";

const ID = SAMPLE_ID;

function spec(overrides: Partial<ServerInputs> = {}): ServerInputs {
  return { ...structuredClone(SAMPLE_SERVER_INPUTS), ...overrides };
}

function asOutputs(inputs: ServerInputs): ServerOutputs {
  return { ...inputs, serverId: ID, createdAt: 1, startedAt: 2, ports: {}, endpoints: {} };
}

describe("Server check", () => {
  it("gives every resource to be created a fresh random key: a replacement never gets the old one's", async () => {
    // The engine checks a new resource and every replacement the same way: without olds.
    const a = await check({}, { ...spec() });
    const b = await check({}, { ...spec() });
    expect(a.failures).toEqual([]);
    expect(a.inputs.idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(b.inputs.idempotencyKey).not.toBe(a.inputs.idempotencyKey);
    // An update keeps its server's key.
    const update = await check({ ...a.inputs }, { ...spec({ readyTimeoutSeconds: 9 }) });
    expect(update.inputs.idempotencyKey).toBe(a.inputs.idempotencyKey);
  });

  it("derives the key from the engine's seed and the URN alone, never from the spec or its secrets", () => {
    const seed = {
      randomSeed: new Uint8Array(32).fill(7),
      urn: "urn:pulumi:dev::p::gamehost:index:Server::web",
    };
    const withSecret = (pin: string) =>
      serverKind.check({}, { ...spec({ runtime: { build: ID, environment: { PIN: pin } } }) }, seed).inputs
        .idempotencyKey;
    // Same seed, any secret: the same key, so the key carries nothing of the secret to guess against.
    expect(withSecret("0000")).toBe(withSecret("4821"));
    expect(withSecret("0000")).toBe(newIdempotencyKey(seed));
    expect(newIdempotencyKey({ ...seed, urn: `${seed.urn}2` })).not.toBe(newIdempotencyKey(seed));
    expect(newIdempotencyKey({ ...seed, randomSeed: new Uint8Array(32).fill(8) })).not.toBe(
      newIdempotencyKey(seed),
    );
  });

  it("drops the resource scope and the spec-derived key that earlier builds stored", async () => {
    const legacy = {
      ...spec(),
      resourceScope: "o/proj/dev/lobby",
      idempotencyKey: "0123456789abcdef0123456789abcdef",
    };
    const { inputs } = await check(legacy, legacy);
    expect(inputs).not.toHaveProperty("resourceScope");
    expect(inputs.idempotencyKey).not.toBe(legacy.idempotencyKey);
    expect(inputs.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("names each bad field by its camelCase property path", async () => {
    const { failures } = await check(
      {},
      {
        ...spec(),
        gameId: "not-a-uuid",
        tags: { ok: "x", bad: 3, [IDEMPOTENCY_TAG]: "mine" },
        network: {
          mode: "overlay",
          ports: {
            web: { protocol: "http", routing: { host: {} } },
            voice: { protocol: "udp", routing: {} },
            quic: { protocol: "quic", internalPort: 70_000 },
          },
        },
        resources: { cpu: 0, memory: 1.5 },
        lifecycle: { killTimeout: 7_200_000 },
        readyTimeoutSeconds: -1,
        destroyKillTimeout: -5,
        colour: "red",
      },
    );
    const props = failures.map((f) => f.property).sort();
    expect(props).toEqual(
      [
        "colour",
        "destroyKillTimeout",
        "gameId",
        "lifecycle.killTimeout",
        "network.mode",
        "network.ports.quic.internalPort",
        "network.ports.quic.protocol",
        "network.ports.voice.routing",
        "network.ports.web.protocol",
        "readyTimeoutSeconds",
        "resources.cpu",
        "resources.memory",
        "tags.bad",
        `tags.${IDEMPOTENCY_TAG}`,
      ].sort(),
    );
    const byProp = Object.fromEntries(failures.map((f) => [f.property, f.reason]));
    expect(byProp["network.mode"]).toMatch(/bridge.*host/);
    expect(byProp["network.ports.web.protocol"]).toMatch(/host routing supports only tcp and udp/);
    expect(byProp["network.ports.voice.routing"]).toMatch(/exactly one/);
    expect(byProp["lifecycle.killTimeout"]).toMatch(/7200000/);
  });

  it("bounds the readiness wait to whole seconds, at most a day, saying so", async () => {
    for (const [value, reason] of [
      [86_401, "must be ≤ 86400 (one day)"],
      [1.5, "must be a whole number of seconds"],
      [0, "must be > 0"],
    ] as const) {
      const { failures } = await check({}, { ...spec({ readyTimeoutSeconds: value }) });
      expect(failures, `readyTimeoutSeconds: ${value}`).toEqual([
        { property: "readyTimeoutSeconds", reason },
      ]);
    }
    expect((await check({}, { ...spec({ readyTimeoutSeconds: 86_400 }) })).failures).toEqual([]);
  });

  it("refuses a fleet's tags: a server carrying them is its fleet's, and would have two owners", async () => {
    for (const tag of FLEET_TAGS) {
      const { failures } = await check({}, { ...spec(), tags: { role: "match", [tag]: "k" } });
      expect(failures).toEqual([
        {
          property: `tags.${tag}`,
          reason: expect.stringMatching(/^is reserved for pulumi-gamehost; remove it .*Fleet/),
        },
      ]);
    }
  });

  it("refuses to adopt again a server that a recorded resource adopted: its replacement would delete it", async () => {
    // Through the real CLI (v3.274.1), a dynamic Server adopted with adoptServerId, kept in the program as
    // docs/adopting-servers.md shows it, then `pulumi up --replace <urn>`: the replacement's create adopted
    // the same server (its spec matches), and the engine then deleted "the original", that very server. The
    // state tracked a destroyed server: one live server fewer, lost while wanted.
    const adopted = "22222222-2222-4222-8222-222222222222";
    const declared = () => spec({ adoptServerId: adopted });
    // The adopting `up`: a new resource, checked without olds.
    const first = await check({}, declared());
    expect(first.failures).toEqual([]);
    // A later `up` checks the recorded resource with its olds, then, to replace it, again without olds.
    expect((await check({ ...first.inputs }, declared())).failures).toEqual([]);
    const replacement = await check({}, declared());
    expect(replacement.failures).toEqual([
      {
        property: "adoptServerId",
        reason: expect.stringContaining(
          `server ${adopted} is already managed by a resource of this stack that adopted it`,
        ),
      },
    ]);
    // Another server's adoption is not held up.
    expect((await check({}, spec({ adoptServerId: SAMPLE_ID }))).failures).toEqual([]);
  });

  it("lets values that are unknown during preview pass", async () => {
    const { failures, inputs } = await check(
      {},
      {
        ...spec(),
        datacenter: UNKNOWN,
        resources: { cpu: UNKNOWN, memory: 512 },
        tags: UNKNOWN,
      },
    );
    expect(failures).toEqual([]);
    expect(inputs.datacenter).toBe(UNKNOWN);
  });
});

describe("Server diff", () => {
  it("treats defaults written out and left out as the same server", async () => {
    const olds = asOutputs(spec());
    const news = spec({
      runtime: { build: ID, arguments: [], environment: {} },
      network: {
        mode: "bridge",
        ports: { web: { protocol: "http", internalPort: 8080, routing: { gameGuard: {} } } },
      },
      lifecycle: { killTimeout: 0 },
    });
    expect(await diff(ID, olds, news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it("replaces on any spec change and names the fields", async () => {
    const olds = asOutputs(spec());
    // The kind's diff: the dynamic host's asks the service about a replacement too (replacementTargets).
    const result = serverKind.diff(
      ID,
      olds,
      spec({ tags: { role: "match" }, resources: { cpu: 500, memory: 512 } }),
    );
    expect(result.changes).toBe(true);
    // In the order of the schemas (scope, then the create body), which SPEC_FIELDS is read from.
    expect(result.replaces).toEqual(["resources", "tags"]);
  });

  it("updates without replacing when only provider knobs change", async () => {
    const olds = asOutputs(spec({ readyTimeoutSeconds: 300 }));
    const result = await diff(ID, olds, spec({ readyTimeoutSeconds: 60, destroyKillTimeout: 10 }));
    expect(result).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("ignores the serialized provider text and the key", async () => {
    const olds = { ...asOutputs(spec()), __provider: "old text", idempotencyKey: "a" } as ServerOutputs;
    const news = { ...spec(), __provider: "new text", idempotencyKey: "b" } as ServerInputs;
    expect((await diff(ID, olds, news)).changes).toBe(false);
  });

  it("updates (no replacement) a server whose recorded key is a spec hash of an earlier build", async () => {
    const olds = asOutputs(spec({ idempotencyKey: "0123456789abcdef0123456789abcdef" }));
    const news = spec({ idempotencyKey: newIdempotencyKey() });
    expect(await diff(ID, olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const outs = await serverKind.update(
      {
        client: () => {
          throw new Error("no API call expected");
        },
      },
      ID,
      olds,
      news,
    );
    expect(outs.idempotencyKey).toBe(news.idempotencyKey);
    expect(outs.serverId).toBe(ID);
  });

  it("sees no change in a refresh of such a server: the engine diffs the recorded key against itself", async () => {
    // After an upgrade, `pulumi refresh` (and `gamehost drift`, its preview) diff the inputs read back
    // against the recorded ones, both holding the old key: that is no drift.
    const legacy = spec({ idempotencyKey: "0123456789abcdef0123456789abcdef" });
    expect(await diff(ID, asOutputs(legacy), legacy)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(serverKind.diff(ID, asOutputs(legacy), legacy).diffs).toEqual([]);
  });

  it("replaces when a spec value is unknown in preview", () => {
    expect(changedSpecFields(spec(), spec({ datacenter: UNKNOWN }))).toEqual(["datacenter"]);
  });
});

describe("wire body", () => {
  it("drops provider-only fields and renames to snake_case", () => {
    const body = wireBody({ ...spec({ waitForReady: false, destroyKillTimeout: 5, adoptServerId: ID }) });
    expect(body).toEqual({
      datacenter: ID,
      tags: { role: "lobby" },
      runtime: { build: ID },
      network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
      resources: { cpu: 1000, memory: 512 },
    });
  });
});

describe("Server lookup id", () => {
  it("a bare UUID with no scope names both ways a lookup takes an id: pulumi import and Server.get", async () => {
    // A Python or Go `Server.get(name, "<uuid>")` reaches read with no state: no client call is made.
    const noClient = {
      client: () => {
        throw new Error("no call expected");
      },
    };
    const error = await serverKind.read(noClient, SAMPLE_ID, undefined).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^Invalid id of a Server \(for `pulumi import` or `Server\.get`\): id: must be <gameId>\/<environmentId>\/<serverId> /,
    );
  });
});
