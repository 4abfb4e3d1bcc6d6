/**
 * What a user reads when a run fails, as the engine reports it: each failure once, as cause and fix, with no
 * stack trace, no `Error:` noise and the same words under both faces (only the type token differs), for a
 * resource's check, a provider call, and a data source in the program.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigEntry, type Diagnostic, type RunResult, Stack } from "../../harness/src";
import type { RunningEmulator } from "../../src/emulator";
import { startTestEmulator } from "../support/emulator";
import {
  FACES,
  faceConfig,
  QUICKSTART_DIR,
  quickstartConfig,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  serverArgs,
  serversEntry,
  TYPES,
} from "./helpers";

let emulator: RunningEmulator;
let stateDir: string;
let stackCount = 0;

beforeAll(async () => {
  emulator = await startTestEmulator();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-error-text-"));
});

afterAll(async () => {
  await emulator?.stop();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

/** Errors a user sees: engine and program diagnostics of severity error. */
const errorsOf = (result: RunResult): Diagnostic[] =>
  result.diagnostics.filter(
    (d) => d.severity === "error" && (d.source === "engine" || d.source === "program"),
  );

/** The checks every failure's text must pass. */
function expectReadable(message: string, cause: string): void {
  expect(message.split(cause).length - 1, `"${cause}" said once in: ${message}`).toBe(1);
  expect(message, "no stack trace").not.toMatch(/^\s+at .+[:(]\d+/m);
  expect(message, "no error class noise").not.toMatch(/\b(Error|GamehostConfigError|RunError):/);
  expect(message.length, message).toBeLessThan(400);
}

const texts: Record<string, Record<string, string>> = {};

describe.each(FACES)("failures as the %s face reports them", (face) => {
  const stackOf = (
    extra: Record<string, ConfigEntry>,
    { token = true, env }: { token?: boolean; env?: Record<string, string | undefined> } = {},
  ) =>
    new Stack({
      programDir: SERVERS_PROGRAM,
      config: {
        "gamehost:baseUrl": { value: emulator.url },
        ...(token ? { "gamehost:token": { value: emulator.tokens.user, secret: true } } : {}),
        ...faceConfig(face),
        ...extra,
      },
      checkpointFile: path.join(stateDir, `stack-${++stackCount}.json`),
      ...(env ? { env } : {}),
    });

  it("a bad argument: one error naming the property and what is allowed", async () => {
    const stack = stackOf({
      [SERVERS_KEY]: serversEntry({ web: serverArgs(emulator, { resources: { cpu: -1, memory: 256 } }) }),
    });

    const up = await stack.up();

    const errors = errorsOf(up);
    expect(errors).toHaveLength(1);
    const message = errors[0]?.message ?? "";
    expect(message).toContain("property resources.cpu: must be a positive integer");
    expectReadable(message, "must be a positive integer");
    texts[face] = { ...texts[face], check: message.replace(TYPES[face].server, "<type>") };
  });

  it("a missing token: one error naming the config key and the environment variable", async () => {
    const stack = stackOf(
      { [SERVERS_KEY]: serversEntry({ web: serverArgs(emulator) }) },
      { token: false, env: { GAMEHOST_TOKEN: undefined } },
    );

    const up = await stack.up();

    const errors = errorsOf(up);
    expect(errors).toHaveLength(1);
    const message = errors[0]?.message ?? "";
    expect(message).toContain("`pulumi config set --secret gamehost:token <value>`");
    expect(message).toContain("GAMEHOST_TOKEN");
    expectReadable(message, "is not set");
    texts[face] = { ...texts[face], token: message.replace(TYPES[face].server, "<type>") };
  });
});

describe("both faces", () => {
  it("say the same words", () => {
    expect(texts.plugin).toEqual(texts.dynamic);
    expect(Object.keys(texts.dynamic ?? {})).toEqual(["check", "token"]);
  });

  it("a data source in the program fails with its message alone, once for every data source", async () => {
    const { "gamehost:token": _token, ...config } = quickstartConfig(emulator);
    const stack = new Stack({
      programDir: QUICKSTART_DIR,
      config,
      checkpointFile: path.join(stateDir, `stack-${++stackCount}.json`),
      env: { GAMEHOST_TOKEN: undefined },
    });

    const up = await stack.up();

    const program = errorsOf(up).filter((d) => d.source === "program");
    expect(program).toHaveLength(1);
    const message = program[0]?.message ?? "";
    expect(message).toContain("GAMEHOST_TOKEN");
    expectReadable(message, "is not set");
  });
});
