/**
 * Scenarios 1 and 5 on the config-driven `servers` program, under both faces: a tag change replaces the
 * server (the new one is ready before the old one is deleted), a knob change is an update without API
 * calls, and (dynamic face) destroy runs the provider text stored in state even after it differs from the
 * package's current shim.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { type RunResult, Stack } from "../../harness/src";
import { liveServers } from "../support/emulator";
import {
  connectionConfig,
  expectNoLeak,
  FACES,
  faceConfig,
  opsOf,
  ROUTES,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  type ServerArgsJson,
  serverArgs,
  serversEntry,
  stateOf,
  useEngineEnvironment,
} from "./helpers";

const engine = useEngineEnvironment("changes");

/**
 * A hand-written shim, equivalent to the package's serialized one but shaped differently and printing a
 * marker on delete: what a stack created by another version of the package holds in its state.
 */
function olderShim(marker: string): string {
  return `
const impl = () => require("pulumi-gamehost/provider/server");
const provider = {
  configure: (req) => impl().configure(req),
  check: (olds, news) => impl().check(olds, news),
  diff: (id, olds, news) => impl().diff(id, olds, news),
  create: (inputs) => impl().create(inputs),
  read: (id, props) => impl().read(id, props),
  update: (id, olds, news) => impl().update(id, olds, news),
  delete: (id, props) => {
    console.log(${JSON.stringify(marker)} + " " + id);
    return impl().delete(id, props);
  },
};
exports.handler = () => provider;
`;
}

describe.each(FACES)("changing a declared server (%s face)", (face) => {
  let stack: Stack;
  /** Server ids in creation order, across the face's runs. */
  const createdIds: string[] = [];

  beforeAll(() => {
    stack = new Stack({
      programDir: SERVERS_PROGRAM,
      config: { ...connectionConfig(engine.emulator), ...faceConfig(face) },
      checkpointFile: engine.checkpointFile(face),
    });
  });

  async function run(op: "up" | "destroy"): Promise<RunResult> {
    engine.emulator.resetRequests();
    return expectNoLeak(engine.emulator.tokens.user, stack, await stack[op]());
  }

  function declare(web: ServerArgsJson): void {
    stack.setConfig(SERVERS_KEY, serversEntry({ web }));
  }

  it("up creates the server", async () => {
    declare(serverArgs(engine.emulator));

    const up = await run("up");

    expect(up.error).toBeUndefined();
    expect(opsOf(up.steps)).toEqual(["web: create"]);
    const [server] = liveServers(engine.emulator);
    expect(server).toBeDefined();
    createdIds.push(server?.id ?? "");
    expect(stateOf(stack, "web")?.id).toBe(server?.id);
    // As the engine's SerializeResource: no customTimeouts set, none stored (the SDK always sends zeros).
    expect(stateOf(stack, "web")).not.toHaveProperty("customTimeouts");
    expect(up.outputs.serverIds?.value).toEqual({ web: server?.id });
  });

  it("a tag change creates the new server, ready, before deleting the old one", async () => {
    const oldId = createdIds[0];
    declare(serverArgs(engine.emulator, { tags: { role: "web", tier: "gold" } }));

    const up = await run("up");

    expect(up.error).toBeUndefined();
    // Create-before-delete: the replacement first, the old half deleted afterwards.
    expect(opsOf(up.steps)).toEqual(["web: replace", "web: delete (replaced)"]);
    const replace = up.steps.find((s) => s.op === "replace");
    expect(replace).toMatchObject({ oldId, deleteBeforeReplace: false });
    expect(replace?.replaceKeys).toContain("tags");
    const newId = replace?.id ?? "";
    createdIds.push(newId);
    expect(newId).not.toBe(oldId);

    const servers = engine.emulator.servers();
    const oldServer = servers.find((s) => s.id === oldId);
    const newServer = servers.find((s) => s.id === newId);
    expect(newServer?.tags.tier).toBe("gold");
    expect(newServer?.destroyed_at).toBeUndefined();
    expect(oldServer?.destroyed_at).toBeDefined();
    // The new server existed, and was placed (ready), no later than the old one went away.
    expect(newServer?.created_at ?? Infinity).toBeLessThanOrEqual(oldServer?.destroyed_at ?? -Infinity);
    expect(newServer?.started_at).toBeDefined();
    expect(newServer?.started_at ?? Infinity).toBeLessThanOrEqual(oldServer?.destroyed_at ?? -Infinity);
    // And on the wire: the create, then the readiness poll, then the old server's delete.
    const log = engine.emulator.requests;
    const createAt = log.findIndex((r) => r.route === ROUTES.createServer);
    const readyAt = log.findIndex((r) => r.route === ROUTES.getServer && r.path.endsWith(newId));
    const deleteAt = log.findIndex((r) => r.route === ROUTES.deleteServer);
    expect(createAt).toBeGreaterThanOrEqual(0);
    expect(log[deleteAt]?.path.endsWith(`/servers/${oldId}`)).toBe(true);
    expect(createAt).toBeLessThan(deleteAt);
    expect(readyAt).toBeLessThan(deleteAt);

    expect(liveServers(engine.emulator).map((s) => s.id)).toEqual([newId]);
    const states = stack.resources().filter((r) => r.urn.endsWith("::web"));
    expect(states.map((r) => r.id)).toEqual([newId]);
    expect(states[0]?.delete).toBeUndefined();
  });

  it("changing readyTimeoutSeconds is an update that calls no API", async () => {
    const id = createdIds[1];
    declare(serverArgs(engine.emulator, { tags: { role: "web", tier: "gold" }, readyTimeoutSeconds: 42 }));

    const up = await run("up");

    expect(up.error).toBeUndefined();
    expect(opsOf(up.steps)).toEqual(["web: update"]);
    const update = up.steps.find((s) => s.op === "update");
    expect(update).toMatchObject({ oldId: id, id });
    // The dynamic host reports no per-key diffs (DiffResponse carries only changes/replaces); the plugin does.
    if (face === "plugin") expect(update?.diffs).toEqual(["readyTimeoutSeconds"]);
    expect(engine.emulator.requests).toEqual([]);
    expect(stateOf(stack, "web")).toMatchObject({
      id,
      inputs: { readyTimeoutSeconds: 42 },
      outputs: { readyTimeoutSeconds: 42, serverId: id },
    });
    expect(liveServers(engine.emulator).map((s) => s.id)).toEqual([id]);
  });

  if (face === "dynamic")
    it("destroy runs the provider text stored in state, not the package's current shim", async () => {
      const id = createdIds[1] ?? "";
      const marker = `stored-shim-${randomUUID()}`;
      const checkpoint = stack.checkpoint();
      const web = checkpoint?.checkpoint.latest.resources.find((r) => r.urn.endsWith("::web"));
      const stored = web?.outputs as { __provider?: string } | undefined;
      expect(stored?.__provider).toContain("pulumi-gamehost/provider/server");
      expect(stored?.__provider).not.toContain(marker);
      const shim = olderShim(marker);
      (web?.inputs as { __provider?: string }).__provider = shim;
      (web?.outputs as { __provider?: string }).__provider = shim;
      fs.writeFileSync(stack.checkpointFile, JSON.stringify(checkpoint, null, 2));

      const destroy = await run("destroy");

      expect(destroy.error).toBeUndefined();
      expect(opsOf(destroy.steps)).toEqual(["web: delete"]);
      const printed = destroy.diagnostics.filter((d) => d.source === "provider-stdout").map((d) => d.message);
      expect(printed).toContain(`${marker} ${id}`);
      expect(engine.emulator.requests.map((r) => `${r.route} ${r.status}`)).toEqual([
        `${ROUTES.deleteServer} 200`,
      ]);
      expect(liveServers(engine.emulator)).toEqual([]);
      expect(stack.resources()).toEqual([]);
    });

  if (face === "plugin")
    it("destroy deletes the server through the plugin", async () => {
      const id = createdIds[1] ?? "";
      const destroy = await run("destroy");
      expect(destroy.error).toBeUndefined();
      expect(opsOf(destroy.steps)).toEqual(["web: delete"]);
      expect(engine.emulator.requests.map((r) => `${r.route} ${r.status}`)).toEqual([
        `${ROUTES.deleteServer} 200`,
      ]);
      expect(engine.emulator.servers().find((s) => s.id === id)?.destroyed_at).toBeDefined();
      expect(stack.resources()).toEqual([]);
    });
});
