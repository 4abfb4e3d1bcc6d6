/**
 * The same program through our engine reproduction (`harness/`) and through the real `pulumi` CLI must
 * give the same steps, stack outputs and resource state (ids, timestamps, addresses, the random
 * idempotency key and the stack's own names aside): the servers program on both faces, through up, a
 * change that updates, a change that replaces, and destroy.
 */
import { describe, expect, it } from "vitest";
import { type JsonValue, Stack, type Step } from "../../harness/src";
import {
  FACES,
  faceConfig,
  IDEMPOTENCY_TAG,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  serverArgs,
  serversEntry,
  TYPES,
} from "../engine/helpers";
import { type CliProject, programProject, realCli, realCliTitle } from "../support/realPulumi";
import { configure, useCliEnvironment } from "./helpers";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME_KEYS = /(^|_)(created|started|destroyed|updated)(_at|At)$|At$/;

/** A value with what differs between two runs of the same program replaced by placeholders. */
function normalize(value: unknown, key = ""): unknown {
  if (key === "idempotencyKey" || key === IDEMPOTENCY_TAG) return "<key>";
  if (TIME_KEYS.test(key) && (typeof value === "number" || typeof value === "string")) return "<time>";
  if (Array.isArray(value)) return value.map((v) => normalize(v));
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    // A secret: the CLI's checkpoint holds it encrypted, the harness's by its own encoding.
    if ("4dabf18193072939515e22adb298388d" in record) return "<secret>";
    return Object.fromEntries(
      Object.entries(record)
        .filter(([k]) => k !== "__provider")
        .map(([k, v]) => [k, normalize(v, k)]),
    );
  }
  if (typeof value === "string")
    return value
      .replace(UUID, "<uuid>")
      .replace(/\b\d{4}-\d\d-\d\dT[\d:.]+Z\b/g, "<time>")
      .replace(/:\d+\b/g, ":<port>")
      .replace(/^[0-9a-f]{32,64}$/, "<hex>");
  if (typeof value === "number" && (key === "publicPort" || key === "public_port")) return "<port>";
  return value;
}

/** Ops per resource name of the program's servers, in the CLI's words. */
type Ops = Record<string, string[]>;

function harnessOps(steps: readonly Step[], type: string): Ops {
  const ops: Ops = {};
  for (const s of steps.filter((s) => s.type === type)) {
    const words =
      s.op === "replace"
        ? s.deleteBeforeReplace
          ? ["delete-replaced", "replace", "create-replacement"]
          : ["create-replacement", "replace"]
        : s.op === "delete" && s.replaced
          ? s.deleteBeforeReplace
            ? []
            : ["delete-replaced"]
          : [s.op];
    ops[s.name] = [...(ops[s.name] ?? []), ...words];
  }
  return ops;
}

function cliOps(steps: ReadonlyArray<[string, string]>): Ops {
  const ops: Ops = {};
  for (const [op, name] of steps) ops[name] = [...(ops[name] ?? []), op];
  return ops;
}

/** The program's servers in a state: name → normalized inputs and outputs. */
function stateOf(
  resources: ReadonlyArray<{
    urn: string;
    type: string;
    inputs?: unknown;
    outputs?: unknown;
    delete?: boolean;
  }>,
  type: string,
) {
  return Object.fromEntries(
    resources
      .filter((r) => r.type === type && !r.delete)
      .map((r) => [r.urn.split("::").pop(), { inputs: normalize(r.inputs), outputs: normalize(r.outputs) }]),
  );
}

describe.skipIf(!realCli)(realCliTitle("harness and real CLI: the same steps, outputs and state"), () => {
  const setup = useCliEnvironment("differential");

  it.each(FACES)("the %s face: up, update, replace, destroy", { timeout: 900_000 }, async (face) => {
    const type = TYPES[face].server;
    const declare = (over: Record<string, JsonValue>) => ({
      web: serverArgs(setup.emulator, { tags: { role: "web", face }, ...over }),
      api: serverArgs(setup.emulator, { tags: { role: "api", face } }),
    });
    const changes: Array<{ label: string; servers: ReturnType<typeof declare>; ops: Ops }> = [
      { label: "up", servers: declare({}), ops: { web: ["create"], api: ["create"] } },
      {
        label: "update",
        servers: declare({ readyTimeoutSeconds: 42 }),
        ops: { web: ["update"], api: ["same"] },
      },
      {
        label: "replace",
        servers: declare({ readyTimeoutSeconds: 42, tags: { role: "web", face, tier: "gold" } }),
        ops: { web: ["create-replacement", "replace", "delete-replaced"], api: ["same"] },
      },
    ];

    const stack = new Stack({
      programDir: SERVERS_PROGRAM,
      config: {
        "gamehost:baseUrl": { value: setup.emulator.url },
        "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
        ...faceConfig(face),
      },
      checkpointFile: `${setup.root}/harness-${face}.json`,
    });
    const cli: CliProject = programProject(setup.root, `cli-${face}`, SERVERS_PROGRAM, {
      name: SERVERS_PROJECT,
      plugin: true,
    });
    await configure(cli, {
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
      [`${SERVERS_PROJECT}:face`]: { value: face },
    });

    for (const { label, servers, ops } of changes) {
      stack.setConfig(SERVERS_KEY, serversEntry(servers));
      const harness = await stack.up();
      expect(harness.error, label).toBeUndefined();
      await cli.ok(["config", "set", "--", SERVERS_KEY, JSON.stringify(servers)]);
      const steps = await cli.stepsOf(["up", "--yes", "--skip-preview"], [type]);

      expect(cliOps(steps), label).toEqual(ops);
      expect(harnessOps(harness.steps, type), label).toEqual(ops);
      const outputs = Object.fromEntries(
        Object.entries(harness.outputs).map(([k, v]) => [k, normalize(v.value, k)]),
      );
      expect(Object.keys(outputs).sort(), label).toEqual([
        "endpoints",
        "found",
        "idempotencyKeys",
        "serverIds",
      ]);
      expect(normalize(await cli.outputsJson()), label).toEqual(outputs);
      const state = stateOf(stack.resources(), type);
      expect(Object.keys(state).sort(), label).toEqual(["api", "web"]);
      expect(stateOf(await cli.exported(), type), label).toEqual(state);
    }

    const destroyed = await stack.destroy();
    const steps = await cli.stepsOf(["destroy", "--yes", "--skip-preview"], [type]);
    expect(cliOps(steps)).toEqual({ web: ["delete"], api: ["delete"] });
    expect(harnessOps(destroyed.steps, type)).toEqual(cliOps(steps));
    expect(stateOf(await cli.exported(), type)).toEqual({});
    expect(stateOf(stack.resources(), type)).toEqual({});
  });
});
