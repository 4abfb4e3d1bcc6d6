/**
 * A platform team's policy pack (docs/_index.md, "Policies and transforms": its PulumiPolicy.yaml and
 * index.ts as written) run by the real CLI with `--policy-pack <folder>` against a team's stack of both
 * faces: a dynamic Server and LobbyHistoryExport inside the team's own ComponentResource (`parent`,
 * `registerOutputs`), a plugin Server and export beside it. Each rule names the face's type token; a
 * mandatory violation fails the preview and the `up` with no server made; once the program keeps the rules
 * the `up` makes both servers, the advisory one printed; `pulumi stack output` reads the component's server.
 * Before, the pinned CLI build could run no pack (`could not read plugin [<folder>]: not supported`), and
 * `validateResourceOfType(gamehost.Server, …)` silently matched no resource (the dynamic class had no type).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureIds } from "../engine/helpers";
import { TEMPLATE_TSCONFIG, writeJson } from "../packaging/support";
import { docBlock } from "../support/docBlocks";
import { linkNodeModules, pluginProviderYaml } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  connection,
  expectOnlyReads,
  expectTokenNowhere,
  liveIds,
  SCENARIO_TIMEOUT_MS,
  useCliEnvironment,
} from "./helpers";

const SECTION = "Policies and transforms";
const POLICY_YAML = docBlock("docs/_index.md", SECTION, "yaml").text;
const POLICY_PACK = docBlock("docs/_index.md", SECTION, "typescript").text;

function program(ids: ReturnType<typeof fixtureIds>): string {
  return `import * as pulumi from "@pulumi/pulumi";
import * as gamehost from "pulumi-gamehost";

const fixed = new pulumi.Config().getBoolean("fixed") ?? false;
const scope = { gameId: "${ids.gameId}", environmentId: "${ids.environmentId}" };
const template = {
  ...scope,
  datacenter: "${ids.datacenterId}",
  runtime: { build: "${ids.buildId}" },
  network: { ports: { web: { protocol: "http" as const, internalPort: 8080, routing: { gameGuard: {} } } } },
};

// A team's own component: a lobby and ten days of its history.
class TeamGame extends pulumi.ComponentResource {
  public readonly lobbyId: pulumi.Output<string>;
  constructor(name: string, team: string | undefined, opts?: pulumi.ComponentResourceOptions) {
    super("acme:index:TeamGame", name, {}, opts);
    const lobby = new gamehost.Server(\`\${name}-lobby\`, {
      ...template,
      resources: { cpu: team ? 500 : 1500, memory: 256 },
      tags: team ? { role: "lobby", team } : { role: "lobby" },
    }, { parent: this });
    new gamehost.LobbyHistoryExport(\`\${name}-history\`, {
      gameId: scope.gameId,
      queryStart: new Date(Date.UTC(2026, 9, 1)),
      queryEnd: new Date(Date.UTC(2026, 9, 11)),
    }, { parent: this });
    this.lobbyId = lobby.serverId;
    this.registerOutputs({ lobbyId: this.lobbyId });
  }
}

const red = new TeamGame("red", fixed ? "red" : undefined);
const arena = new gamehost.native.Server("arena", {
  ...template,
  resources: { cpu: fixed ? 1000 : 2000, memory: 256 },
  tags: { role: "arena", team: "red" },
});
new gamehost.native.LobbyHistoryExport("week", {
  gameId: scope.gameId,
  queryStart: "2026-10-01T00:00:00Z",
  queryEnd: "2026-10-04T00:00:00Z",
});
export const lobbyId = red.lobbyId;
export const arenaId = arena.serverId;
`;
}

describe.skipIf(!realCli)(realCliTitle("a policy pack over both faces"), () => {
  const setup = useCliEnvironment("policy-pack");

  it("the docs' pack names each face's type token, blocks a mandatory violation, lets the fixed stack up", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const pack = path.join(setup.root, "policy");
    fs.mkdirSync(pack);
    fs.writeFileSync(path.join(pack, "PulumiPolicy.yaml"), POLICY_YAML);
    fs.writeFileSync(path.join(pack, "index.ts"), POLICY_PACK);
    writeJson(path.join(pack, "package.json"), {
      name: "gamehost-rules",
      version: "1.0.0",
      main: "index.ts",
    });
    writeJson(path.join(pack, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
    linkNodeModules(pack);

    const dir = path.join(setup.root, "team");
    fs.mkdirSync(dir);
    writeJson(path.join(dir, "package.json"), { name: "team", main: "index.ts" });
    writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: team\nruntime: nodejs\n${pluginProviderYaml()}`);
    fs.writeFileSync(path.join(dir, "index.ts"), program(fixtureIds(setup.emulator)));
    linkNodeModules(dir);
    const cli = new CliProject(dir, setup.root);
    await cli.configure(connection(setup.emulator));

    const violation = (level: string, policy: string, type: string, name: string) =>
      new RegExp(`\\[${level}\\]\\s+${policy}\\s+\\(${type}: ${name}\\)`);
    const preview = await cli.fails(["preview", "--policy-pack", pack]);
    expect(preview).toMatch(
      violation("mandatory", "server-team-tag", "pulumi-nodejs:dynamic/gamehost:Server", "red-lobby"),
    );
    expect(preview).toContain('Server "red-lobby" has no team tag.');
    expect(preview).toMatch(violation("mandatory", "server-cpu", "gamehost:index:Server", "arena"));
    expect(preview).toContain('Server "arena" asks for 2000 mCPU.');
    // By each face's class (validateResourceOfType): the dynamic class matched nothing before.
    expect(preview).toMatch(
      violation("mandatory", "server-cpu", "pulumi-nodejs:dynamic/gamehost:Server", "red-lobby"),
    );
    expect(preview).toContain('Server "red-lobby" asks for 1500 mCPU.');
    expect(preview).toMatch(
      violation(
        "advisory",
        "export-window",
        "pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport",
        "red-history",
      ),
    );
    expect(preview).toContain('LobbyHistoryExport "red-history" spans 10 days.');
    // Three days, given as RFC 3339 strings on the plugin's face: within the rule.
    expect(preview).not.toContain('"week" spans');

    setup.emulator.resetRequests();
    const blocked = await cli.fails(["up", "--yes", "--policy-pack", pack]);
    expect(blocked).toContain('Server "arena" asks for 2000 mCPU.');
    expectOnlyReads(setup.emulator);
    expect(liveIds(setup.emulator)).toEqual([]);

    await cli.setConfig({ "team:fixed": { value: "true" } });
    const up = await cli.ok(["up", "--yes", "--policy-pack", pack]);
    expect(up).toContain('LobbyHistoryExport "red-history" spans 10 days.');
    expect(up).not.toContain("[mandatory]");
    const live = liveIds(setup.emulator);
    expect(live).toHaveLength(2);
    const outputs = await cli.outputsJson();
    expect([outputs.lobbyId, outputs.arenaId].sort()).toEqual(live);
    // The component's output, as `pulumi stack output` prints it.
    expect((await cli.ok(["stack", "output", "lobbyId"])).trim()).toBe(outputs.lobbyId);
    expect((await cli.exported()).find((r) => r.urn.endsWith("::red-lobby"))?.urn).toContain(
      "acme:index:TeamGame$pulumi-nodejs:dynamic/gamehost:Server::red-lobby",
    );

    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveIds(setup.emulator)).toEqual([]);
    await expectTokenNowhere(cli, setup.emulator.tokens.user);
  });
});
