/**
 * A stack pointed at another service than the one that made its servers: `gamehost:baseUrl` (with a token
 * valid there) set on the wrong stack, as a person with dev on one deployment and staging on another does.
 * That service does not have the servers' game, and answers `GAME_NOT_FOUND`. Counted as "the server is
 * gone", `pulumi refresh --run-program` dropped every server from the state and `pulumi destroy
 * --run-program` reported them deleted, while they ran on at the service that made them, in no state.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { serverArgs, startTestEmulator } from "../support/emulator";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  configure,
  connection,
  FLEET_PROGRAM,
  FLEET_PROJECT,
  liveIds,
  SCENARIO_TIMEOUT_MS,
  serversProject,
  useCliEnvironment,
} from "./helpers";

const SERVER_TYPES = { dynamic: "pulumi-nodejs:dynamic/gamehost:Server", plugin: "gamehost:index:Server" };

/** The message as docs/troubleshooting.md quotes it, its placeholders filled in. */
function documented(id: string, gameId: string, url: string): string {
  const page = fs.readFileSync(path.join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");
  const row = page.split("\n").find((line) => line.includes("not counted as gone")) ?? "";
  const quoted = /^\| `([^`]+)`/.exec(row)?.[1] ?? "(no row)";
  return quoted.replace("<id>", id).replace("<gameId>", gameId).replace("<url>", url);
}

/** Another deployment: the fixture with the game's id changed (its tokens alike, so the token is accepted). */
async function otherService(root: string, gameId: string, label: string) {
  const fixture = path.join(root, `fixture-${label}.json`);
  const text = fs.readFileSync(path.join(REPO_ROOT, "fixtures", "default.json"), "utf8");
  fs.writeFileSync(fixture, text.replaceAll(gameId, "9a000000-0000-4000-8000-0000000000ff"));
  return startTestEmulator({ fixture });
}

describe.skipIf(!realCli)(realCliTitle("a stack pointed at another service"), () => {
  const cli = useCliEnvironment("other-service");

  it.each(["dynamic", "plugin"] as const)(
    "%s face: refresh and destroy fail naming the service, and keep the servers in the state",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const { emulator } = cli;
      const gameId = serverArgs(emulator).gameId;
      const other = await otherService(cli.root, gameId, face);
      try {
        const role = `other-service-${face}`;
        const servers = { a: serverArgs(emulator, { tags: { role } }) };
        const project = await serversProject(cli.root, role, emulator, servers, { face });
        await project.ok(["up", "--yes", "--skip-preview"]);
        const [id] = liveIds(emulator, role);
        expect(id).toBeDefined();

        await project.setConfig({ "gamehost:baseUrl": { value: other.url } });
        for (const command of ["refresh", "destroy"]) {
          const failed = await project.fails([command, "--yes", "--skip-preview", "--run-program"]);
          expect(failed).toContain(documented(String(id), gameId, other.url));
          expect(failed).toContain("GAME_NOT_FOUND");
          // Still running where it was made, and still the stack's.
          expect(liveIds(emulator, role)).toEqual([id]);
          expect(Object.values(await project.stateIds([SERVER_TYPES[face]]))).toEqual([id]);
        }

        await project.setConfig({ "gamehost:baseUrl": { value: emulator.url } });
        await project.ok(["destroy", "--yes", "--skip-preview", "--run-program"]);
        expect(liveIds(emulator, role)).toEqual([]);
      } finally {
        await other.stop();
      }
    },
  );

  it("a Fleet: refresh and destroy fail the same way, and keep its servers", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const { gameId, environmentId, datacenter, runtime, network, resources } = serverArgs(emulator);
    const other = await otherService(cli.root, gameId, "fleet");
    try {
      const role = "other-service-fleet";
      const project = programProject(cli.root, role, FLEET_PROGRAM, { name: FLEET_PROJECT, plugin: true });
      const fleet = {
        gameId,
        environmentId,
        template: { tags: { role }, runtime, network, resources },
        datacenters: { [datacenter]: 1 },
      };
      await configure(project, { ...connection(emulator), [`${FLEET_PROJECT}:fleet`]: { value: fleet } });
      await project.ok(["up", "--yes", "--skip-preview"]);
      const live = liveIds(emulator, role);
      expect(live).toHaveLength(1);

      await project.setConfig({ "gamehost:baseUrl": { value: other.url } });
      for (const command of ["refresh", "destroy"]) {
        const failed = await project.fails([command, "--yes", "--skip-preview", "--run-program"]);
        expect(failed).toContain(`The servers of Fleet ${gameId}/${environmentId}/`);
        expect(failed).toContain(
          `made in game ${gameId}, which the service at ${other.url} does not have: not counted as gone`,
        );
        expect(liveIds(emulator, role)).toEqual(live);
      }

      await project.setConfig({ "gamehost:baseUrl": { value: emulator.url } });
      await project.ok(["destroy", "--yes", "--skip-preview", "--run-program"]);
      expect(liveIds(emulator, role)).toEqual([]);
    } finally {
      await other.stop();
    }
  });
});
