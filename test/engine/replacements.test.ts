/**
 * Replacements that leave the spec as it is (issue: a replacement adopted the very server it replaced,
 * which the engine then deleted). The engine checks every replacement as a new resource, so each kind of
 * replacement must end with exactly one live server, the new one, tracked by the stack, under both faces.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
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
  ROUTES,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  type ServerArgsJson,
  serverArgs,
  serversEntry,
  stateOf,
  useEngineEnvironment,
} from "./helpers";

const engine = useEngineEnvironment("replacements");

function stackOf(face: Face, web: ServerArgsJson, options: ConfigEntry["value"] = {}): Stack {
  return new Stack({
    programDir: SERVERS_PROGRAM,
    config: {
      ...connectionConfig(engine.emulator),
      ...faceConfig(face),
      [SERVERS_KEY]: serversEntry({ web }),
      [`${SERVERS_PROJECT}:options`]: { value: options },
    },
    checkpointFile: engine.checkpointFile(),
  });
}

async function run(stack: Stack, op: Promise<RunResult>): Promise<RunResult> {
  return expectNoLeak(engine.emulator.tokens.user, stack, await op);
}

/** Live servers of one test (by its role tag). */
const liveTagged = (role: string) => liveServers(engine.emulator).filter((s) => s.tags.role === role);

/** After a replacement: one live server, not the old one, tracked by the stack, kept by a refresh. */
async function expectOnlyTheNewServer(stack: Stack, role: string, oldId: string | undefined) {
  const newId = stateOf(stack, "web")?.id;
  expect(newId).toBeTruthy();
  expect(newId).not.toBe(oldId);
  expect(liveTagged(role).map((s) => s.id)).toEqual([newId]);
  const refreshed = await run(stack, stack.refresh());
  expect(refreshed.error).toBeUndefined();
  expect(stateOf(stack, "web")?.id).toBe(newId);
  expect((await run(stack, stack.destroy())).error).toBeUndefined();
  expect(liveTagged(role)).toEqual([]);
}

// Several runs per test, each spawning the language and provider hosts.
describe.each(FACES)("a replacement without a spec change (%s face)", { timeout: 120_000 }, (face) => {
  it("replaceOnChanges on a provider-only setting makes a new server and deletes only the old one", async () => {
    const role = `roc-${face}`;
    const options = { web: { replaceOnChanges: ["readyTimeoutSeconds"] } };
    const stack = stackOf(face, serverArgs(engine.emulator, { tags: { role } }), options);
    expect((await run(stack, stack.up())).error).toBeUndefined();
    const oldId = stateOf(stack, "web")?.id;

    stack.setConfig(
      SERVERS_KEY,
      serversEntry({ web: serverArgs(engine.emulator, { tags: { role }, readyTimeoutSeconds: 11 }) }),
    );
    const replaced = await run(stack, stack.up());

    expect(replaced.error).toBeUndefined();
    if (face === "dynamic") {
      // The dynamic provider host reports no changed keys, so the engine cannot apply replaceOnChanges to
      // a property the provider itself does not replace on: an update, and the server is kept.
      expect(opsOf(replaced.steps)).toEqual(["web: update"]);
      expect(liveTagged(role).map((s) => s.id)).toEqual([oldId]);
      expect((await run(stack, stack.destroy())).error).toBeUndefined();
      return;
    }
    expect(opsOf(replaced.steps)).toEqual(["web: replace", "web: delete (replaced)"]);
    await expectOnlyTheNewServer(stack, role, oldId);
  });

  it("`up --replace <urn>` makes a new server and deletes only the old one", async () => {
    const role = `targeted-${face}`;
    const stack = stackOf(face, serverArgs(engine.emulator, { tags: { role } }));
    expect((await run(stack, stack.up())).error).toBeUndefined();
    const old = stateOf(stack, "web");

    engine.emulator.resetRequests();
    const replaced = await run(stack, stack.up({ replace: [old?.urn ?? ""] }));

    expect(replaced.error).toBeUndefined();
    expect(opsOf(replaced.steps)).toEqual(["web: replace", "web: delete (replaced)"]);
    expect(engine.emulator.requests.filter((r) => r.route === ROUTES.createServer)).toHaveLength(1);
    await expectOnlyTheNewServer(stack, role, old?.id);
  });

  it("a state of an earlier build (a key hashed from the spec) is rewritten by an update that calls no API", async () => {
    const role = `legacy-${face}`;
    const stack = stackOf(face, serverArgs(engine.emulator, { tags: { role } }));
    expect((await run(stack, stack.up())).error).toBeUndefined();
    const id = stateOf(stack, "web")?.id;
    // What earlier builds stored: a 32-hex hash of the spec (secret values included) as input and output.
    const legacyKey = "0123456789abcdef0123456789abcdef";
    const text = fs.readFileSync(stack.checkpointFile, "utf8");
    const current = String(stateOf(stack, "web")?.outputs.idempotencyKey);
    fs.writeFileSync(stack.checkpointFile, text.replaceAll(current, legacyKey));

    engine.emulator.resetRequests();
    const migrated = await run(stack, stack.up());

    expect(migrated.error).toBeUndefined();
    expect(opsOf(migrated.steps)).toEqual(["web: update"]);
    expect(engine.emulator.requests.map((r) => r.route)).not.toContain(ROUTES.createServer);
    expect(engine.emulator.requests.map((r) => r.route)).not.toContain(ROUTES.deleteServer);
    const state = stateOf(stack, "web");
    expect(state?.id).toBe(id);
    for (const props of [state?.inputs, state?.outputs]) {
      expect(props?.idempotencyKey).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
    expect(fs.readFileSync(stack.checkpointFile, "utf8")).not.toContain(legacyKey);
    const again = await run(stack, stack.up());
    expect(opsOf(again.steps)).toEqual(["web: same"]);
    expect(liveTagged(role).map((s) => s.tags[IDEMPOTENCY_TAG] !== undefined)).toEqual([true]);
    expect((await run(stack, stack.destroy())).error).toBeUndefined();
  });
});
