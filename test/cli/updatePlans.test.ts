/**
 * Update plans through the real `pulumi` CLI (docs/known-issues.md, "Update plans"): `pulumi preview
 * --save-plan` then `pulumi up --plan` of a Server's create, then of its replacement, on both faces. The plugin
 * derives the create's idempotency key from the engine's seed, which the plan fixes: both steps run as planned.
 * The SDK's dynamic provider host passes no seed, so the dynamic face's create draws another key and the engine
 * refuses it, as the page quotes, with nothing made; its replacement under a plan fails too when the new key
 * reaches a stack output (this program exports it), as the page says. After each step the live servers are
 * exactly the one the state records.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { serverArgs, TYPES } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { realCli, realCliTitle } from "../support/realPulumi";
import { liveIds, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

const KNOWN_ISSUES = fs.readFileSync(path.join(REPO_ROOT, "docs", "known-issues.md"), "utf8");
const REFUSED = "violates plan: properties changed: ++idempotencyKey[";

it("docs/known-issues.md quotes the refusal of a dynamic create under a plan, and what works", () => {
  expect(KNOWN_ISSUES).toContain("## Update plans: `pulumi up --plan` refuses a dynamic resource's create");
  expect(KNOWN_ISSUES).toContain(`:Server::match ${REFUSED}`);
  expect(KNOWN_ISSUES).toContain("**What works under a plan on the dynamic face:** updates");
  expect(KNOWN_ISSUES).toContain("exits 1 printing no error");
});

describe.skipIf(!realCli).each(["dynamic", "plugin"] as const)(
  realCliTitle("update plans, %s face"),
  (face) => {
    const cli = useCliEnvironment(`update-plans-${face}`);
    const types = [TYPES[face].server];

    it("a create and a replacement under `pulumi up --plan`", { timeout: SCENARIO_TIMEOUT_MS }, async () => {
      const { emulator } = cli;
      const project = await serversProject(
        cli.root,
        `plans-${face}`,
        emulator,
        { web: serverArgs(emulator) },
        {
          face,
        },
      );
      const plan = path.join(project.dir, "plan.json");

      await project.ok(["preview", "--save-plan", plan]);
      let id: string | undefined;
      if (face === "plugin") {
        await project.ok(["up", "--yes", "--plan", plan]);
        id = (await project.stateIds(types)).web;
        expect(id).toBeDefined();
      } else {
        expect(await project.fails(["up", "--yes", "--plan", plan])).toContain(REFUSED);
        expect(liveIds(emulator)).toEqual([]);
        expect(await project.stateIds(types)).toEqual({});
        await project.ok(["up", "--yes"]);
        id = (await project.stateIds(types)).web;
      }
      expect(liveIds(emulator)).toEqual([id]);

      // A replacement (a tag change) under a plan. The program exports each server's idempotencyKey: on the
      // dynamic face the replacement's key, drawn after the plan's check, differs from the plan's stack outputs,
      // and the CLI's preview of the `up` exits 1 printing no error, nothing changed; a plain `up` replaces.
      await project.setConfig({
        "gamehost-engine-servers:servers": {
          value: JSON.stringify({ web: serverArgs(emulator, { tags: { role: "web", v: "2" } }) }),
        },
      });
      await project.ok(["preview", "--save-plan", plan]);
      if (face === "plugin") await project.ok(["up", "--yes", "--plan", plan]);
      else {
        const refused = await project.run(["up", "--yes", "--plan", plan]);
        expect(refused.code).toBe(1);
        expect(liveIds(emulator)).toEqual([id]);
        expect((await project.stateIds(types)).web).toBe(id);
        await project.ok(["up", "--yes"]);
      }
      const replaced = (await project.stateIds(types)).web;
      expect(replaced).not.toBe(id);
      expect(liveIds(emulator)).toEqual([replaced]);
      await project.ok(["preview", "--expect-no-changes"]);

      await project.ok(["destroy", "--yes"]);
      expect(liveIds(emulator)).toEqual([]);
    });
  },
);
