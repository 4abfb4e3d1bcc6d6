/**
 * The Server kind's listing pages by the service's `cursor`, which lists only servers created strictly
 * before the cursor's millisecond (docs/service-contract.md §4): pages must never end inside a run of
 * servers created in one millisecond, or the rest of the run is never listed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import type { OperationContext } from "../../src/kinds/kind";
import { importIdOf, serverListing } from "../../src/kinds/server/listing";
import { FLEET_TAG } from "../../src/kinds/server/tags";

let emulator: RunningEmulator;
/** The emulator's clock: servers made while it stands still share their `created_at`. */
let at = 1_800_000_000_000;
const made: string[] = [];
let fleetServer = "";
let ctx: OperationContext;
let scope: { gameId: string; environmentId: string; tags: Record<string, string> };

beforeAll(async () => {
  emulator = await startEmulator({ placementDelayMs: 20, now: () => at });
  const game = emulator.fixture.games[0];
  const environment = game?.environments[0];
  if (!game || !environment) throw new Error("the default fixture lost its first game");
  const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
  ctx = { client: () => client };
  scope = { gameId: game.id, environmentId: environment.id, tags: { list: "ms" } };
  // Created at t, t+1, t+1, t+1, t+2: a run of three in one millisecond between two others.
  for (const step of [0, 1, 0, 0, 1]) {
    at += step;
    const server = await client.createServer(game.id, environment.id, {
      datacenter: game.datacenters[0]?.id as string,
      tags: scope.tags,
      runtime: { build: environment.builds[0]?.id as string },
      network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
      resources: { cpu: 250, memory: 256 },
    });
    made.unshift(server.id);
  }
  // A fleet's server among them, newest: an id `pulumi import` would refuse as a Server.
  at += 1;
  fleetServer = (
    await client.createServer(game.id, environment.id, {
      datacenter: game.datacenters[0]?.id as string,
      tags: { ...scope.tags, [FLEET_TAG]: "fleet-key-of-another-resource" },
      runtime: { build: environment.builds[0]?.id as string },
      network: { ports: { web: { protocol: "http", internal_port: 8080 } } },
      resources: { cpu: 250, memory: 256 },
    })
  ).id;
});
afterAll(() => emulator?.stop());

/** Every page of a listing with `limit`, followed to its end. */
async function allPages(limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | undefined;
  for (let i = 0; i < 10; i++) {
    const page = await serverListing.list(ctx, scope, { limit, ...(after !== undefined ? { after } : {}) });
    pages.push(page.items.map((item) => item.id));
    if (page.next === undefined) return pages;
    after = page.next;
  }
  throw new Error(`no last page after 10 pages of ${limit}`);
}

describe("Server listing pages", () => {
  it.each([1, 2, 3, 4])("with limit %i list every server once, in order", async (limit) => {
    const pages = await allPages(limit);
    const importIds = made.map((id) => importIdOf(scope.gameId, scope.environmentId, id));
    expect(pages.flat()).toEqual(importIds);
    for (const page of pages) expect(page.length).toBeGreaterThan(0);
  });

  it("ends a page before a run of one millisecond, or after it when the run starts the page", async () => {
    const sizes = async (limit: number) => (await allPages(limit)).map((page) => page.length);
    expect(await sizes(2)).toEqual([1, 3, 1]);
    expect(await sizes(1)).toEqual([1, 3, 1]);
    expect(await sizes(4)).toEqual([4, 1]);
  });
});

describe("Server listing and fleets", () => {
  it("leaves a fleet's servers out (import refuses them as Servers), unless includeFleetServers asks", async () => {
    const ids = async (extra: Record<string, unknown>) =>
      (await serverListing.list(ctx, { ...scope, ...extra }, { limit: 0 })).items.map((i) => i.id);
    const fleetId = importIdOf(scope.gameId, scope.environmentId, fleetServer);
    expect(await ids({})).not.toContain(fleetId);
    expect(await ids({ includeFleetServers: true })).toEqual([fleetId, ...(await ids({}))]);
  });
});
