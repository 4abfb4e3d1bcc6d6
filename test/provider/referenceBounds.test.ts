/**
 * The API reference (docs/reference, the .d.ts JSDoc, the plugin's schema: one description each) states
 * every bound the provider's checks enforce on an input: a user who writes programs from the reference
 * alone meets no refusal it does not announce. Each case tries the boundary values (accepted) and one past
 * them (refused, naming the field), then reads the schema's description of the field.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as fleetHost from "../../src/dynamic/generated/host/fleet";
import * as exportHost from "../../src/dynamic/generated/host/lobbyHistoryExport";
import * as serverHost from "../../src/dynamic/generated/host/server";
import { IDEMPOTENCY_TAG } from "../../src/kinds/server/spec";
import { FLEET_TAGS } from "../../src/kinds/server/tags";
import { SAMPLE_ID, SAMPLE_SERVER_INPUTS } from "../support/serverInputs";

type Described = { description?: string; properties?: Record<string, Described> };
type Schema = {
  resources: Record<string, { inputProperties: Record<string, Described> }>;
  types: Record<string, Described>;
};
const schema = JSON.parse(readFileSync(join(__dirname, "../../plugin/schema.json"), "utf8")) as Schema;

const input = (resource: string, property: string): string =>
  schema.resources[`gamehost:index:${resource}`]?.inputProperties[property]?.description ?? "";
const typeProperty = (type: string, property: string): string =>
  schema.types[`gamehost:index:${type}`]?.properties?.[property]?.description ?? "";

function serverInputs(overrides: Record<string, unknown>): Record<string, unknown> {
  return { ...structuredClone(SAMPLE_SERVER_INPUTS), idempotencyKey: undefined, ...overrides };
}

function fleetInputs(overrides: Record<string, unknown>): Record<string, unknown> {
  const {
    gameId,
    environmentId,
    datacenter: _dc,
    idempotencyKey: _key,
    ...template
  } = structuredClone(SAMPLE_SERVER_INPUTS);
  return { gameId, environmentId, template, datacenters: { [SAMPLE_ID]: 1 }, ...overrides };
}

async function serverFailures(overrides: Record<string, unknown>) {
  return (await serverHost.check({}, serverInputs(overrides))).failures;
}
async function fleetFailures(overrides: Record<string, unknown>) {
  return (await fleetHost.check({}, fleetInputs(overrides))).failures;
}

describe("the reference states the bounds the checks enforce", () => {
  it("names every reserved tag key, on a Server and a Fleet's template", async () => {
    for (const tag of [IDEMPOTENCY_TAG, ...FLEET_TAGS]) {
      const refused = await serverFailures({ tags: { role: "match", [tag]: "x" } });
      expect(refused.map((f) => f.property)).toEqual([`tags.${tag}`]);
      const template = { ...(fleetInputs({}).template as object), tags: { role: "match", [tag]: "x" } };
      const fleetRefused = await fleetFailures({ template });
      expect(fleetRefused.map((f) => f.property)).toEqual([`template.tags.${tag}`]);
      expect(input("Server", "tags"), tag).toContain(`\`${tag}\``);
      expect(typeProperty("FleetTemplate", "tags"), tag).toContain(`\`${tag}\``);
    }
  });

  it("states the provider-only knobs' ranges, on a Server and a Fleet", async () => {
    const knobs = [
      { property: "readyTimeoutSeconds", accepted: [1, 86_400], refused: [0, 86_401], stated: "1 to 86400" },
      {
        property: "destroyKillTimeout",
        accepted: [0, 7_199_999],
        refused: [-1, 7_200_000],
        stated: "0 ≤ x < 7 200 000",
      },
    ];
    for (const { property, accepted, refused, stated } of knobs) {
      for (const value of accepted) {
        expect(await serverFailures({ [property]: value }), `${property}: ${value}`).toEqual([]);
        expect(await fleetFailures({ [property]: value }), `${property}: ${value}`).toEqual([]);
      }
      for (const value of refused) {
        for (const failures of [
          await serverFailures({ [property]: value }),
          await fleetFailures({ [property]: value }),
        ])
          expect(
            failures.map((f) => f.property),
            `${property}: ${value}`,
          ).toEqual([property]);
      }
      expect(input("Server", property)).toContain(stated);
      expect(input("Fleet", property)).toContain(stated);
    }
  });

  it("states renewMinutesBeforeExpiry's range on a LobbyHistoryExport", async () => {
    const exportFailures = async (renewMinutesBeforeExpiry: number) =>
      (
        await exportHost.check(
          {},
          { gameId: SAMPLE_ID, queryStart: 1_000, queryEnd: 2_000, renewMinutesBeforeExpiry },
        )
      ).failures.map((f) => f.property);
    for (const value of [0, 59]) expect(await exportFailures(value), `${value}`).toEqual([]);
    for (const value of [-1, 60])
      expect(await exportFailures(value), `${value}`).toEqual(["renewMinutesBeforeExpiry"]);
    expect(input("LobbyHistoryExport", "renewMinutesBeforeExpiry")).toContain("0 to 59");
  });

  it("states that an export's bounds start at 1970 (the service's unsigned epoch ms)", async () => {
    const spanFailures = async (queryStart: unknown, queryEnd: unknown) =>
      (await exportHost.check({}, { gameId: SAMPLE_ID, queryStart, queryEnd })).failures.map(
        (f) => f.property,
      );
    expect(await spanFailures(0, "1970-01-02T00:00:00Z")).toEqual([]);
    expect(await spanFailures("1970-01-01T00:00:00Z", 1)).toEqual([]);
    expect(await spanFailures(-1, 1)).toEqual(["queryStart"]);
    expect(await spanFailures("1969-12-31T23:59:59Z", 1)).toEqual(["queryStart"]);
    for (const bound of ["queryStart", "queryEnd"])
      expect(input("LobbyHistoryExport", bound), bound).toContain("from 1970 on");
  });

  it("states the port-name rule and the most ports a server takes, on a Server and a Fleet's template", async () => {
    const port = { protocol: "http", internalPort: 8080 };
    const withPorts = (ports: Record<string, unknown>) => ({ network: { ports } });
    const named = (...names: string[]) => withPorts(Object.fromEntries(names.map((n) => [n, port])));
    const many = (count: number) => named(...Array.from({ length: count }, (_, i) => `p${i}`));
    const fleetWith = (network: Record<string, unknown>) => ({
      template: { ...(fleetInputs({}).template as object), ...network },
    });
    for (const ok of [named("a", "a".repeat(63), "a-1"), many(64)]) {
      expect(await serverFailures(ok)).toEqual([]);
      expect(await fleetFailures(fleetWith(ok))).toEqual([]);
    }
    for (const bad of [named("a".repeat(64)), named("-a"), named("a-"), named("A"), many(65)]) {
      expect((await serverFailures(bad)).length, JSON.stringify(Object.keys(bad.network.ports)[0])).toBe(1);
      expect((await fleetFailures(fleetWith(bad))).length).toBe(1);
    }
    for (const description of [
      typeProperty("ServerNetwork", "ports"),
      typeProperty("FleetTemplateNetwork", "ports"),
    ]) {
      expect(description).toContain("1 to 63 characters");
      expect(description).toContain("starting and ending with a letter or digit");
      expect(description).toContain("at most 64 ports");
    }
  });

  it("refuses a port name that ends in '-' naming the port and the whole rule, which the name half meets", async () => {
    for (const name of ["a-", "-a"]) {
      const failures = await serverFailures({
        network: { ports: { [name]: { protocol: "http", internalPort: 8080 } } },
      });
      expect(failures).toEqual([
        {
          property: `network.ports.${name}`,
          reason: expect.stringContaining("starting and ending with a letter or digit"),
        },
      ]);
    }
  });

  it("states cpu's and memory's range, on a Server and a Fleet's template", async () => {
    for (const field of ["cpu", "memory"]) {
      const resources = (value: number) => ({ ...SAMPLE_SERVER_INPUTS.resources, [field]: value });
      const fleetWith = (value: number) => ({
        template: { ...(fleetInputs({}).template as object), resources: resources(value) },
      });
      for (const value of [1, 2_147_483_647]) {
        expect(await serverFailures({ resources: resources(value) }), `${field}: ${value}`).toEqual([]);
        expect(await fleetFailures(fleetWith(value)), `${field}: ${value}`).toEqual([]);
      }
      for (const value of [0, 2_147_483_648]) {
        const failures = await serverFailures({ resources: resources(value) });
        expect(
          failures.map((f) => f.property),
          `${field}: ${value}`,
        ).toEqual([`resources.${field}`]);
        expect((await fleetFailures(fleetWith(value))).map((f) => f.property)).toEqual([
          `template.resources.${field}`,
        ]);
      }
      expect(typeProperty("ServerResources", field)).toContain("1 to 2147483647");
      expect(typeProperty("FleetTemplateResources", field)).toContain("1 to 2147483647");
    }
  });
});

describe("the reference says which token a group's routes take", () => {
  type Functions = Record<string, { inputs?: { properties?: Record<string, Described> } }>;
  const functions = (schema as unknown as { functions: Functions }).functions;
  // A producer reading billing from the reference alone: with a game's cloud token, getGames lists no groups
  // (`groups[0].groupId` is undefined) and the group routes refuse the token. The argument says both.
  it.each(["getGroupBilling", "createPaymentPortalSession"])("%s groupId", (name) => {
    const description = functions[`gamehost:index:${name}`]?.inputs?.properties?.groupId?.description ?? "";
    expect(description).toMatch(/none for a game's cloud token/);
    expect(description).toMatch(/user token of a member of the group/);
    expect(description).toMatch(/no cloud token is entitled/);
  });
});
