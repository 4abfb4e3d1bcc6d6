import { describe, expect, it } from "vitest";
import { type ConfigEntry, type RunResult, Stack, UNKNOWN } from "../../harness/src";
import { dist } from "../support/dist";
import { liveServers, userClient, wireServerBody } from "../support/emulator";
import { until } from "../support/until";
import {
  connectionConfig,
  expectNoLeak,
  faceConfig,
  fixtureIds,
  IDEMPOTENCY_TAG,
  opsOf,
  ROUTES,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  type ServerArgsJson,
  serverArgs,
  serversEntry,
  serversTagged,
  stateOf,
  TYPES,
  useEngineEnvironment,
} from "./helpers";

const engine = useEngineEnvironment("plugin");

/** A stack of the servers program on the plugin face, with its own checkpoint. */
function pluginStack(
  config: Record<string, ConfigEntry> = {},
  extra: Partial<ConstructorParameters<typeof Stack>[0]> = {},
) {
  return new Stack({
    programDir: SERVERS_PROGRAM,
    config: { ...connectionConfig(engine.emulator), ...faceConfig("plugin"), ...config },
    checkpointFile: engine.checkpointFile(),
    ...extra,
  });
}

const key = (name: string) => `${SERVERS_PROJECT}:${name}`;

async function run(stack: Stack, op: "preview" | "up" | "refresh" | "destroy"): Promise<RunResult> {
  engine.emulator.resetRequests();
  return expectNoLeak(engine.emulator.tokens.user, stack, await stack[op]());
}

/** A server made outside Pulumi, straight through the API, as the spec `args` describes it. */
async function serverMadeByHand(tags: Record<string, string>) {
  const ids = fixtureIds(engine.emulator);
  const server = await userClient(engine.emulator).createServer(
    ids.gameId,
    ids.environmentId,
    wireServerBody(ids.datacenterId, ids.buildId, tags),
  );
  const placed = () => engine.emulator.servers().find((s) => s.id === server.id)?.started_at !== undefined;
  await until(placed, "the server made by hand to be placed");
  return { ...ids, serverId: server.id };
}

/** The spec of {@link serverMadeByHand} as a program declares it (no provider-only knobs). */
function declaredAsMade(tags: Record<string, string>): ServerArgsJson {
  const { readyTimeoutSeconds: _knob, ...spec } = serverArgs(engine.emulator, { tags });
  return spec;
}

describe("the plugin face", () => {
  it("previews with no request but a replacement's two lookups, showing every output the plan already knows", async () => {
    const declare = (overrides: ServerArgsJson) =>
      serversEntry({ web: serverArgs(engine.emulator, { tags: { role: "preview" }, ...overrides }) });
    const stack = pluginStack({ [SERVERS_KEY]: declare({}) });

    // A new stack: the plan knows the inputs; the server id only the up can give.
    const first = await run(stack, "preview");
    expect(first.error).toBeUndefined();
    expect(opsOf(first.steps)).toEqual(["web: create"]);
    expect(first.steps.find((s) => s.name === "web")?.type).toBe(TYPES.plugin.server);
    expect(first.outputs.serverIds?.value).toBe(UNKNOWN);
    expect(engine.emulator.requests).toEqual([]);
    expect(stack.checkpoint()).toBeUndefined();

    expect((await run(stack, "up")).error).toBeUndefined();
    const id = stateOf(stack, "web")?.id;
    const endpoints = stack.outputs().endpoints?.value;

    // An update of a provider-only knob: the plan keeps the server, so its id and endpoints are known.
    stack.setConfig(SERVERS_KEY, declare({ readyTimeoutSeconds: 42 }));
    const update = await run(stack, "preview");
    expect(opsOf(update.steps)).toEqual(["web: update"]);
    expect(update.outputs.serverIds?.value).toEqual({ web: id });
    expect(update.outputs.endpoints?.value).toEqual(endpoints);
    expect(engine.emulator.requests).toEqual([]);

    // A replacement: the new server gets a key of its own, never the replaced server's. Its diff asks only
    // whether the new server's build and datacenter exist (replacementTargets), changing nothing.
    const oldKey = String(stateOf(stack, "web")?.outputs.idempotencyKey);
    stack.setConfig(SERVERS_KEY, declare({ tags: { role: "preview", tier: "gold" } }));
    const replace = await run(stack, "preview");
    expect(opsOf(replace.steps)).toEqual(["web: replace", "web: delete (replaced)"]);
    const key = (replace.outputs.idempotencyKeys?.value as Record<string, string> | undefined)?.web ?? "";
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(key).not.toBe(oldKey);
    expect(engine.emulator.requests.map((r) => r.route).sort()).toEqual([
      "GET /games/:game/environments/:env/builds",
      "GET /games/:game/environments/:env/datacenters",
    ]);
    expect((await run(stack, "up")).error).toBeUndefined();
    const newKey = String(stateOf(stack, "web")?.outputs.idempotencyKey);
    expect(newKey).not.toBe(oldKey);
    expect(serversTagged(engine.emulator, IDEMPOTENCY_TAG, newKey).map((s) => s.id)).toEqual([
      stateOf(stack, "web")?.id,
    ]);
    expect((await run(stack, "destroy")).error).toBeUndefined();
  });

  it("imports a server made outside Pulumi; the next up shows no changes", async () => {
    const tags = { role: "imported" };
    const made = await serverMadeByHand(tags);
    const importId = `${made.gameId}/${made.environmentId}/${made.serverId}`;
    const stack = pluginStack({
      [SERVERS_KEY]: serversEntry({ web: declaredAsMade(tags) }),
      [key("options")]: { value: { web: { import: importId } } },
    });

    const imported = await run(stack, "up");

    expect(imported.error).toBeUndefined();
    expect(opsOf(imported.steps)).toEqual(["web: import"]);
    expect(engine.emulator.requests.map((r) => r.route)).not.toContain(ROUTES.createServer);
    // The state holds the plain server id, and the import id it came from.
    expect(stateOf(stack, "web")).toMatchObject({ id: made.serverId, importId });
    expect(imported.outputs.serverIds?.value).toEqual({ web: made.serverId });

    const again = await run(stack, "up");
    expect(again.error).toBeUndefined();
    expect(opsOf(again.steps)).toEqual(["web: same"]);
    expect(engine.emulator.requests.map((r) => r.route)).toEqual([]);

    expect((await run(stack, "destroy")).error).toBeUndefined();
    expect(engine.emulator.servers().find((s) => s.id === made.serverId)?.destroyed_at).toBeDefined();
  });

  it("refuses an import id without the game and environment, saying what it must be", async () => {
    const made = await serverMadeByHand({ role: "bad-import" });
    const stack = pluginStack({
      [SERVERS_KEY]: serversEntry({ web: declaredAsMade({ role: "bad-import" }) }),
      [key("options")]: { value: { web: { import: made.serverId } } },
    });

    const up = await run(stack, "up");

    expect(up.error).toContain("<gameId>/<environmentId>/<serverId>");
    expect(stateOf(stack, "web")).toBeUndefined();
    expect(liveServers(engine.emulator).filter((s) => s.tags.role === "bad-import")).toHaveLength(1);
  });

  it("after a plugin killed with SIGKILL mid-create, the next up converges; the unrecorded server is found by its key", async () => {
    let killed = false;
    const stack = pluginStack(
      { [SERVERS_KEY]: serversEntry({ web: serverArgs(engine.emulator, { tags: { role: "killed" } }) }) },
      {
        onProviderStarted: ({ package: pkg, host }) => {
          if (pkg !== "gamehost" || killed) return;
          // Kill the plugin as soon as the service has the server, while the create waits for readiness.
          const poll = setInterval(() => {
            if (serversTagged(engine.emulator, "role", "killed").length > 0) {
              clearInterval(poll);
              killed = true;
              host.kill("SIGKILL");
            }
          }, 5);
        },
      },
    );
    engine.emulator.setPlacement("never");
    let crashed: RunResult;
    try {
      crashed = await run(stack, "up");
    } finally {
      engine.emulator.setPlacement("auto");
    }

    expect(killed).toBe(true);
    expect(crashed.error).toBeDefined();
    // The create never answered: the state does not know the server the service made.
    expect(stateOf(stack, "web")).toBeUndefined();
    const [unrecorded] = serversTagged(engine.emulator, "role", "killed");
    expect(unrecorded?.tags[IDEMPOTENCY_TAG]).toMatch(/^[0-9a-f-]{36}$/);

    // The next up makes the stack's server: a create never adopts a server by anything but its own key,
    // the only rule under which a replacement cannot adopt the server it replaces.
    const recovered = await run(stack, "up");
    expect(recovered.error).toBeUndefined();
    expect(opsOf(recovered.steps)).toEqual(["web: create"]);
    const tracked = stateOf(stack, "web")?.id;
    expect(tracked).not.toBe(unrecorded?.id);

    // docs/reliability.md: the unrecorded server is the live one carrying the reserved tag whose id no
    // stack tracks; delete it (or adopt it with adoptServerId instead of creating).
    const untracked = liveServers(engine.emulator).filter(
      (s) => s.tags[IDEMPOTENCY_TAG] !== undefined && s.tags.role === "killed" && s.id !== tracked,
    );
    expect(untracked.map((s) => s.id)).toEqual([unrecorded?.id]);
    const { GamehostClient } = dist.api();
    const client = new GamehostClient({ baseUrl: engine.emulator.url, token: engine.emulator.tokens.user });
    const ids = fixtureIds(engine.emulator);
    await client.deleteServer(ids.gameId, ids.environmentId, unrecorded?.id ?? "");
    expect(
      liveServers(engine.emulator)
        .filter((s) => s.tags.role === "killed")
        .map((s) => s.id),
    ).toEqual([tracked]);
    expect((await run(stack, "destroy")).error).toBeUndefined();
    expect(liveServers(engine.emulator).filter((s) => s.tags.role === "killed")).toEqual([]);
  });
});
