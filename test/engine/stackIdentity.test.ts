/**
 * The idempotency key names a stack uniquely: two same-named stacks (same project, stack and resource
 * names) of different organizations, deployed against one environment, each get a server of their own
 * instead of adopting each other's.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "../../harness/src";
import type { RunningEmulator } from "../../src/emulator";
import { liveServers, startTestEmulator } from "../support/emulator";
import {
  connectionConfig,
  IDEMPOTENCY_TAG,
  opsOf,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  serverArgs,
  serversEntry,
  stateOf,
} from "./helpers";

let emulator: RunningEmulator;
let stateDir: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-engine-identity-"));
});

afterAll(async () => {
  await emulator?.stop();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

function stackOf(organization: string): Stack {
  return new Stack({
    programDir: SERVERS_PROGRAM,
    organization,
    stackName: "prod",
    config: {
      ...connectionConfig(emulator),
      [SERVERS_KEY]: serversEntry({ match: serverArgs(emulator, { tags: { role: "same-name" } }) }),
    },
    checkpointFile: path.join(stateDir, `${organization}.json`),
  });
}

describe("two organizations' same-named stacks against one environment", () => {
  it("each get their own server, and each destroy removes only its own", async () => {
    const acme = stackOf("acme");
    const globex = stackOf("globex");

    for (const stack of [acme, globex]) {
      const up = await stack.up();
      expect(up.error).toBeUndefined();
      expect(opsOf(up.steps)).toEqual(["match: create"]);
    }
    const [acmeId, globexId] = [stateOf(acme, "match")?.id, stateOf(globex, "match")?.id];
    expect(acmeId).toBeTruthy();
    expect(globexId).toBeTruthy();
    expect(acmeId).not.toBe(globexId);
    const keys = liveServers(emulator).map((s) => s.tags[IDEMPOTENCY_TAG]);
    expect(new Set(keys).size).toBe(2);

    expect((await acme.destroy()).error).toBeUndefined();
    expect(liveServers(emulator).map((s) => s.id)).toEqual([globexId]);
    expect((await globex.destroy()).error).toBeUndefined();
    expect(liveServers(emulator)).toEqual([]);
  });
});
