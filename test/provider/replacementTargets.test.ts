/**
 * A replacement's create is asked about before the engine acts on the diff: with `deleteBeforeReplace` the
 * engine deletes the old server (or a fleet's servers) first, so a build or datacenter the service refuses
 * lost them. Both faces' diff asks the kind's `checkReplacement` when the diff replaces, and both faces'
 * check asks it for a replacement no diff asked for (`pulumi up --replace`, `replaceOnChanges`,
 * `replacementTrigger`: the engine checks the resource with olds, then again without, before it deletes).
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import * as serverHost from "../../src/dynamic/generated/host/server";
import { configure } from "../../src/dynamic/settings";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { UNKNOWN } from "../../src/kinds/checks";
import { fleetKind } from "../../src/kinds/fleet/implementation";
import type { FleetInputs } from "../../src/kinds/fleet/spec";
import type { OperationContext } from "../../src/kinds/kind";
import { serverKind } from "../../src/kinds/server/implementation";
import type { ServerInputs, ServerOutputs } from "../../src/kinds/server/spec";
import { provproto, structproto } from "../../src/plugin/proto";
import { GamehostProvider } from "../../src/plugin/provider";
import { serveInProcess } from "../plugin/inProcess";
import { SAMPLE_ID } from "../support/serverInputs";

const NO_SUCH = "0b0b0b0b-0000-4000-8000-00000000dead";
/**
 * The server id the diffs here are of: a diff notes the server its resource holds in module state, which the
 * unit files of one worker share (another file checks an adoption of SAMPLE_ID).
 */
const DIFFED_ID = "0d0d0d0d-0000-4000-8000-0000000d1ffe";

let emulator: RunningEmulator;
let ctx: OperationContext;
let server: ServerInputs;
beforeAll(async () => {
  emulator = await startEmulator({ placementDelayMs: 0 });
  const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
  ctx = { client: () => client };
  const game = emulator.fixture.games[0]!;
  const environment = game.environments.find((e) => e.nameId === "prod")!;
  server = {
    gameId: game.id,
    environmentId: environment.id,
    datacenter: game.datacenters[0]!.id,
    tags: { role: "lobby" },
    runtime: { build: environment.builds[0]!.id },
    network: { ports: { web: { protocol: "http", internalPort: 8080 } } },
    resources: { cpu: 250, memory: 256 },
    idempotencyKey: SAMPLE_ID,
  };
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.resetRequests());

const recorded = (inputs: ServerInputs): ServerOutputs => ({
  ...inputs,
  serverId: SAMPLE_ID,
  createdAt: 1,
  startedAt: 2,
  ports: {},
  endpoints: {},
});
/**
 * The dynamic face's connection: its config, not GAMEHOST_* variables, which a config another file of this
 * worker left behind would win over (unit files share their modules).
 */
const configureDynamic = () => {
  const config: Record<string, string> = {
    "gamehost:baseUrl": emulator.url,
    "gamehost:token": emulator.tokens.user,
  };
  configure({ config: { get: (key) => config[key] } });
};
const asked = () => emulator.requests.map((r) => r.route).sort();

describe("a Server's replacement", () => {
  it("to a build the environment lacks fails naming runtime.build, with nothing changed", async () => {
    const news = { ...server, runtime: { build: NO_SUCH } };
    await expect(serverKind.checkReplacement!(ctx, news)).rejects.toThrow(
      `Invalid replacement of a Server: runtime.build: ${NO_SUCH} is not a build of environment ${server.environmentId}: give one of its builds (getBuilds lists them); nothing was changed, and the server it would replace keeps running`,
    );
  });

  it("to a datacenter the cluster lacks fails naming datacenter and the datacenters there are", async () => {
    const news = { ...server, datacenter: NO_SUCH };
    const failure = serverKind.checkReplacement!(ctx, news);
    await expect(failure).rejects.toThrow(`datacenter: ${NO_SUCH} is not a datacenter of the game's cluster`);
    const slug = emulator.fixture.games[0]!.datacenters[0]!.slug;
    await expect(failure).rejects.toThrow(`${slug} (${server.datacenter})`);
  });

  it("to a build and datacenter that exist asks once for each, together", async () => {
    await serverKind.checkReplacement!(ctx, { ...server, tags: { role: "web" } });
    expect(asked()).toEqual([
      "GET /games/:game/environments/:env/builds",
      "GET /games/:game/environments/:env/datacenters",
    ]);
  });

  it("asks nothing about values a preview does not know yet, nor for an adoption", async () => {
    await serverKind.checkReplacement!(ctx, { ...server, runtime: { build: UNKNOWN } });
    expect(asked()).toEqual(["GET /games/:game/environments/:env/datacenters"]);
    emulator.resetRequests();
    await serverKind.checkReplacement!(ctx, { ...server, environmentId: UNKNOWN });
    // A whole object another resource's output gives: `runtime` itself unknown.
    const runtimeUnknown = { ...server, runtime: UNKNOWN, datacenter: UNKNOWN } as unknown as ServerInputs;
    await serverKind.checkReplacement!(ctx, runtimeUnknown);
    await serverKind.checkReplacement!(ctx, {
      ...server,
      runtime: { build: NO_SUCH },
      adoptServerId: SAMPLE_ID,
    });
    expect(asked()).toEqual([]);
  });

  it("is asked by the dynamic face's diff only when the diff replaces", async () => {
    configureDynamic();
    try {
      const olds = recorded(server);
      await expect(
        serverHost.diff(DIFFED_ID, olds, { ...server, runtime: { build: NO_SUCH } }),
      ).rejects.toThrow(`runtime.build: ${NO_SUCH} is not a build of environment`);
      emulator.resetRequests();
      const update = await serverHost.diff(DIFFED_ID, olds, { ...server, readyTimeoutSeconds: 9 });
      expect(update).toMatchObject({ changes: true, replaces: [] });
      expect(asked()).toEqual([]);
    } finally {
      configure({ config: { get: () => undefined } });
    }
  });
});

describe("a replacement no diff asked for (--replace, replaceOnChanges, replacementTrigger)", () => {
  // The build the server runs is gone from the environment: the engine's second check (no olds) comes
  // before a deleteBeforeReplace delete, and the create after it would be refused (the server was lost).
  const gone = () => ({ ...server, runtime: { build: NO_SUCH } }) as unknown as Record<string, unknown>;
  const refused = `runtime.build: ${NO_SUCH} is not a build of environment`;

  it("is asked by the dynamic face's check without olds of inputs it checked with olds", async () => {
    configureDynamic();
    try {
      const news = { ...gone(), tags: { role: "dynamic-replaced" } };
      await serverHost.check({ ...news }, news);
      expect(asked()).toEqual([]);
      await expect(serverHost.check({}, news)).rejects.toThrow(refused);
      // A new resource (inputs never checked with olds) asks nothing: its create is the first request.
      emulator.resetRequests();
      await serverHost.check({}, { ...news, tags: { role: "dynamic-new" } });
      expect(asked()).toEqual([]);

      // `pulumi up --replace` with deleteBeforeReplace: the one check has no olds and no diff is called, so
      // the delete before the create asks first; the recorded outputs echo the inputs the program gave.
      const { idempotencyKey: _chosenByCheck, ...given } = {
        ...server,
        runtime: { build: NO_SUCH },
        tags: { role: "dynamic-forced" },
      };
      await serverHost.check({}, given);
      const olds = { ...recorded(server), ...given, idempotencyKey: "0c0c0c0c-0000-4000-8000-00000000beef" };
      await expect(serverHost.delete(SAMPLE_ID, olds as ServerOutputs)).rejects.toThrow(refused);
      expect(asked()).not.toContain("DELETE /games/:game/environments/:env/servers/:server");
    } finally {
      configure({ config: { get: () => undefined } });
    }
  });

  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const stop of cleanup.splice(0)) stop();
  });

  it("is asked by the plugin's check without olds of a URN it checked with olds", async () => {
    const client = await serveInProcess(
      new GamehostProvider(),
      { baseUrl: emulator.url, token: emulator.tokens.user },
      (stop) => cleanup.push(stop),
    );
    const check = (urn: string, olds: Record<string, unknown>) => {
      const req = new provproto.CheckRequest();
      req.setUrn(urn);
      req.setType("gamehost:index:Server");
      req.setOlds(structproto.Struct.fromJavaScript(olds as never));
      req.setNews(structproto.Struct.fromJavaScript(gone() as never));
      return new Promise<void>((resolve, reject) =>
        client.check(req, (err) => (err ? reject(err) : resolve())),
      );
    };
    const urn = "urn:pulumi:dev::p::gamehost:index:Server::web";
    await check(urn, gone());
    expect(asked()).toEqual([]);
    await expect(check(urn, {})).rejects.toThrow(refused);
    emulator.resetRequests();
    await check("urn:pulumi:dev::p::gamehost:index:Server::other", {});
    expect(asked()).toEqual([]);

    // `pulumi up --replace <urn>` with deleteBeforeReplace: the engine's one check has no olds (it ignores
    // a targeted resource's old inputs) and no diff is called, so the delete before the create asks first.
    const replaced = "urn:pulumi:dev::p::gamehost:index:Server::replaced";
    await check(replaced, {});
    const del = new provproto.DeleteRequest();
    del.setUrn(replaced);
    del.setType("gamehost:index:Server");
    del.setId(SAMPLE_ID);
    del.setProperties(structproto.Struct.fromJavaScript(recorded(server) as never));
    const deleted = new Promise<void>((resolve, reject) =>
      client.delete(del, (err) => (err ? reject(err) : resolve())),
    );
    await expect(deleted).rejects.toThrow(refused);
    expect(asked()).not.toContain("DELETE /games/:game/environments/:env/servers/:server");
  });

  it("leaves alone, on both faces, the server a --replace with deleteBeforeReplace adopts again", async () => {
    // A resource keeping adoptServerId, `pulumi up --replace <urn>` with deleteBeforeReplace: the delete came
    // first and destroyed the server the replacement's create then failed to adopt (destroyed).
    const live = async (role: string) => {
      const made = await serverKind.create(ctx, { ...server, tags: { role }, idempotencyKey: randomUUID() });
      const { idempotencyKey: _key, ...given } = { ...server, tags: { role }, adoptServerId: made.id };
      return { id: made.id, given, outputs: { ...made.outputs, adoptServerId: made.id } };
    };
    const isLive = (id: string) =>
      emulator.servers().some((s) => s.id === id && s.destroyed_at === undefined);

    const client = await serveInProcess(
      new GamehostProvider(),
      { baseUrl: emulator.url, token: emulator.tokens.user },
      (stop) => cleanup.push(stop),
    );
    const adopted = await live("plugin-readopted");
    const urn = "urn:pulumi:dev::p::gamehost:index:Server::readopted";
    const check = new provproto.CheckRequest();
    check.setUrn(urn);
    check.setType("gamehost:index:Server");
    check.setOlds(structproto.Struct.fromJavaScript({}));
    check.setNews(structproto.Struct.fromJavaScript(adopted.given as never));
    const failures = await new Promise<number>((resolve, reject) =>
      client.check(check, (err, res) => (err ? reject(err) : resolve(res?.getFailuresList().length ?? -1))),
    );
    expect(failures).toBe(0);
    const del = new provproto.DeleteRequest();
    del.setUrn(urn);
    del.setType("gamehost:index:Server");
    del.setId(adopted.id);
    del.setProperties(structproto.Struct.fromJavaScript(adopted.outputs as never));
    await new Promise<void>((resolve, reject) =>
      client.delete(del, (err) => (err ? reject(err) : resolve())),
    );
    expect(isLive(adopted.id)).toBe(true);

    configureDynamic();
    try {
      const dynamic = await live("dynamic-readopted");
      expect((await serverHost.check({}, dynamic.given)).failures).toEqual([]);
      await serverHost.delete(dynamic.id, dynamic.outputs as ServerOutputs);
      expect(isLive(dynamic.id)).toBe(true);
    } finally {
      configure({ config: { get: () => undefined } });
    }
  });
});

describe("a Fleet's replacement (another game environment)", () => {
  const fleet = (): FleetInputs => ({
    gameId: server.gameId,
    environmentId: server.environmentId,
    template: {
      tags: server.tags,
      runtime: server.runtime,
      network: server.network,
      resources: server.resources,
    },
    datacenters: { [server.datacenter]: 2 },
    fleetKey: SAMPLE_ID,
  });

  it("fails naming template.runtime.build when the new environment lacks the build", async () => {
    const staging = emulator.fixture.games[0]!.environments.find((e) => e.nameId !== "prod")!;
    const news = { ...fleet(), environmentId: staging.id };
    if (staging.builds.some((b) => b.id === server.runtime.build)) throw new Error("fixture: builds overlap");
    await expect(fleetKind.checkReplacement!(ctx, news)).rejects.toThrow(
      `template.runtime.build: ${server.runtime.build} is not a build of environment ${staging.id}`,
    );
  });

  it("fails naming the datacenter key the cluster lacks", async () => {
    const news = { ...fleet(), datacenters: { [NO_SUCH]: 1 } };
    await expect(fleetKind.checkReplacement!(ctx, news)).rejects.toThrow(
      `datacenters.${NO_SUCH}: is not a datacenter of the game's cluster`,
    );
  });
});
