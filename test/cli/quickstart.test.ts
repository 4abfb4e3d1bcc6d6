/**
 * `examples/quickstart` through the real `pulumi` CLI, as a user types it, on both faces: the example as
 * written (dynamic resources), and the same program importing `pulumi-gamehost/native` with the plugin
 * named in Pulumi.yaml (docs/languages.md). Preview, up, an up with no change, a change that replaces, a
 * refresh after an out-of-band delete, destroy; the CLI's own output and `pulumi stack output`.
 */
import { describe, expect, it } from "vitest";
import { PLUGIN_DOWNLOAD_URL } from "../../src/version";
import { fixtureIds, ROUTES, routesCalled, TYPES } from "../engine/helpers";
import { dist } from "../support/dist";
import { userClient } from "../support/emulator";
import { quickstartOnFace } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  connection,
  expectOnlyReads,
  expectTokenNowhere,
  liveIds,
  SCENARIO_TIMEOUT_MS,
  summaryOf,
  useCliEnvironment,
} from "./helpers";

/** A secret of `pulumi stack export`: the engine's secret signature, the value encrypted. */
const ENCRYPTED = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

describe.skipIf(!realCli).each(["dynamic", "plugin"] as const)(
  realCliTitle("examples/quickstart, %s face"),
  (face) => {
    // An emulator per face: each face's scenario counts every live server.
    const cli = useCliEnvironment(`quickstart-${face}`);

    it("previews with reads only, ups, stays unchanged, replaces, heals after refresh, destroys", {
      timeout: SCENARIO_TIMEOUT_MS,
    }, async () => {
      const { emulator } = cli;
      const ids = fixtureIds(emulator);
      const types = [TYPES[face].server, TYPES[face].export];
      const project = new CliProject(quickstartOnFace(cli.root, face), cli.root);
      await project.configure({
        ...connection(emulator),
        "gamehost-quickstart:game": { value: ids.gameNameId },
        "gamehost-quickstart:buildTags": { value: { channel: "stable" } },
      });

      emulator.resetRequests();
      const preview = await project.stepsOf(["preview"], types);
      expect(preview.map(([op, name]) => `${name}: ${op}`).sort()).toEqual([
        "lobby: create",
        "match: create",
        "yesterday: create",
      ]);
      expectOnlyReads(emulator);
      expect(emulator.servers()).toEqual([]);

      emulator.resetRequests();
      const up = await project.ok(["up", "--yes", "--skip-preview"]);
      // The stack and its three resources (data sources and the default provider are not counted).
      expect(summaryOf(up)).toEqual({ created: 4 });
      expect(up).toMatch(/historyUrl\s*: \[secret\]/);
      const outputs = await project.outputsJson();
      expect(liveIds(emulator)).toEqual([outputs.lobbyServerId, outputs.matchServerId].sort());
      const lobby = emulator.servers().find((s) => s.id === outputs.lobbyServerId)?.network.ports.web;
      expect(outputs.lobbyEndpoint).toBe(`${lobby?.public_hostname}:${lobby?.public_port}`);
      expect(outputs.gameName).toBe(ids.gameName);
      expect([...(outputs.environments as string[])].sort()).toEqual([...ids.environmentNames].sort());
      expect(outputs.historyRows).toBeGreaterThan(0);
      expect(String(outputs.historyUrl)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__exports\//);
      expect(routesCalled(emulator).filter((r) => r === ROUTES.exportHistory)).toHaveLength(1);
      // The export's URL is a secret: encrypted in the state, `[secret]` without --show-secrets.
      const exported = await project.exported();
      const exportState = exported.find((r) => r.type === TYPES[face].export);
      if (face === "plugin") {
        // Data sources and resources share the one default provider of the package's version and download
        // URL (the engine names it by both, the URL in its QName form: `://` becomes `_/`).
        const providers = exported.filter((r) => r.type === "pulumi:providers:gamehost");
        const { PACKAGE_VERSION } = dist.pkg();
        const name = `default_${PACKAGE_VERSION.replaceAll(".", "_")}_${PLUGIN_DOWNLOAD_URL.replace("://", "_/")}`;
        expect(providers.map((r) => r.urn.split("::").pop())).toEqual([name]);
      }
      expect(exportState?.outputs?.url).toMatchObject(ENCRYPTED);
      const hidden = JSON.parse(await project.ok(["stack", "output", "--json"])) as Record<string, unknown>;
      expect(hidden.historyUrl).toBe("[secret]");

      emulator.resetRequests();
      // --skip-preview: the CLI's own preview would run the data sources a second time.
      const same = await project.ok(["up", "--yes", "--skip-preview", "--expect-no-changes"]);
      expect(routesCalled(emulator).filter((r) => !r.startsWith("GET "))).toEqual([]);
      expect(summaryOf(same)).toEqual({ unchanged: 4 });

      // Another datacenter than the first listed (eu-central-fra): both servers are replaced, each new one made before its old one goes.
      const oldIds = [String(outputs.lobbyServerId), String(outputs.matchServerId)];
      await project.setConfig({ "gamehost-quickstart:datacenter": { value: "us-east-atl" } });
      const steps = await project.stepsOf(["up", "--yes", "--skip-preview"], types);
      for (const name of ["lobby", "match"]) {
        const ops = steps.filter(([, n]) => n === name).map(([op]) => op);
        expect(ops, name).toEqual(["create-replacement", "replace", "delete-replaced"]);
      }
      const replaced = await project.stateIds(types);
      expect(liveIds(emulator)).toEqual([replaced.lobby, replaced.match].sort());
      expect(liveIds(emulator)).not.toContain(oldIds[0]);
      expect(liveIds(emulator)).not.toContain(oldIds[1]);

      const client = userClient(emulator);
      await client.deleteServer(ids.gameId, ids.environmentId, replaced.lobby ?? "");
      await project.ok(["refresh", "--yes", "--skip-preview"]);
      const afterRefresh = await project.stateIds(types);
      expect(afterRefresh.lobby).toBeUndefined();
      expect(afterRefresh.match).toBe(replaced.match);

      const healedUp = await project.ok(["up", "--yes", "--skip-preview"]);
      expect(summaryOf(healedUp)).toEqual({ created: 1, unchanged: 3 });
      const healed = await project.stateIds(types);
      expect(healed.lobby).not.toBe(replaced.lobby);
      expect(liveIds(emulator)).toEqual([healed.lobby, healed.match].sort());

      const destroy = await project.ok(["destroy", "--yes", "--skip-preview"]);
      expect(summaryOf(destroy)).toEqual({ deleted: 4 });
      expect(liveIds(emulator)).toEqual([]);
      expect(await project.stateIds(types)).toEqual({});
      await expectTokenNowhere(project, emulator.tokens.user);
    });
  },
);
