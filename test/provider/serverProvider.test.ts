import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import type { ServerInputs } from "../../src/kinds/server/spec";
import { dist } from "../support/dist";
import {
  liveServers,
  type ServerTarget,
  serverArgs,
  serverTarget,
  startTestEmulator,
  userClient,
} from "../support/emulator";
import { until } from "../support/until";

const impl = dist.serverImpl();
const { IDEMPOTENCY_TAG } = dist.pkg();

let emulator: RunningEmulator;
let target: ServerTarget;

function useConfig(values: Record<string, string | undefined>) {
  impl.configure({ config: { get: (key: string) => values[key] } });
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  target = serverTarget(emulator);
  useConfig({ "gamehost:baseUrl": emulator.url, "gamehost:token": emulator.tokens.user });
});
afterAll(() => emulator.stop());
afterEach(() => {
  emulator.faults.clear();
  emulator.setPlacement("auto");
  useConfig({ "gamehost:baseUrl": emulator.url, "gamehost:token": emulator.tokens.user });
});

/** Checked inputs for a resource to be created (checked without olds, so with a key of its own). */
async function inputs(overrides: Record<string, unknown> = {}): Promise<ServerInputs> {
  const news = serverArgs(emulator, {
    tags: { role: "test" },
    network: {
      ports: {
        web: { protocol: "http", internalPort: 8080 },
        voice: { protocol: "udp", internalPort: 7777, routing: { host: {} } },
      },
    },
    ...overrides,
  });
  const { inputs: checked, failures } = await impl.check({}, news);
  expect(failures).toEqual([]);
  return checked as unknown as ServerInputs;
}

const posts = () => emulator.requests.filter((r) => r.method === "POST").length;

describe("Server provider against the emulator", () => {
  it("creates, waits until placed, and reports endpoints", async () => {
    const { id, outs } = await impl.create(await inputs());
    expect(outs.serverId).toBe(id);
    expect(outs.startedAt).toBeGreaterThanOrEqual(outs.createdAt);
    expect(outs.tags).toEqual({ role: "test" });
    const dc = target.datacenter;
    expect(outs.endpoints.web).toBe(`${id}-web.lobby.${dc}.example.run:80`);
    const [host, port] = outs.endpoints.voice!.split(":");
    expect(host).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(Number(port)).toBeGreaterThanOrEqual(26000);
    expect(Number(port)).toBeLessThanOrEqual(31999);
    const live = emulator.servers().find((s) => s.id === id)!;
    expect(live.tags[IDEMPOTENCY_TAG]).toBe(outs.idempotencyKey);
  });

  it("returns without waiting when waitForReady is false", async () => {
    const { outs } = await impl.create(await inputs({ waitForReady: false }));
    expect(outs.startedAt).toBeUndefined();
    expect(outs.endpoints).toEqual({});
  });

  it("reads current outputs and drops a server deleted out of band", async () => {
    const { id, outs } = await impl.create(await inputs());
    const read = await impl.read(id, outs);
    expect(read.id).toBe(id);
    expect(read.props?.endpoints).toEqual(outs.endpoints);
    await dist
      .api()
      .GamehostClient.prototype.deleteServer.call(
        userClient(emulator),
        target.gameId,
        target.environmentId,
        id,
      );
    expect(await impl.read(id, outs)).toEqual({ id: "" });
  });

  it("drops a server the service no longer knows", async () => {
    const { outs } = await impl.create(await inputs());
    expect(await impl.read("00000000-0000-4000-8000-00000000dead", outs)).toEqual({ id: "" });
  });

  it("updates provider-only knobs without calling the API", async () => {
    const created = await impl.create(await inputs());
    emulator.resetRequests();
    const news = { ...(await inputs()), readyTimeoutSeconds: 60, destroyKillTimeout: 1000 };
    const { outs } = await impl.update(created.id, created.outs, news);
    expect(emulator.requests).toEqual([]);
    expect(outs.serverId).toBe(created.id);
    expect(outs.endpoints).toEqual(created.outs.endpoints);
    expect(outs.readyTimeoutSeconds).toBe(60);
  });

  it("deletes with the kill-timeout override, and treats gone servers as deleted", async () => {
    const { id, outs } = await impl.create(await inputs({ destroyKillTimeout: 4321 }));
    const before = Date.now();
    await impl.delete(id, outs);
    const server = emulator.servers().find((s) => s.id === id)!;
    expect(server.destroyed_at).toBeGreaterThanOrEqual(before - 5);
    const deadline = emulator.killDeadline(id)!;
    expect(deadline - server.destroyed_at!).toBe(4321);
    await expect(impl.delete(id, outs)).resolves.toBeUndefined();
    await expect(impl.delete("00000000-0000-4000-8000-00000000dead", outs)).resolves.toBeUndefined();
  });

  it("records a server that never gets placed as partially created, with what is missing", async () => {
    emulator.setPlacement("never");
    const checked = await inputs({ readyTimeoutSeconds: 1 });
    const error = await impl.create(checked).then(
      () => undefined,
      (e: unknown) =>
        e as { id?: string; message: string; properties?: { serverId?: string }; reasons?: string[] },
    );
    expect(error?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(error?.properties?.serverId).toBe(error?.id);
    expect(error?.message).toMatch(
      /not ready after 1s: still missing started_at, ports\.web\.public_hostname/,
    );
    expect(liveServers(emulator).some((s) => s.id === error?.id)).toBe(true);
  });

  it("names when a server stopped before it was ready as an RFC 3339 instant, not epoch milliseconds", async () => {
    emulator.setPlacement("never");
    const checked = await inputs({ readyTimeoutSeconds: 60 });
    const creating = impl.create(checked).then(
      () => undefined,
      (e: unknown) => e as { message: string },
    );
    // Deleted out of band while it waits for its placement.
    const made = await until(
      () => liveServers(emulator).find((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey)?.id,
      "the server's create",
    );
    await userClient(emulator).deleteServer(target.gameId, target.environmentId, made);
    const error = await creating;
    const destroyedAt = emulator.servers().find((s) => s.id === made)?.destroyed_at as number;
    expect(error?.message).toContain(
      `Server ${made} stopped before it was ready (destroyed_at ${new Date(destroyedAt).toISOString()})`,
    );
  });

  it("adopts the server when the create answer is lost (commit_then_reset): exactly one server", async () => {
    const checked = await inputs();
    emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "commit_then_reset" });
    const { id } = await impl.create(checked);
    const withKey = liveServers(emulator).filter((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey);
    expect(withKey.map((s) => s.id)).toEqual([id]);
  });

  it("posts again after a create answered 500, once a lookup found nothing it kept: exactly one server", async () => {
    const checked = await inputs({ waitForReady: false });
    emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "error_500" });
    emulator.resetRequests();
    const { id } = await impl.create(checked);
    expect(emulator.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
      "POST 500",
      "GET 200",
      "POST 200",
    ]);
    const withKey = liveServers(emulator).filter((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey);
    expect(withKey.map((s) => s.id)).toEqual([id]);
  });

  it("never adopts a server whose create the service answered 500, and deletes one it kept: exactly one server", async () => {
    const checked = await inputs({ waitForReady: false });
    // An internal error after the write: the service keeps the server and answers 500 `ERROR`.
    emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "commit_then_500" });
    emulator.resetRequests();
    const { id } = await impl.create(checked);
    const kept = emulator.requests.find((r) => r.method === "DELETE");
    expect(kept?.path).not.toContain(id);
    expect(emulator.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
      "POST 500",
      "GET 200",
      "DELETE 200",
      "POST 200",
    ]);
    const withKey = liveServers(emulator).filter((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey);
    expect(withKey.map((s) => s.id)).toEqual([id]);
  });

  it("a replacement (checked without olds, same spec) makes its own server and never adopts the old one", async () => {
    const news = { ...(await inputs()) } as Record<string, unknown>;
    delete news.idempotencyKey;
    const old = await impl.create((await impl.check({}, news)).inputs as unknown as ServerInputs);
    emulator.resetRequests();
    const replacement = await impl.create((await impl.check({}, news)).inputs as unknown as ServerInputs);
    expect(replacement.id).not.toBe(old.id);
    expect(posts()).toBe(1);
    // The engine then deletes the replaced server: the replacement lives on.
    await impl.delete(old.id, old.outs);
    expect(liveServers(emulator).map((s) => s.id)).toContain(replacement.id);
    expect(liveServers(emulator).map((s) => s.id)).not.toContain(old.id);
  });

  it("reports a create whose outcome no lookup could learn: the key to find it by, no second POST", async () => {
    useConfig({
      "gamehost:baseUrl": emulator.url,
      "gamehost:token": emulator.tokens.user,
      "gamehost:maxRetries": "0",
    });
    const checked = await inputs();
    emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "commit_then_reset" });
    emulator.faults.inject({ method: "GET", path: /\/servers$/, kind: "error_500", count: 100 });
    emulator.resetRequests();
    const error = await impl.create(checked).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain(`pulumi-gamehost/idempotency-key=${checked.idempotencyKey}`);
    expect(error?.message).toMatch(/adoptServerId/);
    expect(posts()).toBe(1);
    const made = liveServers(emulator).filter((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey);
    expect(made).toHaveLength(1);
  });

  it("posts again when the connection failed before the create was committed", async () => {
    const checked = await inputs();
    emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "reset" });
    emulator.resetRequests();
    const { id } = await impl.create(checked);
    const withKey = liveServers(emulator).filter((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey);
    expect(withKey.map((s) => s.id)).toEqual([id]);
  });

  it("waits out a rate-limited create until the instant the 429 names, then creates once", async () => {
    const checked = await inputs({ waitForReady: false });
    const retryAfterMs = 1_200;
    emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "rate_limit", retryAfterMs });
    emulator.resetRequests();
    const started = Date.now();
    const { id } = await impl.create(checked);
    const waited = Date.now() - started;
    // The 429 names an instant at least retryAfterMs away (an HTTP date, rounded up to the second).
    expect(waited).toBeGreaterThanOrEqual(retryAfterMs);
    expect(emulator.requests.filter((r) => r.method === "POST").map((r) => r.status)).toEqual([429, 200]);
    const withKey = liveServers(emulator).filter((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey);
    expect(withKey.map((s) => s.id)).toEqual([id]);
  });

  it.each([
    ["an hour ahead", 3_600_000],
    ["in the year 2100", Date.UTC(2100, 0, 1) - Date.now()],
  ])("fails a create refused until %s at once, saying until when; one POST, no server", async (_, ahead) => {
    const checked = await inputs({ waitForReady: false });
    emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "rate_limit", retryAfterMs: ahead });
    emulator.resetRequests();
    const started = Date.now();
    const error = await impl.create(checked).then(
      () => undefined,
      (e: unknown) => e as Error & { until?: number },
    );
    const finished = Date.now();
    // The emulator names the instant as an HTTP date, rounded up to the second, from a moment of the call.
    expect(error?.until).toBeGreaterThanOrEqual(started + ahead);
    expect(error?.until).toBeLessThanOrEqual(finished + ahead + 1_000);
    expect(error?.message).toMatch(/refuses the create of a server .* until /);
    expect(error?.message).toContain(new Date(error?.until ?? 0).toISOString());
    expect(posts()).toBe(1);
    expect(liveServers(emulator).filter((s) => s.tags[IDEMPOTENCY_TAG] === checked.idempotencyKey)).toEqual(
      [],
    );
  });

  it("never takes a wrong base URL's 404 (an unknown route) for a gone server", async () => {
    const { id, outs } = await impl.create(await inputs());
    useConfig({ "gamehost:baseUrl": `${emulator.url}/v1`, "gamehost:token": emulator.tokens.user });
    await expect(impl.read(id, outs)).rejects.toThrow(/404 API_NOT_FOUND/);
    await expect(impl.delete(id, outs)).rejects.toThrow(/404 API_NOT_FOUND/);
    expect(liveServers(emulator).map((s) => s.id)).toContain(id);
  });

  it("adopts an existing server that matches the spec", async () => {
    const existing = await impl.create(await inputs());
    emulator.resetRequests();
    const adopted = await impl.create(await inputs({ adoptServerId: existing.id }));
    expect(adopted.id).toBe(existing.id);
    expect(posts()).toBe(0);
  });

  it("never deletes, as a replaced original, the server a create of the same run adopted", async () => {
    // `pulumi up --replace <urn>` of a Server adopted with adoptServerId, kept in the program as
    // docs/adopting-servers.md shows it (real CLI v3.274.1): the engine checks the replacement without
    // olds and calls no diff, the replacement's create adopts that same server (its spec matches), and the
    // engine then deletes the original by its id: the server the state now tracks. Also a rename without an
    // alias: the new resource adopts the server, the old one is deleted.
    const existing = await impl.create(await inputs());
    const replacement = await impl.create(await inputs({ adoptServerId: existing.id }));
    expect(replacement.id).toBe(existing.id);
    await impl.delete(existing.id, existing.outs);
    expect(liveServers(emulator).map((s) => s.id)).toContain(existing.id);
  });

  it("lets one of two resources adopting one server in one run have it, side by side or one after the other", async () => {
    // A block copied with its adoptServerId: two resources would own the server, and removing either from
    // the program would delete it under the other.
    const existing = await impl.create(await inputs());
    const [a, b] = await Promise.allSettled([
      impl.create(await inputs({ adoptServerId: existing.id })),
      impl.create(await inputs({ adoptServerId: existing.id })),
    ]);
    const adopted = [a, b].filter((r) => r.status === "fulfilled");
    const refused = [a, b].flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : []));
    expect(adopted).toHaveLength(1);
    expect(refused).toEqual([
      expect.stringContaining(
        `adoptServerId ${existing.id}: another resource of this stack adopts that server in this same update`,
      ),
    ]);
    await expect(impl.create(await inputs({ adoptServerId: existing.id }))).rejects.toThrow(
      "Keep adoptServerId on one resource only.",
    );
  });

  it("refuses a second owner of a server a resource of the state holds, whichever is declared first", async () => {
    // A block copied with its adoptServerId, in a later `up`: the copy adopted the server the original
    // holds, and removing the copy from the program then deleted the server under the original.
    const held = await impl.create(await inputs());
    const copy = serverArgs(emulator, { tags: { role: "test" }, adoptServerId: held.id });
    const { idempotencyKey: _key, ...heldArgs } = held.outs;
    // The holder declared first: its diff comes before the copy's check, which fails naming adoptServerId.
    await impl.diff(held.id, held.outs, { ...heldArgs, idempotencyKey: held.outs.idempotencyKey });
    const checked = await impl.check({}, copy);
    expect(checked.failures).toEqual([
      { property: "adoptServerId", reason: expect.stringContaining("already managed by another resource") },
    ]);
    await expect(impl.create(checked.inputs)).rejects.toThrow("already managed by another resource");

    // The copy declared first: its create came before the holder's diff, which fails saying what to run.
    const other = await impl.create(await inputs({ tags: { role: "other" } }));
    const early = await impl.create(await inputs({ tags: { role: "other" }, adoptServerId: other.id }));
    expect(early.id).toBe(other.id);
    await expect(impl.diff(other.id, other.outs, other.outs)).rejects.toThrow(
      "another resource of this stack adopted it (adoptServerId) in this update: it now has two owners",
    );
    expect(liveServers(emulator).map((s) => s.id)).toEqual(expect.arrayContaining([held.id, other.id]));

    // A copy recorded by an earlier run, then removed from the program: the engine deletes it after the
    // holder's diff, and the holder keeps the server.
    const kept = await impl.create(await inputs({ tags: { role: "kept" } }));
    // The holder's record: its program also sets a provider-only knob.
    const holder = { ...kept.outs, destroyKillTimeout: 5 };
    await impl.diff(kept.id, holder, holder);
    const copyKey = (await inputs({ tags: { role: "kept" } })).idempotencyKey;
    await impl.delete(kept.id, { ...kept.outs, idempotencyKey: copyKey, adoptServerId: kept.id });
    expect(liveServers(emulator).map((s) => s.id)).toContain(kept.id);
    // An import of it (`pulumi import`: its key is the server's tag, the holder's own), removed: kept too.
    await impl.delete(kept.id, kept.outs);
    expect(liveServers(emulator).map((s) => s.id)).toContain(kept.id);
    // The holder's own delete (removed, or replaced) deletes it.
    await impl.delete(kept.id, holder);
    expect(liveServers(emulator).map((s) => s.id)).not.toContain(kept.id);
  });

  it("refuses to adopt a server whose spec differs, naming the fields", async () => {
    const existing = await impl.create(await inputs());
    const wrong = await inputs({ adoptServerId: existing.id, resources: { cpu: 500, memory: 256 } });
    await expect(impl.create(wrong)).rejects.toThrow(/does not match the declared spec in resources/);
  });

  it("refuses to adopt a server whose environment differs, naming the variables and never a value", async () => {
    // Its environment is where its stack keeps secrets (docs/adopting-servers.md): the error is printed by the
    // CLI and kept in the update's history.
    const runtime = (await inputs()).runtime;
    const existing = await impl.create(
      await inputs({
        runtime: { ...runtime, environment: { DB_PASSWORD: "live-db-password", MODE: "ranked" } },
      }),
    );
    const declared = { DB_PASSWORD: "declared-db-password", MODE: "ranked", EXTRA: "declared-extra-value" };
    const wrong = await inputs({
      adoptServerId: existing.id,
      runtime: { ...runtime, environment: declared },
    });
    const error = (await impl.create(wrong).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/does not match the declared spec in runtime \(runtime: live \{"build":/);
    expect(error.message).toContain("its environment differs in DB_PASSWORD, EXTRA (values not shown");
    for (const value of ["live-db-password", "declared-db-password", "declared-extra-value"]) {
      expect(error.message).not.toContain(value);
    }
  });

  it("refuses to adopt a server that does not exist", async () => {
    const missing = await inputs({ adoptServerId: "00000000-0000-4000-8000-00000000dead" });
    await expect(impl.create(missing)).rejects.toThrow(/SERVERS_SERVER_NOT_FOUND/);
  });

  it("names adoptServerId and what to do when the server is missing here or destroyed", async () => {
    // The user wrote one id, in adoptServerId: the error says it is that field, and that a server of another
    // environment or game is not found here (docs/adopting-servers.md).
    const missing = await inputs({ adoptServerId: "00000000-0000-4000-8000-00000000dead" });
    const notFound = (await impl.create(missing).catch((e: unknown) => e)) as Error;
    expect(notFound.message).toMatch(
      /^adoptServerId 00000000-0000-4000-8000-00000000dead: no such server in environment \S+ of game \S+ \(a server of another environment or game cannot be adopted here\): check the id, or drop adoptServerId to create a new server\. \[GET \S+: 400 SERVERS_SERVER_NOT_FOUND, ray id /,
    );
    const existing = await impl.create(await inputs());
    await impl.delete(existing.id, existing.outs);
    const destroyed = (await impl
      .create(await inputs({ adoptServerId: existing.id }))
      .catch((e: unknown) => e)) as Error;
    expect(destroyed.message).toMatch(
      new RegExp(
        `^adoptServerId ${existing.id}: the server was destroyed at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: drop adoptServerId to create a new server\\.$`,
      ),
    );
  });

  it("fails fast naming the config key and env var when the token is missing", async () => {
    const saved = process.env.GAMEHOST_TOKEN;
    delete process.env.GAMEHOST_TOKEN;
    useConfig({ "gamehost:baseUrl": emulator.url });
    try {
      await expect(impl.create(await inputs())).rejects.toThrow(/gamehost:token.*GAMEHOST_TOKEN/);
    } finally {
      if (saved !== undefined) process.env.GAMEHOST_TOKEN = saved;
    }
  });

  it("surfaces a service rejection of the spec with the service's code", async () => {
    const bad = await inputs({ datacenter: "00000000-0000-4000-8000-00000000dead" });
    await expect(impl.create(bad)).rejects.toThrow(/CLUSTER_DATACENTER_NOT_FOUND/);
  });
});

describe("Server provider: a partially created server", () => {
  it("is waited for again by the next update, and needs no API call once ready", async () => {
    emulator.setPlacement("never");
    const checked = await inputs({ readyTimeoutSeconds: 1 });
    const partial = (await impl.create(checked).catch((e: unknown) => e)) as {
      id: string;
      properties: Parameters<typeof impl.update>[1];
    };
    expect(partial.properties.startedAt).toBeUndefined();
    emulator.setPlacement("auto");
    const { outs } = await impl.update(partial.id, partial.properties, {
      ...checked,
      readyTimeoutSeconds: 5,
    });
    expect(outs.startedAt).toBeDefined();
    expect(Object.keys(outs.endpoints).sort()).toEqual(["voice", "web"]);
    emulator.resetRequests();
    await impl.update(partial.id, outs, { ...checked, readyTimeoutSeconds: 6 });
    expect(emulator.requests).toEqual([]);
  });
});
