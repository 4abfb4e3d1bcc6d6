/**
 * A property a kind does not have (a misspelt name) fails the check naming it and the fields there are, at
 * the level it was written: the kind's inputs at the top, the object's fields inside one. Both faces
 * register such an argument instead of dropping it as Pulumi's generated SDKs do, so a plain JavaScript
 * program (or an object spread into the arguments) meets the check rather than losing the setting.
 */
import { describe, expect, it } from "vitest";
import { UNKNOWN_FIELD } from "../../src/api/validate";
import { inputPropertyNames } from "../../src/kinds/kind";
import { RESOURCES } from "../../src/plugin/registry";
import { packageSchema } from "../../src/plugin/schema";
import { registeredInputs } from "../../src/programArgs/registration";
import { SAMPLE_SERVER_INPUTS } from "../support/serverInputs";

const kindNamed = (name: string) => {
  const entry = RESOURCES.find((r) => r.kind.name === name);
  if (!entry) throw new Error(`no kind ${name}`);
  return entry.kind;
};

const failuresOf = (name: string, news: Record<string, unknown>) =>
  kindNamed(name).check({}, news, {}).failures;

const reasonAt = (name: string, news: Record<string, unknown>, property: string) =>
  failuresOf(name, news).find((f) => f.property === property)?.reason;

/** The names a reason lists after `known: `. */
const knownIn = (reason: string | undefined) =>
  /\(known: ([^)]*)\)$/.exec(reason ?? "")?.[1]?.split(", ") ?? [];

const FLEET = {
  gameId: SAMPLE_SERVER_INPUTS.gameId,
  environmentId: SAMPLE_SERVER_INPUTS.environmentId,
  template: { runtime: SAMPLE_SERVER_INPUTS.runtime, resources: SAMPLE_SERVER_INPUTS.resources },
  datacenters: { "us-east": 1 },
};

describe("a property the kind does not have", () => {
  it("names each kind's inputs, the same list as the package schema's", () => {
    const schema = packageSchema();
    for (const { token, kind } of RESOURCES) {
      const names = inputPropertyNames(kind.inputs);
      expect(names.sort(), token).toEqual(Object.keys(schema.resources[token]?.inputProperties ?? {}).sort());
    }
  });

  it("at a Server's top level lists its inputs, where the one meant is", () => {
    const reason = reasonAt(
      "Server",
      { ...SAMPLE_SERVER_INPUTS, readyTimeoutSecond: 600 },
      "readyTimeoutSecond",
    );
    expect(reason).toMatch(new RegExp(`^${UNKNOWN_FIELD} \\(known: `));
    expect(knownIn(reason)).toEqual(inputPropertyNames(kindNamed("Server").inputs));
    expect(knownIn(reason)).toContain("readyTimeoutSeconds");
  });

  it("inside an object lists that object's fields as the program writes them", () => {
    const reason = reasonAt(
      "Server",
      { ...SAMPLE_SERVER_INPUTS, resources: { cpu: 1000, memroy: 1024 } },
      "resources.memroy",
    );
    expect(knownIn(reason)).toEqual(expect.arrayContaining(["cpu", "memory"]));
    expect(knownIn(reason)).not.toContain("gameId");
    const port = reasonAt(
      "Server",
      {
        ...SAMPLE_SERVER_INPUTS,
        network: { ports: { game: { protocol: "udp", internalPort: 7777, interalPort: 1 } } },
      },
      "network.ports.game.interalPort",
    );
    // camelCase, as written: the wire schema's `internal_port` would not help.
    expect(knownIn(port)).toContain("internalPort");
  });

  it("of a Fleet names its inputs at the top and the template's fields inside the template", () => {
    const top = reasonAt("Fleet", { ...FLEET, rollOut: { batchSize: 1 } }, "rollOut");
    expect(knownIn(top)).toEqual(inputPropertyNames(kindNamed("Fleet").inputs));
    expect(knownIn(top)).toContain("rollout");
    const inner = reasonAt(
      "Fleet",
      { ...FLEET, template: { ...FLEET.template, runtme: {} } },
      "template.runtme",
    );
    expect(knownIn(inner)).toEqual(expect.arrayContaining(["runtime", "resources", "network", "tags"]));
    expect(knownIn(inner)).not.toContain("datacenter");
  });

  it("of a LobbyHistoryExport names its inputs", () => {
    const reason = reasonAt(
      "LobbyHistoryExport",
      {
        gameId: SAMPLE_SERVER_INPUTS.gameId,
        queryStart: "2026-01-01T00:00:00Z",
        queryEnd: "2026-01-02T00:00:00Z",
        sumarize: true,
      },
      "sumarize",
    );
    expect(knownIn(reason)).toContain("summarize");
  });

  it("is registered by both faces' classes, so the check meets it; a lookup registers the state alone", () => {
    const inputs = ["gameId", "readyTimeoutSeconds"];
    const given = { gameId: "g", readyTimeoutSecond: 600, id: "x", urn: "u", unset: undefined };
    expect(registeredInputs(given, {}, inputs, ["serverId"])).toEqual({
      gameId: "g",
      readyTimeoutSeconds: undefined,
      serverId: undefined,
      readyTimeoutSecond: 600,
    });
    expect(registeredInputs(given, { id: "s-1" }, inputs, ["serverId"])).toEqual({
      gameId: "g",
      readyTimeoutSeconds: undefined,
      serverId: undefined,
    });
  });
});
