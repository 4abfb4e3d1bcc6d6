/**
 * A secret in a server's and a fleet's environment (`config.requireSecret`), through the real CLI on both
 * faces: it reaches the service, stays encrypted in the state (inputs and outputs) across up, refresh and a
 * change of the secret alone, and never shows in the CLI's output, `--diff` included. What the preview names
 * as the cause of that change differs by face (docs/_index.md): the plugin names `runtime` and `template`;
 * the dynamic provider host gives the engine no detailed diff, and the engine's display compares secrets
 * masked, so the server's replacement names only its new `idempotencyKey` and the fleet's update nothing.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FACES } from "../engine/helpers";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { connection, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const PROGRAM = path.join(__dirname, "programs", "secret-environment");
const PROJECT = "gamehost-cli-secret-environment";

describe.skipIf(!realCli)(realCliTitle("a secret in a server's environment"), () => {
  const cli = useCliEnvironment("secret-environment");

  it.each(FACES)(
    "the %s face keeps it encrypted and out of every output",
    { timeout: SCENARIO_TIMEOUT_MS },
    async (face) => {
      const { emulator } = cli;
      const first = `first-db-password-${face}`;
      const second = `second-db-password-${face}`;
      const project = programProject(cli.root, `secret-env-${face}`, PROGRAM, {
        name: PROJECT,
        plugin: true,
      });
      await project.configure({
        ...connection(emulator),
        [`${PROJECT}:face`]: { value: face },
        [`${PROJECT}:dbPassword`]: { value: first, secret: true },
      });
      const live = () =>
        emulator
          .servers()
          .filter((s) => s.destroyed_at === undefined && s.tags.role?.startsWith("secret-env"))
          .map((s) => s.runtime.environment?.DB_PASSWORD);

      const outputs: string[] = [await project.ok(["up", "--yes", "--skip-preview"])];
      expect(live()).toEqual([first, first]);
      outputs.push(await project.ok(["refresh", "--yes", "--skip-preview"]));

      await project.setConfig({ [`${PROJECT}:dbPassword`]: { value: second, secret: true } });
      const preview = await project.ok(["preview"]);
      outputs.push(preview, await project.ok(["preview", "--diff"]));
      const server = face === "plugin" ? "gamehost:index:Server" : "pulumi-nodejs:dynamic/gamehost:Server";
      const fleet = face === "plugin" ? "gamehost:index:Fleet" : "pulumi-nodejs:dynamic/gamehost:Fleet";
      const line = (type: string, op: string) =>
        preview
          .split("\n")
          .find((l) => l.includes(`${type} `) && l.includes(` ${op}`))
          ?.trim();
      if (face === "plugin") {
        expect(line(server, "replace")).toMatch(/\[diff: ~runtime\]$/);
        expect(line(fleet, "update")).toMatch(/\[diff: ~template\]$/);
      } else {
        expect(line(server, "replace")).toMatch(/\[diff: ~idempotencyKey\]$/);
        expect(line(fleet, "update")).toMatch(/update$/);
      }

      outputs.push(await project.ok(["up", "--yes", "--skip-preview"]));
      expect(live()).toEqual([second, second]);
      outputs.push(await project.ok(["refresh", "--yes", "--skip-preview"]));
      const state = await project.ok(["stack", "export"]);
      for (const text of [...outputs, state]) {
        expect(text).not.toContain(first);
        expect(text).not.toContain(second);
      }
      // The control: decrypted, the state holds it (in the server's and the fleet's inputs and outputs).
      const shown = await project.ok(["stack", "export", "--show-secrets"]);
      expect(shown.split(second).length - 1).toBeGreaterThanOrEqual(4);

      await project.ok(["destroy", "--yes", "--skip-preview"]);
    },
  );
});
