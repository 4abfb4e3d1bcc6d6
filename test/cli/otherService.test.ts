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
import { realCli, realCliTitle } from "../support/realPulumi";
import { liveIds, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

const SERVER_TYPES = { dynamic: "pulumi-nodejs:dynamic/gamehost:Server", plugin: "gamehost:index:Server" };

/** The message as docs/troubleshooting.md quotes it, its placeholders filled in. */
function documented(id: string, gameId: string, url: string): string {
  const page = fs.readFileSync(path.join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");
  const row = page.split("\n").find((line) => line.includes("it is not counted as gone")) ?? "";
  const quoted = /^\| `([^`]+)`/.exec(row)?.[1] ?? "(no row)";
  return quoted.replace("<id>", id).replace("<gameId>", gameId).replace("<url>", url);
}

describe.skipIf(!realCli)(realCliTitle("a stack pointed at another service"), () => {
  const cli = useCliEnvironment("other-service");

  it.each(["dynamic", "plugin"] as const)(
    "%s face: refresh and destroy fail naming the service, and keep the servers in the state",
    {
      timeout: SCENARIO_TIMEOUT_MS,
    },
    async (face) => {
      const { emulator } = cli;
      // Another deployment: the same fixture but for the game's id (tokens alike, so the token is accepted).
      const gameId = serverArgs(emulator).gameId;
      const fixture = path.join(cli.root, `fixture-${face}.json`);
      const text = fs.readFileSync(path.join(REPO_ROOT, "fixtures", "default.json"), "utf8");
      fs.writeFileSync(fixture, text.replaceAll(gameId, "9a000000-0000-4000-8000-0000000000ff"));
      const other = await startTestEmulator({ fixture });
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
});
