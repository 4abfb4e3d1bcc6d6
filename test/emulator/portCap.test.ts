import { describe, expect, it } from "vitest";
import { MAX_PORTS_PER_SERVER } from "../../src/api/schemas/servers";
import { checkServerInputs } from "../../src/kinds/server/spec";
import { call, codeOf, ids, serverBody, start } from "./helpers";

/** `count` game-guard tcp ports, each with an internal port. */
function manyPorts(count: number, camelCase = false): Record<string, unknown> {
  const ports: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    ports[`p${i}`] = camelCase
      ? { protocol: "tcp", internalPort: 7000 }
      : { protocol: "tcp", internal_port: 7000 };
  }
  return ports;
}

describe("ports per server", () => {
  it("refuses a create with more ports than the cap, as a bad body naming network.ports", async () => {
    const emu = await start({ placement: "never" });
    try {
      const path = ids(emu).serversPath;
      const tooMany = await call(emu, "POST", path, {
        body: serverBody(emu, { network: { ports: manyPorts(MAX_PORTS_PER_SERVER + 1) } }),
      });
      expect(tooMany.status).toBe(400);
      expect(codeOf(tooMany)).toBe("API_BAD_BODY");
      expect(tooMany.text).toContain("network.ports");
      expect(tooMany.text).toContain(`at most ${MAX_PORTS_PER_SERVER}`);
      expect(emu.servers()).toHaveLength(0);
      const atCap = await call(emu, "POST", path, {
        body: serverBody(emu, { network: { ports: manyPorts(MAX_PORTS_PER_SERVER) } }),
      });
      expect(atCap.status).toBe(200);
    } finally {
      await emu.stop();
    }
  });

  it("is refused by the provider's checks too, before any request", () => {
    const inputs = (count: number) => ({
      gameId: "00000000-0000-4000-8000-000000000001",
      environmentId: "00000000-0000-4000-8000-000000000002",
      datacenter: "00000000-0000-4000-8000-000000000003",
      network: { ports: manyPorts(count, true) },
      resources: { cpu: 1000, memory: 512 },
      runtime: { build: "00000000-0000-4000-8000-000000000004" },
      tags: {},
    });
    const failures = checkServerInputs(inputs(MAX_PORTS_PER_SERVER + 1));
    expect(failures).toEqual([
      expect.objectContaining({
        property: "network.ports",
        reason: expect.stringContaining(`at most ${MAX_PORTS_PER_SERVER}`),
      }),
    ]);
    expect(checkServerInputs(inputs(MAX_PORTS_PER_SERVER))).toEqual([]);
  });
});
