/**
 * A stack whose resources move between the faces by an alias of their old type (docs/languages.md,
 * "Moving a resource between the faces", its TypeScript block as written), through the real CLI. A Server,
 * a Fleet and a LobbyHistoryExport made by the plugin move to the dynamic face: no server is created or
 * deleted, and `refresh` works after it (the state lacked the dynamic face's provider, and refresh and
 * destroy failed with "code must be a string, not undefined"); then back, by the page's block: no change
 * and no call that changes anything; then into a component by docs/_index.md's block (an alias of its old
 * parent): the same server, nothing changed at the service; `destroy` leaves no server.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureIds } from "../engine/helpers";
import { TEMPLATE_TSCONFIG, writeJson } from "../packaging/support";
import { docBlock } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { pluginProviderYaml } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { installPackage } from "./docCommands";
import { connection, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const BLOCK = docBlock("docs/languages.md", "Moving a resource between the faces", "typescript").text;
const INTO_COMPONENT = docBlock("docs/_index.md", "Components and stack references", "typescript").text;
const DYNAMIC_SERVER = "pulumi-nodejs:dynamic/gamehost:Server";

/** How each resource is declared: its class and, if any, the alias of its old type. */
type Declaration = (kind: "Server" | "Fleet" | "LobbyHistoryExport") => { cls: string; alias?: string };

function program(ids: ReturnType<typeof fixtureIds>, declare: Declaration, lobby?: string): string {
  const decl = (kind: "Server" | "Fleet" | "LobbyHistoryExport", name: string, args: string) => {
    const { cls, alias } = declare(kind);
    const opts = alias ? `, { aliases: [{ type: "${alias}" }] }` : "";
    return `const ${name} = new ${cls}("${name}", ${args}${opts});`;
  };
  return [
    'import * as gamehost from "pulumi-gamehost";',
    `const scope = { gameId: "${ids.gameId}", environmentId: "${ids.environmentId}" };`,
    "const template = {",
    `  runtime: { build: "${ids.buildId}" },`,
    '  network: { ports: { web: { protocol: "http" as const, internalPort: 8080, routing: { gameGuard: {} } } } },',
    "  resources: { cpu: 250, memory: 256 },",
    "};",
    `const lobbyArgs = { ...scope, ...template, datacenter: "${ids.datacenterId}", tags: { role: "lobby" } };`,
    lobby ?? decl("Server", "lobby", "lobbyArgs"),
    decl(
      "Fleet",
      "arena",
      `{ ...scope, template: { ...template, tags: { role: "arena" } }, datacenters: { "${ids.datacenterId}": 2 } }`,
    ),
    decl(
      "LobbyHistoryExport",
      "history",
      `{ gameId: scope.gameId, queryStart: ${Date.UTC(2026, 9, 1)}, queryEnd: ${Date.UTC(2026, 9, 2)} }`,
    ),
    "export const lobbyId = lobby.serverId;",
    "export const fleetKey = arena.fleetKey;",
    "export const exportedAt = history.exportedAt;",
    "",
  ].join("\n");
}

describe.skipIf(!realCli)(realCliTitle("resources moved between the faces by aliases"), () => {
  const setup = useCliEnvironment("face-moves");

  it("plugin → dynamic keeps every server and refreshes; the docs' block moves them back with no change", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    expect(BLOCK).toContain(`type: "${DYNAMIC_SERVER}"`);
    const ids = fixtureIds(setup.emulator);
    const dir = path.join(setup.root, "moves");
    fs.mkdirSync(dir);
    writeJson(path.join(dir, "package.json"), { name: "face-moves", main: "index.ts" });
    writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      `name: face-moves\nruntime: nodejs\n${pluginProviderYaml()}`,
    );
    installPackage(dir);
    const write = (text: string) => fs.writeFileSync(path.join(dir, "index.ts"), text);
    const cli = new CliProject(dir, setup.root);
    await cli.configure(connection(setup.emulator));
    const live = () =>
      liveServers(setup.emulator)
        .map((s) => s.id)
        .sort();
    /** Requests that change something at the service, but for the exports `allowed` lets through. */
    const changing = (allowed = false) =>
      setup.emulator.requests
        .map((r) => r.route)
        .filter((route) => !route.startsWith("GET ") && !(allowed && route.includes("export-history")));

    write(program(ids, (kind) => ({ cls: `gamehost.native.${kind}` })));
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const made = live();
    expect(made).toHaveLength(3);

    // To the dynamic face: an update of the Server and the Fleet (no server made or deleted), a new export.
    write(program(ids, (kind) => ({ cls: `gamehost.${kind}`, alias: `gamehost:index:${kind}` })));
    setup.emulator.resetRequests();
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(changing(true)).toEqual([]);
    expect(live()).toEqual(made);
    const types = (await cli.exported()).filter((r) => r.custom).map((r) => r.type);
    expect(types).toEqual(
      expect.arrayContaining(
        ["Server", "Fleet", "LobbyHistoryExport"].map((k) => `pulumi-nodejs:dynamic/gamehost:${k}`),
      ),
    );
    await cli.ok(["refresh", "--yes", "--skip-preview"]);
    await cli.ok(["preview", "--expect-no-changes"]);
    expect(live()).toEqual(made);

    // Back to the plugin, the Server by the docs' block as written: nothing changes.
    const nativeFromDynamic = (kind: string) => ({
      cls: `gamehost.native.${kind}`,
      alias: `pulumi-nodejs:dynamic/gamehost:${kind}`,
    });
    write(program(ids, nativeFromDynamic, BLOCK));
    setup.emulator.resetRequests();
    await cli.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
    expect(changing()).toEqual([]);
    expect(live()).toEqual(made);
    expect((await cli.exported()).find((r) => r.urn.endsWith("::lobby"))?.type).toBe("gamehost:index:Server");

    // Into a component, by docs/_index.md's block as written: the same server, now the component's child.
    write(program(ids, nativeFromDynamic, INTO_COMPONENT));
    setup.emulator.resetRequests();
    await cli.ok(["up", "--yes", "--skip-preview"]);
    expect(changing()).toEqual([]);
    expect(live()).toEqual(made);
    const moved = (await cli.exported()).filter((r) => r.urn.endsWith("::lobby"));
    expect(moved.map((r) => r.urn)).toEqual([
      expect.stringContaining("acme:index:Lobbies$gamehost:index:Server::lobby"),
    ]);
    await cli.ok(["preview", "--expect-no-changes"]);

    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
