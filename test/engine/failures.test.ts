import { beforeAll, describe, expect, it } from "vitest";
import { type ConfigEntry, type RunResult, Stack } from "../../harness/src";
import { liveServers } from "../support/emulator";
import {
  connectionConfig,
  expectNoLeak,
  FACES,
  type Face,
  faceConfig,
  IDEMPOTENCY_TAG,
  opsOf,
  QUICKSTART_DIR,
  quickstartConfig,
  ROUTES,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  type ServerArgsJson,
  serverArgs,
  serversEntry,
  serversTagged,
  stateOf,
  useEngineEnvironment,
} from "./helpers";

const engine = useEngineEnvironment("failures");

/** A stack of the servers program with its own checkpoint, declaring `servers` with one face. */
function serversStack(
  face: Face,
  servers: Record<string, ServerArgsJson>,
  config: Record<string, ConfigEntry> = connectionConfig(engine.emulator),
  env?: Record<string, string | undefined>,
): Stack {
  return new Stack({
    programDir: SERVERS_PROGRAM,
    config: { ...config, ...faceConfig(face), [SERVERS_KEY]: serversEntry(servers) },
    checkpointFile: engine.checkpointFile(),
    ...(env ? { env } : {}),
  });
}

async function run(stack: Stack, op: "up" | "refresh" | "destroy"): Promise<RunResult> {
  engine.emulator.resetRequests();
  return expectNoLeak(engine.emulator.tokens.user, stack, await stack[op]());
}

describe.each(FACES)("a server that is created but never ready (%s face)", (face) => {
  let stack: Stack;
  let id = "";

  beforeAll(() => {
    stack = serversStack(face, {
      slow: serverArgs(engine.emulator, { tags: { role: `never-ready-${face}` }, readyTimeoutSeconds: 1 }),
    });
  });

  it("fails the up with its id, and stays in the checkpoint with init errors", async () => {
    engine.emulator.setPlacement("never");
    let failed: RunResult;
    try {
      failed = await run(stack, "up");
    } finally {
      engine.emulator.setPlacement("auto");
    }

    const created = serversTagged(engine.emulator, "role", `never-ready-${face}`);
    expect(created).toHaveLength(1);
    id = created[0]?.id ?? "";
    expect(created[0]?.started_at).toBeUndefined();
    expect(failed.error).toContain(id);
    const step = failed.steps.find((s) => s.name === "slow");
    expect(step).toMatchObject({ op: "create", id });
    expect(step?.initErrors?.length).toBeGreaterThan(0);
    expect(step?.error).toContain(id);
    const recorded = stateOf(stack, "slow");
    expect(recorded?.id).toBe(id);
    expect(recorded?.initErrors).toEqual(step?.initErrors);
  });

  it("the next up, with placement back on, is an update that finishes waiting", async () => {
    const healed = await run(stack, "up");

    expect(healed.error).toBeUndefined();
    expect(opsOf(healed.steps)).toEqual(["slow: update"]);
    expect(engine.emulator.requests.map((r) => r.route)).not.toContain(ROUTES.createServer);
    expect(serversTagged(engine.emulator, "role", `never-ready-${face}`).map((s) => s.id)).toEqual([id]);
    const state = stateOf(stack, "slow");
    expect(state?.id).toBe(id);
    expect(state?.initErrors).toBeUndefined();
    const server = engine.emulator.servers().find((s) => s.id === id);
    expect(server?.started_at).toBeDefined();
    const web = server?.network.ports.web;
    expect(healed.outputs.endpoints?.value).toEqual({
      slow: { web: `${web?.public_hostname}:${web?.public_port}` },
    });
  });

  it("destroy removes it", async () => {
    const destroyed = await run(stack, "destroy");

    expect(destroyed.error).toBeUndefined();
    expect(opsOf(destroyed.steps)).toEqual(["slow: delete"]);
    expect(engine.emulator.servers().find((s) => s.id === id)?.destroyed_at).toBeDefined();
    expect(stack.resources()).toEqual([]);
  });
});

describe.each(FACES)("a create whose response is lost (%s face)", (face) => {
  it("adopts the server the service made: exactly one, and it is in the checkpoint", async () => {
    const stack = serversStack(face, {
      lost: serverArgs(engine.emulator, { tags: { role: `lost-response-${face}` } }),
    });
    engine.emulator.faults.inject({ method: "POST", path: /\/servers$/, kind: "commit_then_reset" });

    const up = await run(stack, "up");

    expect(up.error).toBeUndefined();
    expect(opsOf(up.steps)).toEqual(["lost: create"]);
    expect(engine.emulator.faults.pending()).toEqual([]);
    // The one POST was committed, then its connection dropped (status 0): the answer never arrived.
    const posts = engine.emulator.requests.filter((r) => r.route === ROUTES.createServer);
    expect(posts.map((r) => r.status)).toEqual([0]);
    const state = stateOf(stack, "lost");
    const key = String(state?.outputs.idempotencyKey);
    const withKey = serversTagged(engine.emulator, IDEMPOTENCY_TAG, key);
    expect(withKey.map((s) => s.id)).toEqual([state?.id]);
    expect(withKey[0]?.destroyed_at).toBeUndefined();
    expect(withKey[0]?.started_at).toBeDefined();
  });
});

describe.each(FACES)("bad arguments (%s face)", (face) => {
  it("fail the check with property paths, and nothing is created", async () => {
    const before = engine.emulator.servers().length;
    const stack = serversStack(face, {
      bad: serverArgs(engine.emulator, {
        network: { ports: { web: { protocol: "carrier-pigeon", internalPort: 8080 } } },
        resources: { cpu: -250, memory: 256 },
      }),
    });

    const up = await run(stack, "up");

    // The engine's words (as the real CLI prints them): one line per failure, naming the property.
    expect(up.error).toMatch(
      /property network\.ports\.web\.protocol value \{<nil>\} has a problem: .*(http|udp)/,
    );
    expect(up.error).toMatch(/property resources\.cpu value \{<nil>\} has a problem: \S/);
    expect(up.error).toContain("resource 'bad'");
    expect(opsOf(up.steps)).toEqual([]);
    expect(engine.emulator.requests).toEqual([]);
    expect(engine.emulator.servers()).toHaveLength(before);
    expect(stateOf(stack, "bad")).toBeUndefined();
  });
});

describe.each(FACES)("a missing token (%s face)", (face) => {
  const noToken = () => ({ "gamehost:baseUrl": { value: engine.emulator.url } });
  // Unset in the hosts' environment whatever the test runner's environment holds.
  const env = { GAMEHOST_TOKEN: undefined };

  function expectNamesTokenSettings(result: RunResult): void {
    expect(result.error).toContain("gamehost:token");
    expect(result.error).toContain("GAMEHOST_TOKEN");
    // Fails at the first use, before any call: nothing reaches the service, so nothing was retried or waited
    // for. (A bound on the run's wall time stood here and failed on a loaded machine: 19 s, all start-up.)
    expect(engine.emulator.requests).toEqual([]);
  }

  it("fails the provider's create fast, naming gamehost:token and GAMEHOST_TOKEN", async () => {
    const before = liveServers(engine.emulator).length;
    const stack = serversStack(face, { tokenless: serverArgs(engine.emulator) }, noToken(), env);

    const up = await run(stack, "up");

    expectNamesTokenSettings(up);
    expect(up.steps.find((s) => s.name === "tokenless")).toMatchObject({ op: "create" });
    expect(liveServers(engine.emulator)).toHaveLength(before);
    expect(stateOf(stack, "tokenless")).toBeUndefined();
  });

  // The quickstart uses the dynamic face.
  if (face === "dynamic")
    it("fails the quickstart's data sources the same way", async () => {
      const { "gamehost:token": _token, ...config } = quickstartConfig(engine.emulator);
      const stack = new Stack({
        programDir: QUICKSTART_DIR,
        config,
        checkpointFile: engine.checkpointFile(),
        env,
      });

      const up = await run(stack, "up");

      expectNamesTokenSettings(up);
      // The servers were registered before the data sources ran; their creates fail the same way.
      const creates = up.steps.filter(
        (s) => s.op === "create" && s.type.startsWith("pulumi-nodejs:dynamic/"),
      );
      for (const step of creates) expect(step.error).toContain("GAMEHOST_TOKEN");
      expect(stack.resources().filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"))).toEqual([]);
    });
});

describe.each(FACES)("a base URL with a wrong path prefix (%s face)", (face) => {
  // Every route then answers 404 API_NOT_FOUND: an unknown route, never a gone server.
  const wrongPrefix = () => ({
    ...connectionConfig(engine.emulator),
    "gamehost:baseUrl": { value: `${engine.emulator.url}/api/v1` },
  });

  it("makes refresh fail loudly and keep every server; destroy fails instead of forgetting them", async () => {
    const stack = serversStack(face, {
      a: serverArgs(engine.emulator, { tags: { role: `prefix-a-${face}` } }),
      b: serverArgs(engine.emulator, { tags: { role: `prefix-b-${face}` } }),
    });
    expect((await run(stack, "up")).error).toBeUndefined();
    const ids = ["a", "b"].map((name) => stateOf(stack, name)?.id);

    // Refresh and destroy use the provider configuration stored in the state (the plugin's provider
    // inputs; the dynamic host reads the stack config), so an up records the new URL first — an up that
    // changes no server and so calls nothing.
    stack.setConfig("gamehost:baseUrl", wrongPrefix()["gamehost:baseUrl"]);
    const noChange = await run(stack, "up");
    expect(noChange.error).toBeUndefined();
    expect(opsOf(noChange.steps)).toEqual(["a: same", "b: same"]);
    expect(engine.emulator.requests).toEqual([]);
    const refresh = await run(stack, "refresh");
    expect(refresh.error).toMatch(/404 API_NOT_FOUND/);
    expect(refresh.steps.filter((s) => s.gone)).toEqual([]);
    expect(["a", "b"].map((name) => stateOf(stack, name)?.id)).toEqual(ids);

    const destroy = await run(stack, "destroy");
    expect(destroy.error).toMatch(/404 API_NOT_FOUND/);
    expect(
      stack
        .resources()
        .filter((r) => r.custom && r.id)
        .map((r) => r.id),
    ).toEqual(expect.arrayContaining(ids));
    expect(liveServers(engine.emulator).map((s) => s.id)).toEqual(expect.arrayContaining(ids));

    stack.setConfig("gamehost:baseUrl", connectionConfig(engine.emulator)["gamehost:baseUrl"]!);
    expect((await run(stack, "up")).error).toBeUndefined();
    expect((await run(stack, "destroy")).error).toBeUndefined();
    expect(liveServers(engine.emulator).filter((s) => ids.includes(s.id))).toEqual([]);
  });
});
