// The native face (`pulumi-gamehost/native`) under the SDK's mocks: what each class and function asks the
// engine for — type tokens, inputs, lookups, invokes, secrets, explicit providers — checked against the
// package schema the plugin serves, and against what the dynamic face registers for the same arguments.
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dist, REPO_ROOT, requireFromRepo } from "../support/dist";
import { recordSecretOutputs } from "../support/mocks";
import { resolvedValue } from "../support/outputs";

const pulumi = dist.pulumi();
const gamehost = dist.pkg();
const native = requireFromRepo("pulumi-gamehost/native") as typeof import("../../src/native");

interface Registered {
  type: string;
  name: string;
  id?: string;
  inputs: Record<string, unknown>;
  provider?: string;
}
interface Invoked {
  token: string;
  inputs: Record<string, unknown>;
}
const registered: Registered[] = [];
const invoked: Invoked[] = [];
/** Outputs the SDK asked the engine to keep secret, by resource name. */
let secretOutputsByName = new Map<string, string[]>();

interface SchemaResource {
  properties: Record<string, unknown>;
  inputProperties: Record<string, unknown>;
}
const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "plugin", "schema.json"), "utf8")) as {
  resources: Record<string, SchemaResource>;
};

const GAME = "11111111-1111-4111-8111-111111111111";
const ENV = "22222222-2222-4222-8222-222222222222";
const SERVER = "33333333-3333-4333-8333-333333333333";
/** A data source's failure as the plugin words it. */
const REJECTED =
  "The token is not valid (mistyped, revoked, or from another deployment): set gamehost:token to a valid token.";
/** The SDK's special-value signature key (`rpc.specialSigKey`). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push({
          type: args.type,
          name: args.name,
          inputs: args.inputs,
          ...(args.id !== undefined && args.id !== "" ? { id: args.id } : {}),
          ...(args.provider ? { provider: args.provider } : {}),
        });
        const id = args.id || `${args.name}-id`;
        return { id, state: { ...args.inputs, serverId: id, endpoints: { game: "203.0.113.9:30001" } } };
      },
      call(args) {
        invoked.push({ token: args.token, inputs: args.inputs });
        if (args.token === "gamehost:index:getGroupBilling") throw new Error(REJECTED);
        if (args.token === "gamehost:index:getGame") {
          return { game: { gameId: args.inputs.gameId, displayName: "Space Race" }, watch: { index: "1" } };
        }
        return { url: "https://portal.example/session" };
      },
    },
    "native-mocks",
    "dev",
    false,
    "acme",
  );
  secretOutputsByName = recordSecretOutputs();
});

/** Every input property of a Server, so the registration covers the whole schema. */
function fullServerArgs() {
  return {
    gameId: GAME,
    environmentId: ENV,
    datacenter: "44444444-4444-4444-8444-444444444444",
    tags: { role: "match" },
    runtime: {
      build: "55555555-5555-4555-8555-555555555555",
      arguments: ["--fast"],
      environment: { A: "1" },
    },
    network: { mode: "host" as const, ports: { game: { protocol: "udp" as const, routing: { host: {} } } } },
    resources: { cpu: 1000, memory: 1024 },
    lifecycle: { killTimeout: 1000 },
    waitForReady: false,
    readyTimeoutSeconds: 60,
    destroyKillTimeout: 0,
    adoptServerId: SERVER,
  };
}

const registration = (name: string) => {
  const found = registered.find((r) => r.name === name);
  if (!found) throw new Error(`${name} was not registered`);
  return found;
};

describe("native resources", () => {
  it("register the plugin's token, and carry every schema property as an Output, as the dynamic face does", async () => {
    const args = fullServerArgs();
    const nativeServer = new native.Server("native-full", args);
    const dynamicServer = new gamehost.Server("dynamic-full", args);
    await resolvedValue(nativeServer.id);
    await resolvedValue(dynamicServer.id);

    const nat = registration("native-full");
    expect(nat.type).toBe("gamehost:index:Server");
    expect(Object.keys(nat.inputs).sort()).toEqual(Object.keys(args).sort());
    // The dynamic face sends the same inputs, plus its serialized provider.
    const dyn = registration("dynamic-full");
    expect(Object.keys(dyn.inputs).sort()).toEqual([...Object.keys(args), "__provider"].sort());
    // Outputs exist only for the properties a class registers (unknown until the engine answers).
    for (const key of Object.keys(schema.resources["gamehost:index:Server"]!.properties)) {
      for (const [face, server] of [
        ["native", nativeServer],
        ["dynamic", dynamicServer],
      ] as const) {
        expect(
          pulumi.Output.isInstance((server as unknown as Record<string, unknown>)[key]),
          `${face} ${key}`,
        ).toBe(true);
      }
    }
    expect(await resolvedValue(nativeServer.endpoints)).toEqual({ game: "203.0.113.9:30001" });
    expect(native.Server.isInstance(nativeServer)).toBe(true);
    expect(native.Server.isInstance(dynamicServer)).toBe(false);
  });

  it("turn a Date span into RFC 3339 and ask the engine to keep the export URL secret", async () => {
    const exp = new native.LobbyHistoryExport("native-export", {
      gameId: GAME,
      queryStart: new Date("2026-11-22T00:00:00Z"),
      queryEnd: Promise.resolve(new Date("2026-11-23T00:00:00Z")),
      summarize: true,
    });
    await resolvedValue(exp.id);
    const reg = registration("native-export");
    expect(reg.type).toBe("gamehost:index:LobbyHistoryExport");
    expect(reg.inputs.queryStart).toBe("2026-11-22T00:00:00.000Z");
    expect(reg.inputs.queryEnd).toBe("2026-11-23T00:00:00.000Z");
    // Optional inputs left out (triggers) are outputs too, on both faces.
    const dynamic = new gamehost.LobbyHistoryExport("dynamic-export", {
      gameId: GAME,
      queryStart: 1,
      queryEnd: 2,
    });
    for (const key of Object.keys(schema.resources["gamehost:index:LobbyHistoryExport"]!.properties)) {
      for (const resource of [exp, dynamic]) {
        expect(pulumi.Output.isInstance((resource as unknown as Record<string, unknown>)[key]), key).toBe(
          true,
        );
      }
    }
    expect(secretOutputsByName.get("native-export")).toEqual(["url"]);
  });

  it("hand an invalid Date (new Date of text it cannot read) to the check as text, on both faces, not throw", async () => {
    // `new Date("16/08/2024")` is an Invalid Date, whose toISOString throws a RangeError: the program ended
    // with that error's stack trace through the package's files, naming no field. As "Invalid Date" it reaches
    // the kind's check, which names the field and what a bound may be (test/provider/lobbyExportSpec).
    const invalid = () => new Date("16/08/2024");
    const made = [
      new native.LobbyHistoryExport("native-invalid", {
        gameId: GAME,
        queryStart: invalid(),
        queryEnd: Promise.resolve(invalid()),
      }),
      new gamehost.LobbyHistoryExport("dynamic-invalid", {
        gameId: GAME,
        queryStart: 1,
        queryEnd: pulumi.output("16/08/2024").apply((text) => new Date(text)),
      }),
    ];
    await Promise.all(made.map((r) => resolvedValue(r.id)));
    expect(registration("native-invalid").inputs).toMatchObject({
      queryStart: "Invalid Date",
      queryEnd: "Invalid Date",
    });
    expect(registration("dynamic-invalid").inputs.queryEnd).toBe("Invalid Date");
  });

  it("look up an existing server with get, by id and optional state, without managing it", async () => {
    const found = native.Server.get("found", `${GAME}/${ENV}/${SERVER}`);
    const narrowed = native.Server.get("narrowed", SERVER, { gameId: GAME, environmentId: ENV });
    expect(await resolvedValue(found.id)).toBe(`${GAME}/${ENV}/${SERVER}`);
    await resolvedValue(narrowed.id);
    expect(registration("found")).toMatchObject({
      type: "gamehost:index:Server",
      id: `${GAME}/${ENV}/${SERVER}`,
    });
    expect(registration("narrowed")).toMatchObject({
      id: SERVER,
      inputs: { gameId: GAME, environmentId: ENV },
    });
  });

  it("use an explicit provider whose token is a secret", async () => {
    const provider = new native.Provider("second-account", { baseUrl: "http://127.0.0.1:1", token: "t0k" });
    const server = new native.Server("on-second", fullServerArgs(), { provider });
    await resolvedValue(server.id);
    const reg = registration("second-account");
    expect(reg.type).toBe("pulumi:providers:gamehost");
    // The token reaches the engine as a secret (the SDK's wire signature), never as plain text.
    expect(reg.inputs.baseUrl).toBe("http://127.0.0.1:1");
    expect(reg.inputs.token).toEqual({ [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270", value: "t0k" });
    expect(secretOutputsByName.get("second-account")).toEqual(["token"]);
    expect(registration("on-second").provider).toMatch(/pulumi:providers:gamehost::second-account::/);
    expect(native.Provider.isInstance(provider)).toBe(true);
    expect(native.Provider.isInstance(server)).toBe(false);
  });
});

describe("native functions", () => {
  it("invoke the plugin's tokens with the arguments as given", async () => {
    const game = await native.getGame({ gameId: GAME });
    expect(game.game.displayName).toBe("Space Race");
    const viaOutput = await resolvedValue(native.getGameOutput({ gameId: pulumi.output(GAME) }).game.gameId);
    expect(viaOutput).toBe(GAME);
    expect(invoked.filter((i) => i.token === "gamehost:index:getGame")).toEqual([
      { token: "gamehost:index:getGame", inputs: { gameId: GAME } },
      { token: "gamehost:index:getGame", inputs: { gameId: GAME } },
    ]);
  });

  it("name every function the schema declares", () => {
    const functions = JSON.parse(readFileSync(path.join(REPO_ROOT, "plugin", "schema.json"), "utf8")) as {
      functions: Record<string, unknown>;
    };
    for (const token of Object.keys(functions.functions)) {
      const name = token.split(":")[2]!;
      expect(typeof (native as Record<string, unknown>)[name], name).toBe("function");
      expect(typeof (native as Record<string, unknown>)[`${name}Output`], `${name}Output`).toBe("function");
      expect(typeof (gamehost as Record<string, unknown>)[name], `dynamic ${name}`).toBe("function");
    }
  });
});

describe("a failed data source", () => {
  // The SDK prints a rejection that comes once the program's main has returned (a program that exports
  // nothing waiting on the data source, as one declaring servers in a loop) by its `stack`: it must be the
  // message alone, which names the cause and the fix, as the SDK prints a RunError while main runs.
  it("reaches the program with its message as its stack", async () => {
    const error = await native.getGroupBilling({ groupId: GAME }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // (The mocks' monitor drops the text of a failed call: the SDK's message is empty here.)
    expect(error?.name).toBe("GamehostError");
    expect(error?.stack).toBe(error?.message);
  });
});

describe("deletedWith on a Server or a Fleet", () => {
  // Through the real CLI (v3.274.1): a native Server declared with `deletedWith` its component, then
  // `pulumi destroy`: the engine skipped the server's delete ("deleted (0.00s)"), and the server ran on in
  // no state. Nothing deletes a game server but its own delete (a Fleet deletes only its own servers), so
  // the option can only leave servers behind: both faces refuse it where the program declares it.
  it("fails where it is declared, on both faces, naming retainOnDelete", () => {
    const component = new pulumi.ComponentResource("acme:index:Servers", "deleted-with-parent");
    const fleetArgs = {
      gameId: GAME,
      environmentId: ENV,
      template: {
        runtime: { build: "55555555-5555-4555-8555-555555555555" },
        network: { ports: { game: { protocol: "udp" as const, routing: { host: {} } } } },
        resources: { cpu: 1000, memory: 1024 },
        tags: { role: "arena" },
      },
      datacenters: { "44444444-4444-4444-8444-444444444444": 1 },
    };
    const declarations: Array<[string, () => unknown]> = [
      ["Server", () => new gamehost.Server("dw-dynamic", fullServerArgs(), { deletedWith: component })],
      ["Server", () => new native.Server("dw-native", fullServerArgs(), { deletedWith: component })],
      ["Fleet", () => new gamehost.Fleet("dw-fleet-dynamic", fleetArgs, { deletedWith: component })],
      ["Fleet", () => new native.Fleet("dw-fleet-native", fleetArgs, { deletedWith: component })],
    ];
    for (const [kind, declare] of declarations) {
      expect(declare).toThrow(
        new RegExp(`^${kind} "dw-[a-z-]+": deletedWith would leave its servers running in no state`),
      );
    }
    expect(registered.filter((r) => r.name.startsWith("dw-"))).toEqual([]);
  });
});

describe("the import option on a dynamic resource", () => {
  // Through the real CLI (v3.274.1): `new gamehost.Server("lobby", spec, { import: "<game>/<env>/<server>" })`
  // failed the preview with the SDK's dynamic provider host's "code must be a string, not undefined" and its
  // stack trace, naming neither the cause nor adoptServerId (docs/languages.md suggests the option, for the
  // plugin's classes).
  it("fails where it is declared, naming what adopts or imports instead", () => {
    const id = `${GAME}/${ENV}/${SERVER}`;
    expect(() => new gamehost.Server("imp-dynamic", fullServerArgs(), { import: id })).toThrow(
      /^Server "imp-dynamic" is a dynamic resource \(pulumi-nodejs:dynamic\/gamehost:Server\), which Pulumi cannot import .*adoptServerId: "<serverId>".*gamehost\.native\.Server/,
    );
    // The plugin's class takes it.
    expect(() => new native.Server("imp-native", fullServerArgs(), { import: id })).not.toThrow();
    expect(registered.filter((r) => r.name === "imp-dynamic")).toEqual([]);
  });
});
