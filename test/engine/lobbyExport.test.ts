/**
 * examples/lobby-export, run unchanged through the engine harness: the export's summary matches the CSV
 * behind its URL, the URL is a secret in the state, a re-run changes nothing, a new `generation` exports
 * again, and destroy removes it without calling the service.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { isSecret, type RunResult, Stack } from "../../harness/src";
import { REPO_ROOT } from "../support/dist";
import {
  connectionConfig,
  EXPORT_TYPE,
  expectNoLeak,
  fixtureIds,
  opsOf,
  ROUTES,
  routesCalled,
  useEngineEnvironment,
} from "./helpers";

const PROGRAM = path.join(REPO_ROOT, "examples", "lobby-export");
// The default fixture's sample span (see its $comment): lobbies of every inclusion case.
const FROM = "2024-08-16T00:00:00.000Z";
const TO = "2024-08-17T00:00:00.000Z";

const engine = useEngineEnvironment("export");
let stack: Stack;

async function run(op: "up" | "destroy"): Promise<RunResult> {
  engine.emulator.resetRequests();
  const result = expectNoLeak(engine.emulator.tokens.user, stack, await stack[op]());
  expect(result.error).toBeUndefined();
  return result;
}

beforeAll(() => {
  const emulator = engine.emulator;
  stack = new Stack({
    programDir: PROGRAM,
    config: {
      ...connectionConfig(emulator),
      "gamehost-lobby-export:game": { value: fixtureIds(emulator).gameNameId },
      "gamehost-lobby-export:from": { value: FROM },
      "gamehost-lobby-export:to": { value: TO },
    },
    checkpointFile: engine.checkpointFile("dev"),
  });
});

describe("examples/lobby-export through the engine harness", () => {
  let firstUrl = "";

  it("exports the span and summarizes exactly the CSV behind the secret URL", async () => {
    const up = await run("up");
    expect(opsOf(up.steps)).toEqual(["history: create"]);
    expect(up.outputs.url?.secret).toBe(true);
    firstUrl = up.outputs.url?.value as string;
    const csv = Buffer.from(await (await fetch(firstUrl)).arrayBuffer());
    const records = parse(csv) as string[][];
    expect(up.outputs.rows?.value).toBe(records.length - 1);
    expect(records.length - 1).toBeGreaterThan(0);
    expect(up.outputs.bytes?.value).toBe(csv.length);
    expect(up.outputs.sha256?.value).toBe(createHash("sha256").update(csv).digest("hex"));
    const state = stack.resources().find((r) => r.type === EXPORT_TYPE);
    expect(isSecret(state?.outputs?.url)).toBe(true);
    expect(state?.outputs?.queryStart).toBe(Date.parse(FROM));
    expect(fs.readFileSync(stack.checkpointFile, "utf8")).not.toContain(firstUrl);
  });

  it("changes nothing on a second up", async () => {
    const up = await run("up");
    expect(opsOf(up.steps)).toEqual(["history: same"]);
    // Only the program's lookup of the game by name.
    expect(routesCalled(engine.emulator)).toEqual([ROUTES.games]);
  });

  it("exports again when a trigger changes", async () => {
    stack.setConfig("gamehost-lobby-export:generation", "2");
    const up = await run("up");
    expect(opsOf(up.steps)).toEqual(["history: replace", "history: delete (replaced)"]);
    expect(routesCalled(engine.emulator).filter((r) => r === ROUTES.exportHistory)).toHaveLength(1);
    expect(up.outputs.url?.value).not.toBe(firstUrl);
  });

  it("destroys without calling the service", async () => {
    const down = await run("destroy");
    expect(opsOf(down.steps)).toEqual(["history: delete"]);
    expect(routesCalled(engine.emulator)).toEqual([]);
    expect(stack.resources().filter((r) => r.type === EXPORT_TYPE)).toEqual([]);
  });
});
