/**
 * The provider plugin through the gRPC wire, called the way the engine calls it: the executable spawned,
 * its port read, the SDK's client stubs. Every kind rule is the dynamic face's; these tests hold what
 * only the plugin face does (protocol, secrets, unknowns, preview, timeouts, import, invoke).
 */
import Ajv2020 from "ajv/dist/2020";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { dist, requireFromRepo } from "../support/dist";
import { liveServers, type ServerTarget, serverArgs } from "../support/emulator";
import {
  grpc,
  isSecret,
  PluginCallError,
  PluginDriver,
  PluginProcess,
  type Props,
  prov,
  secret,
  startPluginOnEmulator,
  UNKNOWN,
} from "./pluginClient";

const SERVER = "gamehost:index:Server";
const EXPORT = "gamehost:index:LobbyHistoryExport";
const { PACKAGE_VERSION, IDEMPOTENCY_TAG } = dist.pkg();

let emulator: RunningEmulator;
let target: ServerTarget;
let plugin: PluginProcess;
let driver: PluginDriver;
let serverCount = 0;

beforeAll(async () => {
  ({ emulator, target, plugin, driver } = await startPluginOnEmulator());
});
afterAll(async () => {
  await plugin?.stop();
  await emulator?.stop();
});
afterEach(() => {
  emulator.setPlacement("auto");
  emulator.faults.clear();
});

function spec(overrides: Props = {}): Props {
  return serverArgs(emulator, { tags: { role: "plugin" }, readyTimeoutSeconds: 10, ...overrides });
}

/** Checked inputs of a fresh server (its own name, so its idempotency key is its own). */
async function checked(overrides: Props = {}): Promise<{ name: string; inputs: Props }> {
  const name = `server-${++serverCount}`;
  const { inputs, failures } = await driver.check(SERVER, name, spec(overrides));
  expect(failures).toEqual([]);
  return { name, inputs };
}

async function failure(promise: Promise<unknown>): Promise<PluginCallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PluginCallError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("plugin protocol", () => {
  it("answers Handshake and Configure as a provider that keeps secrets and supports preview", async () => {
    const handshake = await plugin.call<unknown, InstanceType<typeof prov.ProviderHandshakeResponse>>(
      "handshake",
      new prov.ProviderHandshakeRequest(),
    );
    expect(handshake.getAcceptSecrets()).toBe(true);
    const configured = await driver.configure({ baseUrl: emulator.url, token: secret(emulator.tokens.user) });
    expect(configured.getSupportspreview()).toBe(true);
    expect(configured.getAcceptsecrets()).toBe(true);
  });

  it("reports the package version and a schema that validates against Pulumi's metaschema", async () => {
    const info = await plugin.call<unknown, { getVersion(): string }>("getPluginInfo", plugin.empty());
    expect(info.getVersion()).toBe(PACKAGE_VERSION);
    const res = await plugin.call<unknown, { getSchema(): string }>("getSchema", new prov.GetSchemaRequest());
    const schema = JSON.parse(res.getSchema()) as { name: string; resources: Props; functions: Props };
    const metaschema = requireFromRepo("./test/support/pulumi/package-metaschema.json") as object;
    const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(
      metaschema,
    );
    expect(validate(schema), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(schema.name).toBe("gamehost");
    expect(Object.keys(schema.resources).sort()).toEqual(["gamehost:index:Fleet", EXPORT, SERVER]);
    expect(Object.keys(schema.functions)).toContain("gamehost:index:getEnvironment");
  });
});

describe("provider configuration", () => {
  it("CheckConfig names a missing base URL with its config key and environment variable", async () => {
    const { failures } = await driver.checkConfig({ token: secret("t") });
    expect(failures).toEqual([
      {
        property: "baseUrl",
        reason: expect.stringMatching(/gamehost:baseUrl is not set.*GAMEHOST_BASE_URL/),
      },
    ]);
  });

  it("CheckConfig refuses a base URL that is not http(s) and a count that is not a number", async () => {
    const { failures } = await driver.checkConfig({ baseUrl: "ftp://x", maxRetries: "many" });
    expect(failures.map((f) => f.property).sort()).toEqual(["maxRetries"]);
    const bad = await driver.checkConfig({ baseUrl: "ftp://x" });
    expect(bad.failures).toEqual([{ property: "baseUrl", reason: expect.stringContaining("http(s)") }]);
  });

  it("CheckConfig refuses a base URL with user info or a query, naming the setting and not the password", async () => {
    for (const baseUrl of [
      "http://admin:pw-s3cr3t@127.0.0.1:1",
      "https://pw-s3cr3t@api.example.gg",
      "http://127.0.0.1:1/?token=pw-s3cr3t",
    ]) {
      const { failures } = await driver.checkConfig({ baseUrl });
      // No property: the engine would print its value with it (`property baseUrl value {…} has a problem`).
      expect(failures).toEqual([
        {
          property: "",
          reason: expect.stringMatching(
            /gamehost:baseUrl must (not contain a user name or password|be the API's root)/,
          ),
        },
      ]);
      expect(JSON.stringify(failures)).not.toContain("s3cr3t");
    }
  });

  it("CheckConfig keeps the token secret and DiffConfig replaces nothing when it changes", async () => {
    const { inputs, failures } = await driver.checkConfig({ baseUrl: emulator.url, token: "plain" });
    expect(failures).toEqual([]);
    expect(isSecret(inputs.token)).toBe(true);
    const diff = await driver.diffConfig(
      { baseUrl: emulator.url, token: "a" },
      { baseUrl: emulator.url, token: "b" },
    );
    expect(diff).toEqual({
      changes: prov.DiffResponse.DiffChanges.DIFF_SOME,
      replaces: [],
      diffs: ["token"],
    });
  });

  it("reaches the implementation: requests carry the configured token, and a missing one is named", async () => {
    const other = new PluginDriver(await PluginProcess.start({ GAMEHOST_TOKEN: undefined }));
    try {
      await other.configure({ baseUrl: emulator.url });
      const { inputs } = await other.check(SERVER, "tokenless", spec());
      const error = await failure(other.create(SERVER, "tokenless", inputs));
      expect(error.message).toMatch(/gamehost:token is not set.*GAMEHOST_TOKEN/);
      await other.configure({ baseUrl: emulator.url }, { "gamehost:config:token": emulator.tokens.user });
      const { id } = await other.create(SERVER, "tokenless", inputs);
      expect(liveServers(emulator).map((s) => s.id)).toContain(id);
    } finally {
      await other.plugin.stop();
    }
  });
});

describe("resources over the wire", () => {
  it("Check applies the kind's rules, lets preview unknowns pass, and keys a new server from the engine's seed", async () => {
    const bad = await driver.check(
      SERVER,
      "bad",
      spec({ network: { ports: { web: { protocol: "http" } } } }),
    );
    expect(bad.failures.map((f) => f.property)).toEqual(["network.ports.web.internalPort"]);
    const kindFailures = dist
      .serverImpl()
      .check({}, { ...spec({ network: { ports: { web: { protocol: "http" } } } }) });
    expect((await kindFailures).failures).toEqual(bad.failures);
    const unknown = await driver.check(SERVER, "unknown", spec({ datacenter: UNKNOWN }));
    expect(unknown.failures).toEqual([]);
    const { inputs } = await driver.check(SERVER, "keyed", spec());
    expect(inputs.idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    // Another check without olds (a replacement) gets another key; one with olds keeps it.
    const replacement = await driver.check(SERVER, "keyed", spec());
    expect(replacement.inputs.idempotencyKey).not.toBe(inputs.idempotencyKey);
    const update = await driver.check(SERVER, "keyed", spec({ readyTimeoutSeconds: 9 }), inputs);
    expect(update.inputs.idempotencyKey).toBe(inputs.idempotencyKey);
  });

  it("Diff names replacements and gives a detailed diff per property", async () => {
    const { inputs } = await checked();
    const olds = { ...inputs, serverId: "s", createdAt: 1, startedAt: 2, ports: {}, endpoints: {} };
    const news = { ...inputs, tags: { role: "other" }, readyTimeoutSeconds: 20 };
    const diff = await driver.diff(SERVER, "d", "s", olds, news);
    expect(diff.replaces).toEqual(["tags"]);
    expect(diff.hasDetailedDiff).toBe(true);
    expect(diff.detailed).toEqual({
      tags: prov.PropertyDiff.Kind.UPDATE_REPLACE,
      readyTimeoutSeconds: prov.PropertyDiff.Kind.UPDATE,
    });
    const same = await driver.diff(SERVER, "d", "s", olds, inputs);
    expect(same.changes).toBe(prov.DiffResponse.DiffChanges.DIFF_NONE);
  });

  it("Diff replaces an export whose URL is due for renewal, naming expiresAt; one that does not ask keeps it", async () => {
    const inputs = { gameId: target.gameId, queryStart: 1, queryEnd: 2, renewMinutesBeforeExpiry: 0 };
    const expired = {
      ...inputs,
      url: "u",
      exportedAt: "2000-01-01T00:00:00.000Z",
      expiresAt: "2000-01-01T01:00:00.000Z",
    };
    const due = await driver.diff(EXPORT, "e", "id", expired, inputs);
    expect([due.changes, due.replaces, due.detailed]).toEqual([
      prov.DiffResponse.DiffChanges.DIFF_SOME,
      ["expiresAt"],
      { expiresAt: prov.PropertyDiff.Kind.UPDATE_REPLACE },
    ]);
    const { renewMinutesBeforeExpiry: _unset, ...keeps } = inputs;
    const { renewMinutesBeforeExpiry: _old, ...keptOlds } = expired;
    expect((await driver.diff(EXPORT, "e", "id", keptOlds, keeps)).changes).toBe(
      prov.DiffResponse.DiffChanges.DIFF_NONE,
    );
  });

  it("a preview Create sends no request and answers the known outputs, unknowns kept unknown", async () => {
    const { name, inputs } = await checked({ datacenter: UNKNOWN });
    emulator.resetRequests();
    const planned = await driver.create(SERVER, name, inputs, { preview: true });
    expect(emulator.requests).toEqual([]);
    expect(planned.id).toBe("");
    expect(planned.properties).toMatchObject({
      gameId: target.gameId,
      tags: { role: "plugin" },
      datacenter: UNKNOWN,
    });
    expect(planned.properties.serverId).toBeUndefined();
  });

  it("creates, reads, updates knobs without a request, and deletes", async () => {
    const { name, inputs } = await checked();
    const made = await driver.create(SERVER, name, inputs, { timeout: 60 });
    expect(made.properties.serverId).toBe(made.id);
    expect(Object.keys(made.properties.endpoints as Props)).toEqual(["web"]);
    const live = liveServers(emulator).find((s) => s.id === made.id);
    expect(live?.tags[IDEMPOTENCY_TAG]).toBe(inputs.idempotencyKey);

    const read = await driver.read(SERVER, name, made.id, made.properties, inputs);
    expect(read.id).toBe(made.id);
    expect(read.properties.endpoints).toEqual(made.properties.endpoints);

    emulator.resetRequests();
    const updated = await driver.update(SERVER, name, made.id, made.properties, {
      ...inputs,
      readyTimeoutSeconds: 30,
    });
    expect(emulator.requests).toEqual([]);
    expect(updated.properties).toMatchObject({ serverId: made.id, readyTimeoutSeconds: 30 });

    await driver.delete(SERVER, name, made.id, updated.properties);
    expect(liveServers(emulator).map((s) => s.id)).not.toContain(made.id);
    expect((await driver.read(SERVER, name, made.id, made.properties, inputs)).id).toBe("");
    await expect(driver.delete(SERVER, name, made.id, updated.properties)).resolves.toBeUndefined();
  });

  // The 300-s readiness wait outlasts the test (its timeout is a hang guard): the 1-s timeout ends it or nothing.
  it("a timeout shorter than the readiness wait ends it, naming customTimeouts, and records the server, its secrets secret", {
    timeout: 60_000,
  }, async () => {
    emulator.setPlacement("never");
    const { name, inputs } = await checked({ readyTimeoutSeconds: 300, tags: { owner: secret("alice") } });
    const error = await failure(driver.create(SERVER, name, inputs, { timeout: 1 }));
    expect(error.message).toMatch(/not ready after 1s: still missing started_at.*raise the customTimeouts/);
    expect(error.initFailure?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.initFailure?.properties.serverId).toBe(error.initFailure?.id);
    // The engine shows the reasons alone (not the status message): the one reason is the whole message.
    expect(error.initFailure?.reasons).toEqual([error.message]);
    expect(liveServers(emulator).map((s) => s.id)).toContain(error.initFailure?.id);
    // What the partial create records keeps a secret input secret, as a whole create does.
    expect(error.initFailure?.properties.tags).toEqual({ owner: secret("alice") });
  });

  it("Cancel ends a create waiting for readiness; the server is still recorded", async () => {
    emulator.setPlacement("never");
    const { name, inputs } = await checked({ readyTimeoutSeconds: 300 });
    const pending = failure(driver.create(SERVER, name, inputs));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await plugin.call("cancel", plugin.empty());
    const error = await pending;
    expect(error.message).toMatch(/cancelled by the engine/);
    expect(error.initFailure?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("imports by <gameId>/<environmentId>/<serverId>: answers the normal id and inputs that diff clean", async () => {
    const { name, inputs } = await checked({ tags: { role: "imported" } });
    const made = await driver.create(SERVER, name, inputs);
    const imported = await driver.read(
      SERVER,
      "adopted",
      `${target.gameId}/${target.environmentId}/${made.id}`,
    );
    expect(imported.id).toBe(made.id);
    expect(imported.inputs).toMatchObject({ gameId: target.gameId, environmentId: target.environmentId });
    // A program declaring the server as it is: no change. Provider-only knobs are not on the live
    // server, so declaring one is an update that replaces nothing.
    const declared = spec({ tags: { role: "imported" }, readyTimeoutSeconds: undefined });
    const program = await driver.check(SERVER, "adopted", declared, imported.inputs);
    const diff = await driver.diff(SERVER, "adopted", made.id, imported.properties, program.inputs);
    expect(diff.diffs).toEqual([]);
    expect(diff.changes).toBe(prov.DiffResponse.DiffChanges.DIFF_NONE);
    const withKnob = await driver.check(
      SERVER,
      "adopted",
      spec({ tags: { role: "imported" } }),
      imported.inputs,
    );
    const knobDiff = await driver.diff(SERVER, "adopted", made.id, imported.properties, withKnob.inputs);
    expect(knobDiff).toMatchObject({ replaces: [], diffs: ["readyTimeoutSeconds"] });

    const upper = `${target.gameId.toUpperCase()}/${target.environmentId}/${made.id.replaceAll("-", "")}`;
    expect((await driver.read(SERVER, "adopted", upper)).id).toBe(made.id);
    const bad = await failure(driver.read(SERVER, "adopted", made.id));
    expect(bad.message).toMatch(/must be <gameId>\/<environmentId>\/<serverId>/);
    // Only the TypeScript face's get takes a state: the generated SDKs' get is (name, id, opts).
    expect(bad.message).toContain("TypeScript's `gamehost.native.Server.get` may instead");
    // A misspelt type (`pulumi import gamehost:index:Sever …`) or function: the message lists the right ones.
    const type = await failure(driver.read("gamehost:index:Sever", "adopted", made.id));
    expect(type.message).toMatch(
      /no resource type "gamehost:index:Sever" \(its types: .*gamehost:index:Server\b/,
    );
    const fn = await failure(driver.invoke("gamehost:index:getGme", {}));
    expect(fn.message).toMatch(
      /no function "gamehost:index:getGme" \(its functions: .*gamehost:index:getGame\b/,
    );
    // Name ids where the UUIDs go: the message says which part is not one.
    const named = await failure(driver.read(SERVER, "adopted", `space-race/prod/${made.id}`));
    expect(named.message).toContain('not a UUID: "space-race", "prod" (getEnvironment gives');
  });
});

describe("secrets", () => {
  it("unwraps secret inputs for the service and keeps them secret in inputs and outputs", async () => {
    const { name, inputs } = await checked({ tags: { role: "plugin", owner: secret("alice") } });
    expect(isSecret((inputs.tags as Props).owner)).toBe(true);
    const made = await driver.create(SERVER, name, inputs);
    expect(liveServers(emulator).find((s) => s.id === made.id)?.tags.owner).toBe("alice");
    expect(isSecret((made.properties.tags as Props).owner)).toBe(true);
  });

  it("keeps a server's environment secret when read with no recorded state (get, import), as recorded on refresh", async () => {
    const environment = { DB_PASSWORD: "hunter2" };
    const { name, inputs } = await checked({ runtime: { ...(spec().runtime as Props), environment } });
    const made = await driver.create(SERVER, name, inputs);
    const envOf = (props: Props) => (props.runtime as Props).environment;
    // Made by another stack, which may have made the values secret: `get` and `import` cannot know.
    const byId = `${target.gameId}/${target.environmentId}/${made.id}`;
    const imported = await driver.read(SERVER, "adopted", byId);
    expect(envOf(imported.properties)).toEqual(secret(environment));
    // The import's inputs go into the state as they are: secret too, so the state holds no plain copy.
    expect(envOf(imported.inputs)).toEqual(secret(environment));
    const scope = { gameId: target.gameId, environmentId: target.environmentId };
    const got = await driver.read(SERVER, "looked-up", made.id, scope);
    expect(envOf(got.properties)).toEqual(secret(environment));
    // A refresh has the recorded values: plain stays plain, a secret stays a secret.
    const refreshed = await driver.read(SERVER, name, made.id, made.properties, inputs);
    expect(envOf(refreshed.properties)).toEqual(environment);
    const secretInputs = {
      ...inputs,
      runtime: { ...(inputs.runtime as Props), environment: secret(environment) },
    };
    const refreshedSecret = await driver.read(SERVER, name, made.id, made.properties, secretInputs);
    expect(envOf(refreshedSecret.properties)).toEqual(secret(environment));
  });

  it("marks the export URL secret", async () => {
    const news = { gameId: target.gameId, queryStart: 0, queryEnd: Date.now() };
    const { inputs, failures } = await driver.check(EXPORT, "history", news);
    expect(failures).toEqual([]);
    const made = await driver.create(EXPORT, "history", inputs);
    expect(isSecret(made.properties.url)).toBe(true);
    expect(String((made.properties.url as { value: string }).value)).toMatch(/^http:\/\/127\.0\.0\.1/);
  });
});

describe("invoke", () => {
  it("runs a data source with the configured client and answers camelCase", async () => {
    const game = emulator.fixture.games[0]!;
    const { result, failures } = await driver.invoke("gamehost:index:getEnvironment", {
      game: game.nameId,
      environment: "prod",
    });
    expect(failures).toEqual([]);
    const prod = game.environments.find((e) => e.nameId === "prod")!;
    expect(result).toMatchObject({ gameId: game.id, environmentId: prod.id, gameNameId: game.nameId });
  });

  it("never names an argument sent as a secret in its error (a Python program's Output.secret)", async () => {
    const error = await failure(
      driver.invoke("gamehost:index:getEnvironment", {
        game: secret("codename-hush-hush"),
        environment: "prod",
      }),
    );
    expect(error.message).toMatch(/No game "\[redacted\]" in the caller's games \(available: /);
    expect(error.message).not.toContain("codename-hush-hush");
  });

  it("fails bad arguments as one line naming each, without calling the service", async () => {
    emulator.resetRequests();
    // One INVALID_ARGUMENT error, not the invoke's failures: the Go SDK (YAML, Go) prints failures as a
    // multi-line `1 error occurred: * … invoke failed: …` list.
    const error = await failure(driver.invoke("gamehost:index:getGame", { gameId: "nope", extra: 1 }));
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.message).toMatch(
      /^Invalid arguments of getGame: (gameId: must be a UUID .*; extra: is not a known field.*|extra: is not a known field.*; gameId: must be a UUID .*)$/,
    );
    // What is allowed, so a misspelt argument (YAML's invokes are not type-checked) can be corrected.
    expect(error.message).toContain("extra: is not a known field (known: gameId)");
    // A missing one (`games.groups[0].groupId` where a cloud token sees no group) is missing, not malformed.
    const missing = await failure(driver.invoke("gamehost:index:getGroupBilling", {}));
    expect(missing.message).toMatch(
      /^Invalid arguments of getGroupBilling: groupId: is required: it must be a UUID/,
    );
    expect(error.message).not.toContain("\n");
    expect(emulator.requests).toEqual([]);
  });

  it("wraps a secret result", async () => {
    const { result } = await driver.invoke("gamehost:index:createPaymentPortalSession", {
      groupId: emulator.fixture.games[0]!.developerGroupId,
      intent: "general",
    });
    expect(isSecret(result.url)).toBe(true);
  });
});
