import { describe, expect, it } from "vitest";
import { Stack } from "../../harness/src";
import { liveServers } from "../support/emulator";
import {
  connectionConfig,
  IDEMPOTENCY_TAG,
  opsOf,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  serverArgs,
  serversEntry,
  stateOf,
  useEngineEnvironment,
} from "./helpers";

const engine = useEngineEnvironment("identity");

function stackOf(organization: string): Stack {
  return new Stack({
    programDir: SERVERS_PROGRAM,
    organization,
    stackName: "prod",
    config: {
      ...connectionConfig(engine.emulator),
      [SERVERS_KEY]: serversEntry({ match: serverArgs(engine.emulator, { tags: { role: "same-name" } }) }),
    },
    checkpointFile: engine.checkpointFile(organization),
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
    const keys = liveServers(engine.emulator).map((s) => s.tags[IDEMPOTENCY_TAG]);
    expect(new Set(keys).size).toBe(2);

    expect((await acme.destroy()).error).toBeUndefined();
    expect(liveServers(engine.emulator).map((s) => s.id)).toEqual([globexId]);
    expect((await globex.destroy()).error).toBeUndefined();
    expect(liveServers(engine.emulator)).toEqual([]);
  });
});
