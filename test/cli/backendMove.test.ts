/**
 * Moving a stack to another backend through the real `pulumi` CLI, as docs/reconcile.md ("After Pulumi's state
 * commands") says: `pulumi stack export`, `pulumi stack init` and `pulumi stack import` in the new backend, a
 * preview that shows no change, then the old copy removed with `pulumi stack rm --force --preserve-config`
 * (never destroyed: it tracks the same servers). After each step the live servers are exactly those the new
 * backend's state records; its destroy leaves none.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { serverArgs, TYPES } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { realCli, realCliTitle } from "../support/realPulumi";
import { liveIds, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

const PAGE = fs.readFileSync(path.join(REPO_ROOT, "docs", "reconcile.md"), "utf8");

it("docs/reconcile.md says how to finish moving a stack to another backend, and how to take servers back after stack rm --force", () => {
  const row = PAGE.split("\n").find((line) => line.startsWith("| `pulumi stack import` of")) ?? "";
  expect(row).toContain("`pulumi stack rm --force --preserve-config <name>`");
  expect(row).toContain("never `pulumi destroy` it");
  const rm = PAGE.split("\n").find((line) => line.startsWith("| `pulumi stack rm --force` |")) ?? "";
  expect(rm).toContain("adoptServerId");
  expect(rm).toContain("`gamehost adopt`");
});

describe.skipIf(!realCli).each(["dynamic", "plugin"] as const)(
  realCliTitle("stack moved to another backend, %s face"),
  (face) => {
    const cli = useCliEnvironment(`backend-move-${face}`);
    const types = [TYPES[face].server];

    it("export, import into the new backend, rm --force the old copy: no server lost or left", {
      timeout: SCENARIO_TIMEOUT_MS,
    }, async () => {
      const { emulator } = cli;
      const project = await serversProject(
        cli.root,
        `backend-move-${face}`,
        emulator,
        {
          web: serverArgs(emulator, { tags: { role: "web" } }),
        },
        { face },
      );
      await project.ok(["up", "--yes"]);
      const ids = await project.stateIds(types);
      expect(liveIds(emulator)).toEqual([ids.web]);

      const exported = path.join(cli.root, `backend-move-${face}.json`);
      await project.ok(["stack", "export", "--file", exported]);
      const other = path.join(cli.root, `backend-move-${face}-new-backend`);
      fs.mkdirSync(other);
      const newBackend = { PULUMI_BACKEND_URL: `file://${other}` };
      await project.ok(["stack", "init", "dev"], newBackend);
      await project.ok(["stack", "import", "--file", exported], newBackend);
      await project.ok(["preview", "--expect-no-changes"], newBackend);
      await project.ok(["refresh", "--yes"], newBackend);

      // The old copy, removed without a destroy: the server runs on, tracked by the new backend alone.
      await project.ok(["stack", "rm", "--force", "--preserve-config", "--yes", "dev"]);
      expect(liveIds(emulator)).toEqual([ids.web]);
      expect(await project.fails(["stack", "select", "dev"])).toContain("dev");
      const moved = JSON.parse(await project.ok(["stack", "export"], newBackend)) as {
        deployment: { resources?: Array<{ type: string; id?: string }> };
      };
      expect(
        (moved.deployment.resources ?? []).filter((r) => types.includes(r.type)).map((r) => r.id),
      ).toEqual([ids.web]);
      await project.ok(["preview", "--expect-no-changes"], newBackend);

      await project.ok(["destroy", "--yes"], newBackend);
      expect(liveIds(emulator)).toEqual([]);
    });
  },
);
