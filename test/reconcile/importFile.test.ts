/**
 * `gamehost adopt`'s import file: the plugin's type tokens (the dynamic host cannot import), names from the
 * name tag made valid and unique in the file and apart from the stack's names, and a fleet's servers adopted
 * once, as their Fleet.
 */
import { describe, expect, it } from "vitest";
import { FLEET_TAG } from "../../src/kinds/server/tags";
import { importFile } from "../../src/reconcile/adopt";
import type { Stray } from "../../src/reconcile/drift";

const GAME = "11111111-1111-4111-8111-111111111111";
const ENV = "22222222-2222-4222-8222-222222222222";

const stray = (serverId: string, tags: Record<string, string> = {}): Stray => ({
  serverId,
  gameId: GAME,
  environmentId: ENV,
  createdAt: "2026-11-26T00:00:00Z",
  ageSeconds: 60,
  tags,
});

describe("importFile", () => {
  it("names servers by their name tag, made valid, and unique with -2, -3", () => {
    const { resources } = importFile(
      [
        stray("aaaaaaaa-0001", { name: "eu lobby/1" }),
        stray("aaaaaaaa-0002", { name: "eu-lobby-1" }),
        stray("aaaaaaaa-0003", { name: "eu-lobby-1" }),
        stray("bbbbbbbb-0004"),
        stray("cccccccc-0005", { name: "///" }),
      ],
      "name",
    );
    expect(resources).toEqual([
      { type: "gamehost:index:Server", name: "eu-lobby-1", id: `${GAME}/${ENV}/aaaaaaaa-0001` },
      { type: "gamehost:index:Server", name: "eu-lobby-1-2", id: `${GAME}/${ENV}/aaaaaaaa-0002` },
      { type: "gamehost:index:Server", name: "eu-lobby-1-3", id: `${GAME}/${ENV}/aaaaaaaa-0003` },
      { type: "gamehost:index:Server", name: "server-bbbbbbbb", id: `${GAME}/${ENV}/bbbbbbbb-0004` },
      { type: "gamehost:index:Server", name: "server-cccccccc", id: `${GAME}/${ENV}/cccccccc-0005` },
    ]);
  });

  it("adopts a fleet's servers as one Fleet, named apart from the servers", () => {
    const fleetKey = "f1e2d3c4-0000-4000-8000-000000000000";
    const { resources } = importFile(
      [
        stray("dddddddd-0001", { [FLEET_TAG]: fleetKey, name: "ignored" }),
        stray("eeeeeeee-0002", { name: "fleet-f1e2d3c4" }),
        stray("dddddddd-0003", { [FLEET_TAG]: fleetKey }),
      ],
      "name",
    );
    expect(resources).toEqual([
      { type: "gamehost:index:Fleet", name: "fleet-f1e2d3c4", id: `${GAME}/${ENV}/${fleetKey}` },
      { type: "gamehost:index:Server", name: "fleet-f1e2d3c4-2", id: `${GAME}/${ENV}/eeeeeeee-0002` },
    ]);
  });

  it("names apart from the stack's resources (pulumi import refuses a name the state has)", () => {
    const { resources } = importFile(
      [stray("aaaaaaaa-0001", { name: "lobby" }), stray("bbbbbbbb-0002")],
      "name",
      ["gamehost-dev", "lobby", "server-bbbbbbbb"],
    );
    expect(resources.map((r) => r.name)).toEqual(["lobby-2", "server-bbbbbbbb-2"]);
  });
});
