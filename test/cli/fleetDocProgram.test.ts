/**
 * docs/fleets.md's TypeScript program as written (it was a fragment with undefined `gameId`, `environmentId`
 * and `buildId`, which a new user could not run), in a project of Pulumi's TypeScript template, on both faces
 * its first line names: `pulumi-gamehost` (dynamic) and `pulumi-gamehost/native` (the plugin). `up` makes 3 + 3
 * ready servers and the `atlEndpoints` output lists the Atlanta ones; `destroy` removes them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { TEMPLATE_TSCONFIG, writeJson } from "../packaging/support";
import { docBlock } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { pluginProviderYaml } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { installPackage } from "./docCommands";
import { connection, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const PROGRAM = docBlock("docs/fleets.md", "Fleets", "typescript").text;
const DYNAMIC_IMPORT = 'from "pulumi-gamehost";';

describe.skipIf(!realCli)(realCliTitle("docs/fleets.md's TypeScript program"), () => {
  const setup = useCliEnvironment("fleet-doc-program");

  it.each([
    ["pulumi-gamehost", PROGRAM],
    ["pulumi-gamehost/native", PROGRAM.replace(DYNAMIC_IMPORT, 'from "pulumi-gamehost/native";')],
  ])(
    "from %s: up makes 3 + 3 ready servers, atlEndpoints lists Atlanta's; destroy",
    {
      timeout: SCENARIO_TIMEOUT_MS,
    },
    async (face, program) => {
      expect(PROGRAM).toContain(DYNAMIC_IMPORT);
      const dir = path.join(setup.root, face.replace("/", "-"));
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "index.ts"), program);
      writeJson(path.join(dir, "package.json"), { name: "fleet-doc", main: "index.ts" });
      writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
      const plugin = face.endsWith("/native") ? pluginProviderYaml() : "";
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: fleet-doc\nruntime: nodejs\n${plugin}`);
      installPackage(dir);
      const cli = new CliProject(dir, setup.root);
      await cli.configure(connection(setup.emulator));

      await cli.ok(["up", "--yes", "--skip-preview"]);
      const game = setup.emulator.fixture.games[0];
      const bySlug = (slug: string) => game?.datacenters.find((d) => d.slug === slug)?.id;
      const live = liveServers(setup.emulator);
      const atl = live.filter((s) => s.datacenter === bySlug("us-east-atl"));
      expect(atl).toHaveLength(3);
      expect(live.filter((s) => s.datacenter === bySlug("eu-central-fra"))).toHaveLength(3);
      expect(live.every((s) => s.tags.role === "arena" && s.started_at !== undefined)).toBe(true);
      const endpoints = atl.map(
        (s) => `${s.network.ports.game?.public_hostname}:${s.network.ports.game?.public_port}`,
      );
      expect(((await cli.outputsJson()).atlEndpoints as string[]).sort()).toEqual(endpoints.sort());

      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      expect(liveServers(setup.emulator)).toEqual([]);
      cli.expectNoLeak(setup.emulator.tokens.user);
    },
  );
});
