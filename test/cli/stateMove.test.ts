/**
 * `pulumi state move` of a Server between two stacks of one project through the real `pulumi` CLI (docs/_index.md,
 * "Several stacks of one game"). On the plugin face it moves: each stack's program then previews no change,
 * and destroying each stack leaves no server. On the dynamic face, into a stack that already has dynamic
 * resources, the CLI refuses (the dynamic provider's inputs are the whole stack config, which differs), as the
 * page quotes, and nothing changes; the page's way (adopt it in the other stack with adoptServerId, then `pulumi
 * state delete` it here) moves it. After each step the live servers are exactly those the states record.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVERS_KEY, SERVERS_PROJECT, serverArgs, TYPES } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { realCli, realCliTitle } from "../support/realPulumi";
import {
  configure,
  connection,
  liveIds,
  SCENARIO_TIMEOUT_MS,
  serversProject,
  useCliEnvironment,
} from "./helpers";

const INDEX = fs.readFileSync(path.join(REPO_ROOT, "docs", "_index.md"), "utf8");
const REFUSED = "pulumi:providers:pulumi-nodejs::default already exists in destination stack";

it("docs/_index.md says how to move a server to another stack on each face", () => {
  expect(INDEX).toContain("- **Moving a server to another stack.**");
  expect(INDEX).toContain(`pulumi-nodejs::default already exists in destination stack`);
});

describe.skipIf(!realCli).each(["dynamic", "plugin"] as const)(
  realCliTitle("state move, %s face"),
  (face) => {
    const cli = useCliEnvironment(`state-move-${face}`);
    const types = [TYPES[face].server];

    it("a Server moved from one stack to another; each destroyed leaves nothing", {
      timeout: SCENARIO_TIMEOUT_MS,
    }, async () => {
      const { emulator } = cli;
      const args = (role: string) => serverArgs(emulator, { tags: { role } });
      const project = await serversProject(
        cli.root,
        `move-${face}`,
        emulator,
        { web: args("web"), keep: args("keep") },
        {
          face,
        },
      );
      const declare = async (stack: string, servers: Record<string, unknown>) => {
        await project.ok(["stack", "select", stack]);
        await project.setConfig({ [SERVERS_KEY]: { value: JSON.stringify(servers) } });
      };
      await project.ok(["up", "--yes"]);
      await configure(
        project,
        {
          ...connection(emulator),
          [`${SERVERS_PROJECT}:face`]: { value: face },
          [SERVERS_KEY]: { value: { other: args("other") } },
        },
        "other",
      );
      await project.ok(["up", "--yes"]);
      const ids = async (stack: string) => {
        await project.ok(["stack", "select", stack]);
        return project.stateIds(types);
      };
      const dev = await ids("dev");
      const other = await ids("other");
      expect(liveIds(emulator)).toEqual([dev.web, dev.keep, other.other].sort());

      const urn = `urn:pulumi:dev::${SERVERS_PROJECT}::${TYPES[face].server}::web`;
      const move = ["state", "move", "--source", "dev", "--dest", "other", urn, "--yes"];
      if (face === "plugin") await project.ok(move);
      else {
        expect(await project.fails(move)).toContain(REFUSED);
        expect(await ids("dev")).toEqual(dev);
        expect(await ids("other")).toEqual(other);
        // The page's way: adopt it in the other stack, then forget it here.
        await declare("other", { other: args("other"), web: { ...args("web"), adoptServerId: dev.web } });
        await project.ok(["up", "--yes"]);
        await project.ok(["state", "delete", urn, "--stack", "dev", "--yes"]);
      }
      await declare("dev", { keep: args("keep") });
      await declare("other", { other: args("other"), web: args("web") });
      expect(await ids("dev")).toEqual({ keep: dev.keep });
      expect(await ids("other")).toEqual({ other: other.other, web: dev.web });
      expect(liveIds(emulator)).toEqual([dev.web, dev.keep, other.other].sort());
      for (const stack of ["dev", "other"]) {
        await project.ok(["stack", "select", stack]);
        await project.ok(["preview", "--expect-no-changes"]);
      }

      await project.ok(["destroy", "--yes", "--stack", "other"]);
      expect(liveIds(emulator)).toEqual([dev.keep]);
      await project.ok(["destroy", "--yes", "--stack", "dev"]);
      expect(liveIds(emulator)).toEqual([]);
    });
  },
);
