/**
 * The Fleet's import, `get` and rate limits through the real `pulumi` CLI. A fleet made by one stack and
 * let go there (`pulumi state delete`) is taken over by another with `pulumi import gamehost:index:Fleet
 * <name> <gameId>/<environmentId>/<fleetKey>` (docs/fleets.md): the code the CLI prints, put in the
 * program, previews with no changes, and `destroy` then removes the servers; `Fleet.get` in a TypeScript
 * program reads the same fleet. Then 429s from the emulator's admin faults API in the middle of a fleet's
 * creates and deletes: every create waits out its `retry-after` and is posted again, no duplicates, the
 * fleet converges, `destroy` leaves nothing.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureIds, ROUTES } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { liveServers } from "../support/emulator";
import { linkNodeModules, pluginProviderYaml } from "../support/examples";
import { CliProject, programProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  configure,
  connection,
  FLEET_PROGRAM,
  FLEET_PROJECT,
  useCliEnvironment,
  yamlProject,
} from "./helpers";

const FLEET = "gamehost:index:Fleet";
const FLEET_TAG = "pulumi-gamehost/fleet";
const SLOT_TAG = "pulumi-gamehost/fleet-slot";

/** The import command docs/fleets.md gives (in "What it does"), with its placeholders. */
function documentedImport(): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, "docs", "fleets.md"), "utf8");
  const command = /`(pulumi import gamehost:index:Fleet \S+ <gameId>\/<environmentId>\/<fleetKey>)`/.exec(
    doc,
  )?.[1];
  if (!command) throw new Error("docs/fleets.md gives no `pulumi import gamehost:index:Fleet …` command");
  return command;
}

describe.skipIf(!realCli)(realCliTitle("the Fleet's import, get and 429s"), () => {
  // The admin faults API makes the 429s.
  const setup = useCliEnvironment("fleet-import", { admin: true });

  const fleetServers = (key: string) => liveServers(setup.emulator).filter((s) => s.tags[FLEET_TAG] === key);

  it("pulumi import of a fleet, then preview shows no changes; Fleet.get reads it", {
    timeout: 900_000,
  }, async () => {
    const ids = fixtureIds(setup.emulator);
    const [atl, fra] = setup.emulator.fixture.games[0]?.datacenters ?? [];
    if (!atl || !fra) throw new Error("the fixture has fewer than 2 datacenters");

    // A fleet made by one stack, which then lets go of it: its servers stay, tagged with its key.
    const origin = await yamlProject(
      setup,
      "fleet-origin",
      [
        "resources:",
        "  arena:",
        `    type: ${FLEET}`,
        "    properties:",
        `      gameId: ${ids.gameId}`,
        `      environmentId: ${ids.environmentId}`,
        "      template:",
        "        tags: { role: arena }",
        `        runtime: { build: ${ids.buildId} }`,
        "        network: { ports: { game: { protocol: udp, internalPort: 7777, routing: { host: {} } } } }",
        "        resources: { cpu: 250, memory: 256 }",
        `      datacenters: { ${atl.id}: 2, ${fra.id}: 1 }`,
        "outputs:",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a YAML interpolation, not JavaScript
        "  fleetKey: ${arena.fleetKey}",
        "",
      ].join("\n"),
    );
    await origin.ok(["up", "--yes", "--skip-preview"]);
    const fleetKey = String((await origin.outputsJson()).fleetKey);
    const servers = fleetServers(fleetKey)
      .map((s) => s.id)
      .sort();
    expect(servers).toHaveLength(3);
    const [urn] = (await origin.exported()).filter((r) => r.type === FLEET).map((r) => r.urn);
    await origin.ok(["state", "delete", String(urn), "--yes"]);

    // The import, as docs/fleets.md words it, into a project that has no fleet yet.
    const importId = `${ids.gameId}/${ids.environmentId}/${fleetKey}`;
    const args = documentedImport().replace("<gameId>/<environmentId>/<fleetKey>", importId).split(" ");
    const adopt = await yamlProject(setup, "fleet-adopt");
    const out = path.join(setup.root, "fleet-import.yaml");
    await adopt.ok([...args.slice(1), "--yes", "--out", out]);
    const name = args[3] as string;
    expect(await adopt.stateIds([FLEET])).toEqual({ [name]: importId });
    const recorded = (await adopt.exported()).find((r) => r.type === FLEET)?.outputs ?? {};
    const status = recorded.status as Record<string, { readyCount: number; servers: { id: string }[] }>;
    expect(status[atl.id]?.readyCount).toBe(2);
    expect(status[fra.id]?.readyCount).toBe(1);
    expect(
      Object.values(status)
        .flatMap((d) => d.servers.map((s) => s.id))
        .sort(),
    ).toEqual(servers);
    // The printed code, appended to the program as it stands: a preview with no changes, an `up` that calls nothing.
    const code = fs.readFileSync(out, "utf8");
    expect(code).toMatch(/type: gamehost:(index:)?Fleet/);
    fs.appendFileSync(path.join(adopt.dir, "Pulumi.yaml"), code);
    await adopt.ok(["preview", "--expect-no-changes"]);
    setup.emulator.resetRequests();
    await adopt.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(setup.emulator.requests.filter((r) => r.method !== "GET")).toEqual([]);

    // One of its servers imported as a Server: refused, naming the fleet's tag, so no server has two owners
    // (the Server's stack would delete it under its fleet, the fleet count or replace it under the Server).
    const [first] = servers;
    const asServer = await adopt.fails([
      "import",
      "gamehost:index:Server",
      "one",
      `${ids.gameId}/${ids.environmentId}/${first}`,
      "--yes",
    ]);
    expect(asServer).toContain(`is a server of a Fleet (tag ${FLEET_TAG}: ${fleetKey})`);
    expect(asServer).toContain(`pulumi import gamehost:index:Fleet <name> ${importId}`);
    expect(Object.keys(await adopt.stateIds(["gamehost:index:Server"]))).toEqual([]);

    // Fleet.get in a TypeScript program (the plugin's face): the same fleet, read, not managed.
    const getDir = path.join(setup.root, "fleet-get");
    fs.mkdirSync(getDir);
    fs.writeFileSync(
      path.join(getDir, "Pulumi.yaml"),
      `name: fleet-get\nruntime: nodejs\n${pluginProviderYaml()}`,
    );
    fs.writeFileSync(
      path.join(getDir, "index.js"),
      [
        'const pulumi = require("@pulumi/pulumi");',
        'const { Fleet } = require("pulumi-gamehost/native");',
        'const fleet = Fleet.get("seen", new pulumi.Config().require("fleetId"));',
        "exports.fleetKey = fleet.fleetKey;",
        "exports.datacenters = fleet.datacenters;",
        "exports.ready = fleet.status.apply((s) => Object.fromEntries(Object.entries(s).map(([k, d]) => [k, d.readyCount])));",
        "",
      ].join("\n"),
    );
    linkNodeModules(getDir);
    const getter = new CliProject(getDir, setup.root);
    await getter.configure({ ...connection(setup.emulator), "fleet-get:fleetId": { value: importId } });
    setup.emulator.resetRequests();
    await getter.ok(["up", "--yes", "--skip-preview"]);
    expect(setup.emulator.requests.filter((r) => r.method !== "GET")).toEqual([]);
    const seen = await getter.outputsJson();
    expect(seen.fleetKey).toBe(fleetKey);
    expect(seen.datacenters).toEqual({ [atl.id]: 2, [fra.id]: 1 });
    expect(seen.ready).toEqual({ [atl.id]: 2, [fra.id]: 1 });
    // A read resource is not the stack's to delete: destroying that stack leaves the servers.
    await getter.ok(["destroy", "--yes", "--skip-preview"]);
    expect(fleetServers(fleetKey)).toHaveLength(3);

    // The importing stack owns the fleet now (imported protected, as `pulumi import` does): once
    // unprotected, its destroy removes every server.
    const [adopted] = (await adopt.exported()).filter((r) => r.type === FLEET).map((r) => r.urn);
    await adopt.ok(["state", "unprotect", String(adopted), "--yes"]);
    await adopt.ok(["destroy", "--yes", "--skip-preview"]);
    expect(fleetServers(fleetKey)).toEqual([]);
    adopt.expectNoLeak(setup.emulator.tokens.user);
  });

  it("429s in the middle of the creates and deletes: each waits out retry-after; no duplicates; it converges", {
    timeout: 900_000,
  }, async () => {
    const ids = fixtureIds(setup.emulator);
    const cli = programProject(setup.root, "fleet-429", FLEET_PROGRAM, { name: FLEET_PROJECT, plugin: true });
    await configure(cli, {
      ...connection(setup.emulator),
      [`${FLEET_PROJECT}:face`]: { value: "plugin" },
      [`${FLEET_PROJECT}:fleet`]: {
        value: {
          gameId: ids.gameId,
          environmentId: ids.environmentId,
          template: {
            tags: { role: "limited" },
            runtime: { build: ids.buildId },
            network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
            resources: { cpu: 250, memory: 256 },
          },
          datacenters: { [ids.datacenterId]: 6 },
          readyTimeoutSeconds: 30,
        },
      },
    });
    // Through the admin faults API, as a test of a deployed emulator would: the first 2 creates are slow
    // (and succeed), the next 4 get 429 with retry-after 1 s; 2 of the deletes get 429 too.
    const admin = async (fault: Record<string, unknown>) => {
      const res = await fetch(`${setup.emulator.url}/__admin/faults`, {
        method: "POST",
        headers: { authorization: `Bearer ${setup.emulator.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(fault),
      });
      expect(res.status, await res.text()).toBeLessThan(300);
    };
    const servers = ROUTES.createServer.replace(/^POST /, "");
    await admin({ method: "POST", path: servers, kind: "latency", latencyMs: 1500, count: 2 });
    await admin({
      method: "POST",
      path: servers,
      kind: "rate_limit",
      retryAfter: "seconds",
      retryAfterMs: 1000,
      count: 4,
    });
    setup.emulator.resetRequests();
    const started = Date.now();
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const posts = setup.emulator.requests.filter((r) => r.route === ROUTES.createServer);
    expect(posts.filter((r) => r.status === 429)).toHaveLength(4);
    // Each rate-limited create was posted again, once: 6 made, 4 refused, nothing else.
    expect(posts.filter((r) => r.status === 201 || r.status === 200)).toHaveLength(6);
    expect(posts).toHaveLength(10);
    // The retries came after retry-after (1 s), not at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const fleetKey = String((await cli.outputsJson()).fleetKey);
    const live = fleetServers(fleetKey);
    expect(live).toHaveLength(6);
    expect(new Set(live.map((s) => s.tags[SLOT_TAG])).size).toBe(6);
    expect(live.every((s) => s.started_at !== undefined)).toBe(true);
    const state = (await cli.exported()).find((r) => r.type === FLEET)?.outputs ?? {};
    const recorded = Object.values(state.status as Record<string, { servers: { id: string }[] }>)
      .flatMap((d) => d.servers.map((s) => s.id))
      .sort();
    expect(recorded).toEqual(live.map((s) => s.id).sort());
    await cli.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);

    await admin({
      method: "DELETE",
      pathGlob: "/games/*/environments/*/servers/*",
      kind: "rate_limit",
      retryAfterMs: 500,
      count: 2,
    });
    setup.emulator.resetRequests();
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(setup.emulator.requests.filter((r) => r.method === "DELETE" && r.status === 429)).toHaveLength(2);
    expect(fleetServers(fleetKey)).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
