/**
 * A state written by an earlier build, whose idempotency key was a hash of the spec, is migrated by an update
 * that calls no API (both faces). The state is edited by hand, which the CLI offers no step for; the
 * replacements themselves (`--replace`, replaceOnChanges, replacementTrigger) run through the real CLI in
 * test/cli/replacements.test.ts.
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

// Several runs per test, each spawning the language and provider hosts.
describe.each(FACES)("a state of an earlier build (%s face)", { timeout: 120_000 }, (face) => {
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
