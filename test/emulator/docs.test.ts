/**
 * docs/emulator.md lists every place where the emulator answers a clearer 400 and the service a
 * 500 (docs/service-contract.md §9). Each case here is sent to the emulator, and the page must name it.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { call, codeOf, ids, serverBody, start } from "./helpers";

const page = readFileSync(path.join(__dirname, "..", "..", "docs", "emulator.md"), "utf8");
const differences = page.slice(page.indexOf("## Where the emulator differs from the service"));

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(() => emu.stop());

describe("docs/emulator.md", () => {
  it("is linked from the package docs", () => {
    const index = readFileSync(path.join(__dirname, "..", "..", "docs", "_index.md"), "utf8");
    expect(index).toContain("(./emulator.md)");
    expect(page.indexOf("## Where the emulator differs from the service")).toBeGreaterThan(0);
  });

  it("lists each request the emulator answers with a 400 where the service answers 500", async () => {
    const { serversPath } = ids(emu);
    const cases: Array<[string, Promise<Awaited<ReturnType<typeof call>>>, string[]]> = [
      [
        "a routing rule broken in a create body",
        call(emu, "POST", serversPath, {
          body: serverBody(emu, { network: { ports: { game: { protocol: "udp", routing: {} } } } }),
        }),
        ["SERVERS_MUST_SPECIFY_ROUTING_TYPE"],
      ],
      [
        "host routing with http",
        call(emu, "POST", serversPath, {
          body: serverBody(emu, { network: { ports: { web: { protocol: "http", routing: { host: {} } } } } }),
        }),
        ["SERVERS_UNSUPPORTED_HOST_PROTOCOL"],
      ],
      [
        "a watch_index that is not a number",
        call(emu, "GET", `/cloud/games/${ids(emu).gameId}?watch_index=soon`),
        ["API_BAD_QUERY_PARAMETER", "watch_index"],
      ],
      [
        "a tag that is not a string",
        call(emu, "POST", serversPath, { body: serverBody(emu, { tags: { mode: 1 } }) }),
        ["API_BAD_BODY", "tags"],
      ],
      [
        "a user token naming an unknown game",
        call(emu, "GET", "/cloud/games/00000000-0000-4000-8000-000000000000"),
        ["GAME_NOT_FOUND", "/cloud/*"],
      ],
    ];
    for (const [name, answer, named] of cases) {
      const res = await answer;
      expect([res.status, codeOf(res)], name).toEqual([400, named[0]]);
      for (const word of named) expect(differences, name).toContain(word);
      expect(differences).toContain("500 `ERROR`");
    }
  });

  it("lists each create-body limit the emulator holds and the service does not document", async () => {
    const { serversPath, prod } = ids(emu);
    const build = (prod.builds[0] as { id: string }).id;
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      [
        "network.ports.Game",
        { network: { ports: { Game: { protocol: "udp", internal_port: 7777 } } } },
        ["port names", "lowercase letters"],
      ],
      [
        "network.ports.game.internal_port",
        { network: { ports: { game: { protocol: "udp", internal_port: 65_536 } } } },
        ["`internal_port`", "1–65535"],
      ],
      [
        "lifecycle.kill_timeout",
        { lifecycle: { kill_timeout: 7_200_000 } },
        ["`lifecycle.kill_timeout`", "7 200 000"],
      ],
      ["resources.cpu", { resources: { cpu: 0, memory: 512 } }, ["`resources.cpu`", "positive integer"]],
      [
        "resources.memory",
        { resources: { cpu: 1000, memory: 2 ** 31 } },
        ["`resources.memory`", "2 147 483 647"],
      ],
    ];
    for (const [field, overrides, named] of cases) {
      const res = await call(emu, "POST", serversPath, { body: serverBody(emu, { ...overrides }) });
      expect([res.status, codeOf(res)], field).toEqual([400, "API_BAD_BODY"]);
      expect((res.body as { message: string }).message, field).toContain(field);
      for (const word of named) expect(differences, field).toContain(word);
    }
    // The same body within every limit is accepted.
    const fine = serverBody(emu, { runtime: { build }, lifecycle: { kill_timeout: 7_199_999 } });
    expect((await call(emu, "POST", serversPath, { body: fine })).status).toBe(200);
  });
});
