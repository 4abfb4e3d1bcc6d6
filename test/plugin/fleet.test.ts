/**
 * The Fleet through the plugin's gRPC wire, as the engine calls it: check's failures name the field;
 * import by `<gameId>/<environmentId>/<fleetKey>` (also what `Fleet.get` sends) reads the fleet from the
 * servers carrying its tag and answers inputs that diff clean against the same declaration; delete
 * removes every server, also one the state missed. The lookups a run needs before its first change go out
 * together, and delete does not wait for its list to start on the recorded servers. The Server's attack cases
 * (lost answers, resets, 500s, a 429) on a fleet's creates and deletes leave exactly the declared servers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { liveServers, type ServerTarget, userClient } from "../support/emulator";
import { until } from "../support/until";
import {
  PluginCallError,
  type PluginDriver,
  type PluginProcess,
  type Props,
  prov,
  secret,
  startPluginOnEmulator,
} from "./pluginClient";

const FLEET = "gamehost:index:Fleet";

let emulator: RunningEmulator;
let target: ServerTarget;
let plugin: PluginProcess;
let driver: PluginDriver;

beforeAll(async () => {
  ({ emulator, target, plugin, driver } = await startPluginOnEmulator());
});
afterAll(async () => {
  await plugin?.stop();
  await emulator?.stop();
});

function fleet(overrides: Props = {}): Props {
  return {
    gameId: target.gameId,
    environmentId: target.environmentId,
    template: {
      tags: { role: "imported" },
      runtime: { build: target.build },
      network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
      resources: { cpu: 250, memory: 256 },
    },
    datacenters: { [target.datacenter]: 2, [target.otherDatacenter]: 1 },
    ...overrides,
  };
}

describe("the Fleet through the plugin", () => {
  it("check names each bad field: a reserved tag, a datacenter in the template, a bad count and bound", async () => {
    const bad = fleet({
      template: {
        ...(fleet().template as Props),
        datacenter: target.datacenter,
        tags: { "pulumi-gamehost/fleet": "x" },
      },
      datacenters: { atl: -1 },
      rollout: { maxSurge: "150%" },
    });
    const { failures } = await driver.check(FLEET, "bad", bad);
    const properties = failures.map((f) => f.property).sort();
    expect(properties).toEqual(
      expect.arrayContaining([
        "datacenters.atl",
        "rollout.maxSurge",
        "template.datacenter",
        "template.tags.pulumi-gamehost/fleet",
      ]),
    );
  });

  it("a create failing in both datacenters at once names both, records what exists, and says once what to do", async () => {
    const { inputs } = await driver.check(FLEET, "failing", fleet());
    emulator.faults.inject({
      method: "POST",
      path: "/games/:game/environments/:env/servers",
      kind: "error_status",
      status: 503,
      count: 1_000,
    });
    let failure: unknown;
    try {
      await driver.create(FLEET, "failing", inputs);
    } catch (error) {
      failure = error;
    } finally {
      emulator.faults.clear();
    }
    expect(failure).toBeInstanceOf(PluginCallError);
    const { message, initFailure } = failure as PluginCallError;
    // Each datacenter ran its batch to its end: both are named, each once.
    for (const dc of [target.datacenter, target.otherDatacenter]) {
      expect(message.split(`In datacenter ${dc}:`)).toHaveLength(2);
    }
    expect(message.match(/run `pulumi up` again/g), message).toHaveLength(1);
    // Nothing was made, and the partial create records exactly that.
    const key = String(inputs.fleetKey);
    expect(liveServers(emulator).filter((s) => s.tags["pulumi-gamehost/fleet"] === key)).toEqual([]);
    const status = initFailure?.properties.status as Record<string, { servers: unknown[] }>;
    expect(Object.values(status).flatMap((dc) => dc.servers)).toEqual([]);
  });

  it("a server deleted before it was ready is named so with what comes next, and the next update replaces it", async () => {
    const { inputs } = await driver.check(
      FLEET,
      "short-lived",
      fleet({ datacenters: { [target.datacenter]: 1 } }),
    );
    const key = String(inputs.fleetKey);
    const ofFleet = () => liveServers(emulator).filter((s) => s.tags["pulumi-gamehost/fleet"] === key);
    emulator.setPlacement("never");
    let failure: unknown;
    try {
      const creating = driver.create(FLEET, "short-lived", inputs).catch((e: unknown) => e);
      // Deleted out of band while it waits for placement (a script, the dashboard's kill, the service).
      const [made] = await until(() => ofFleet().length === 1 && ofFleet(), "the fleet's server");
      await userClient(emulator).deleteServer(target.gameId, target.environmentId, String(made?.id));
      failure = await creating;
    } finally {
      emulator.setPlacement("auto");
    }
    expect(failure).toBeInstanceOf(PluginCallError);
    const { message, initFailure } = failure as PluginCallError;
    expect(message).toMatch(
      /Server \S+ stopped before it was ready: it crashed or exited, was deleted out of band, or the service lost it\. The fleet drops it; if the template's servers cannot start, fix the template first\. What exists is recorded in the stack; run `pulumi up` again/,
    );
    // The partial create records no server, so the next update makes the one the declaration asks for.
    const status = initFailure?.properties.status as Record<string, { servers: unknown[] }>;
    expect(Object.values(status).flatMap((dc) => dc.servers)).toEqual([]);
    const id = `${target.gameId}/${target.environmentId}/${key}`;
    const updated = await driver.update(FLEET, "short-lived", id, initFailure?.properties ?? {}, inputs);
    expect(ofFleet()).toHaveLength(1);
    await driver.delete(FLEET, "short-lived", id, updated.properties);
    expect(ofFleet()).toEqual([]);
  });

  it("imports by <gameId>/<environmentId>/<fleetKey> with inputs that diff clean; delete leaves nothing", async () => {
    // Its environment may hold another stack's secrets: the import keeps it secret, inputs and outputs.
    const template = fleet().template as Props;
    const environment = { DB_PASSWORD: "fleet-db-password" };
    const declared = fleet({
      template: { ...template, runtime: { ...(template.runtime as Props), environment } },
    });
    const { inputs } = await driver.check(FLEET, "arena", declared);
    const made = await driver.create(FLEET, "arena", inputs);
    const key = String(inputs.fleetKey);
    expect(made.id).toBe(`${target.gameId}/${target.environmentId}/${key}`);
    expect(liveServers(emulator).filter((s) => s.tags["pulumi-gamehost/fleet"] === key)).toHaveLength(3);

    const imported = await driver.read(FLEET, "adopted", made.id);
    expect(imported.id).toBe(made.id);
    expect(imported.inputs.datacenters).toEqual({ [target.datacenter]: 2, [target.otherDatacenter]: 1 });
    expect(imported.inputs.template).toMatchObject({ tags: { role: "imported" } });
    const envOf = (props: Props) => ((props.template as Props).runtime as Props).environment;
    expect(envOf(imported.inputs)).toEqual(secret(environment));
    expect(envOf(imported.properties)).toEqual(secret(environment));
    const status = imported.properties.status as Record<string, { readyCount: number }>;
    expect(status[target.datacenter]?.readyCount).toBe(2);

    const program = await driver.check(FLEET, "adopted", declared, imported.inputs);
    expect(program.inputs.fleetKey).toBe(key);
    const diff = await driver.diff(FLEET, "adopted", made.id, imported.properties, program.inputs);
    expect(diff.diffs).toEqual([]);
    expect(diff.changes).toBe(prov.DiffResponse.DiffChanges.DIFF_NONE);

    await driver.delete(FLEET, "adopted", made.id, imported.properties);
    expect(liveServers(emulator).filter((s) => s.tags["pulumi-gamehost/fleet"] === key)).toEqual([]);
    expect((await driver.read(FLEET, "gone", made.id)).id).toBe("");
  });

  it("create asks for the cluster's datacenters, the fleet's servers and the environment's builds at once", async () => {
    const slug = emulator.fixture.games.find((g) => g.id === target.gameId)?.datacenters[0]?.slug;
    expect(slug).toBeTruthy();
    const { inputs } = await driver.check(FLEET, "by-slug", fleet({ datacenters: { [String(slug)]: 1 } }));
    // The datacenters' answer is held back: the lists, sent beside it, are answered first.
    emulator.faults.inject({
      method: "GET",
      path: "/games/:game/environments/:env/datacenters",
      kind: "latency",
      latencyMs: 3_000,
    });
    emulator.resetRequests();
    const made = await driver.create(FLEET, "by-slug", inputs);
    const gets = emulator.requests.filter((r) => r.method === "GET").map((r) => r.route);
    expect(gets.slice(0, 2).sort()).toEqual([
      "GET /games/:game/environments/:env/builds",
      "GET /games/:game/environments/:env/servers",
    ]);
    expect(gets[2]).toBe("GET /games/:game/environments/:env/datacenters");
    await driver.delete(FLEET, "by-slug", made.id, made.properties);
  });

  it("delete starts on the recorded servers while its list runs, then deletes the one the state missed", async () => {
    const { inputs } = await driver.check(FLEET, "missed", fleet());
    const made = await driver.create(FLEET, "missed", inputs);
    const key = String(inputs.fleetKey);
    // The state as an interrupted run leaves it: one of the three servers not recorded.
    const status = made.properties.status as Record<string, { servers: { id: string }[] }>;
    const dc = status[target.datacenter];
    const forgotten = dc?.servers.pop()?.id;
    expect(forgotten).toBeTruthy();
    emulator.faults.inject({
      method: "GET",
      path: "/games/:game/environments/:env/servers",
      kind: "latency",
      latencyMs: 3_000,
    });
    emulator.resetRequests();
    await driver.delete(FLEET, "missed", made.id, { ...made.properties, status });
    const order = emulator.requests
      .filter((r) => r.method === "DELETE" || r.route === "GET /games/:game/environments/:env/servers")
      .map((r) => (r.method === "DELETE" ? r.path.split("/").at(-1) : "list"));
    // Both recorded servers were deleted before the held list answered; the forgotten one after it.
    expect(order).toHaveLength(4);
    expect(order.indexOf("list")).toBe(2);
    expect(order.at(-1)).toBe(forgotten);
    expect(liveServers(emulator).filter((s) => s.tags["pulumi-gamehost/fleet"] === key)).toEqual([]);
  });

  it("a datacenter named twice (its slug and its id) fails the run naming both keys, with nothing made", async () => {
    const slug = emulator.fixture.games.find((g) => g.id === target.gameId)?.datacenters[0]?.slug;
    const twice = fleet({ datacenters: { [target.datacenter]: 1, [String(slug)]: 1 } });
    const { inputs } = await driver.check(FLEET, "twice", twice);
    const before = liveServers(emulator).length;
    const error = await driver.create(FLEET, "twice", inputs).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginCallError);
    const message = (error as PluginCallError).message;
    expect(message).toContain(`datacenters.${slug}`);
    expect(message).toContain(`names the same datacenter as datacenters.${target.datacenter}`);
    expect(liveServers(emulator)).toHaveLength(before);
  });

  it("a new fleet of a build the environment does not have fails naming template.runtime.build, with nothing sent", async () => {
    // Before: every create was refused by the service, and the error told the user to check `runtime.build`.
    const misspelt = "b1000000-0000-4000-8000-00000000000f";
    const misbuilt = fleet();
    const { inputs } = await driver.check(FLEET, "misbuilt-new", {
      ...misbuilt,
      template: { ...(misbuilt.template as Props), runtime: { build: misspelt } },
    });
    emulator.resetRequests();
    const error = await driver.create(FLEET, "misbuilt-new", inputs).catch((e: unknown) => e);
    expect(emulator.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(error).toBeInstanceOf(PluginCallError);
    expect((error as PluginCallError).message).toContain(
      `template.runtime.build: ${misspelt} is not a build of`,
    );
    expect((error as PluginCallError).initFailure).toBeUndefined();
  });

  /**
   * A fleet of `count` servers in the target datacenter, then an update to what `change` makes of its inputs,
   * which must fail with `message` having written nothing: no request but reads, the same servers, no partial
   * record.
   */
  async function expectRefusedWithNothingChanged(
    name: string,
    count: number,
    change: (inputs: Props) => Props,
    message: string,
  ): Promise<void> {
    const { inputs } = await driver.check(
      FLEET,
      name,
      fleet({ datacenters: { [target.datacenter]: count } }),
    );
    const made = await driver.create(FLEET, name, inputs);
    const members = () =>
      liveServers(emulator)
        .filter((s) => s.tags["pulumi-gamehost/fleet"] === inputs.fleetKey)
        .map((s) => s.id)
        .sort();
    const before = members();
    const changed = await driver.check(FLEET, name, change(inputs), inputs);
    emulator.resetRequests();
    const error = await driver
      .update(FLEET, name, made.id, made.properties, changed.inputs)
      .catch((e: unknown) => e);
    expect(emulator.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(members()).toEqual(before);
    expect(error).toBeInstanceOf(PluginCallError);
    expect((error as PluginCallError).message).toContain(message);
    expect((error as PluginCallError).initFailure).toBeUndefined();
    await driver.delete(FLEET, name, made.id, made.properties);
    expect(members()).toEqual([]);
  }

  it("a datacenter UUID mistyped in place of the right one fails the run naming it, with nothing deleted", async () => {
    // Before: the old key's datacenter was emptied (its servers deleted) while the new key's creates were refused.
    const mistyped = `${target.datacenter.slice(0, -1)}${target.datacenter.endsWith("f") ? "e" : "f"}`;
    await expectRefusedWithNothingChanged(
      "mistyped",
      2,
      (inputs) => ({ ...inputs, datacenters: { [mistyped]: 2 } }),
      `datacenters.${mistyped}: is not a datacenter of the game's cluster`,
    );
  });

  it("a rollout to a build the environment does not have fails naming template.runtime.build, with nothing deleted", async () => {
    // Before: the default bounds (25 %) let the first batch delete one ready server before its creates were refused.
    const misspelt = "b1000000-0000-4000-8000-00000000000f";
    await expectRefusedWithNothingChanged(
      "misbuilt",
      4,
      (inputs) => ({ ...inputs, template: { ...(inputs.template as Props), runtime: { build: misspelt } } }),
      `template.runtime.build: ${misspelt} is not a build of`,
    );
  });

  it("a stopped rollout reverted keeps the servers that run the reverted template: only the stopped one's are deleted", async () => {
    const a = fleet({
      datacenters: { [target.datacenter]: 2 },
      rollout: { maxSurge: 1, maxUnavailable: 0 },
      readyTimeoutSeconds: 1,
    });
    const { inputs } = await driver.check(FLEET, "reverted", a);
    const made = await driver.create(FLEET, "reverted", inputs);
    const members = () =>
      liveServers(emulator).filter((s) => s.tags["pulumi-gamehost/fleet"] === inputs.fleetKey);
    const onA = members()
      .map((s) => s.id)
      .sort();
    // A template change whose first new server is never placed: the rollout stops after that one create, and
    // the partial update records both servers of the old template and the new one.
    const b = { ...a, template: { ...(a.template as Props), resources: { cpu: 500, memory: 256 } } };
    const changed = await driver.check(FLEET, "reverted", b, inputs);
    emulator.setPlacement("never");
    const stopped = await driver
      .update(FLEET, "reverted", made.id, made.properties, changed.inputs)
      .catch((e: unknown) => e)
      .finally(() => emulator.setPlacement("auto"));
    const partial = (stopped as PluginCallError).initFailure?.properties;
    expect(partial, String(stopped)).toBeDefined();
    expect(members()).toHaveLength(3);

    // The change reverted: the two servers on the old template are the declared fleet already.
    const back = await driver.check(FLEET, "reverted", a, changed.inputs);
    emulator.resetRequests();
    const done = await driver.update(FLEET, "reverted", made.id, partial as Props, back.inputs);
    expect(
      members()
        .map((s) => s.id)
        .sort(),
    ).toEqual(onA);
    expect(emulator.requests.filter((r) => r.method === "POST")).toEqual([]);
    const status = done.properties.status as Record<string, { servers: { id: string }[] }>;
    expect(
      Object.values(status)
        .flatMap((d) => d.servers.map((s) => s.id))
        .sort(),
    ).toEqual(onA);
    await driver.delete(FLEET, "reverted", made.id, done.properties);
    expect(members()).toEqual([]);
  });

  it("the Server's attack cases on a fleet's creates and deletes (lost answers, resets, 500s, a 429): exactly the declared servers, none left", async () => {
    const { inputs } = await driver.check(
      FLEET,
      "attacked",
      fleet({ datacenters: { [target.datacenter]: 3 } }),
    );
    const key = String(inputs.fleetKey);
    const members = () => liveServers(emulator).filter((s) => s.tags["pulumi-gamehost/fleet"] === key);
    const servers = "/games/:game/environments/:env/servers";
    for (const kind of ["commit_then_reset", "reset", "error_500", "rate_limit"] as const) {
      emulator.faults.inject({
        method: "POST",
        path: servers,
        kind,
        ...(kind === "rate_limit" ? { retryAfterMs: 500 } : {}),
      });
    }
    const made = await driver.create(FLEET, "attacked", inputs);
    expect(emulator.faults.pending()).toEqual([]);
    const recorded = (made.properties.status as Record<string, { servers: { id: string; slot: number }[] }>)[
      target.datacenter
    ]?.servers;
    // One server per slot, each the one recorded: the lost answer was adopted by its key, nothing posted twice.
    expect(
      members()
        .map((s) => s.id)
        .sort(),
    ).toEqual((recorded ?? []).map((s) => s.id).sort());
    expect(new Set(members().map((s) => s.tags["pulumi-gamehost/fleet-slot"])).size).toBe(3);

    for (const kind of ["commit_then_reset", "reset", "error_500"] as const) {
      emulator.faults.inject({ method: "DELETE", path: `${servers}/:server`, kind });
    }
    await driver.delete(FLEET, "attacked", made.id, made.properties);
    expect(emulator.faults.pending()).toEqual([]);
    expect(members()).toEqual([]);
  });
});
