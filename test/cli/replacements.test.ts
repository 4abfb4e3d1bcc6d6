/**
 * Replacements without a spec change through the real `pulumi` CLI (docs/reliability.md, "One key per
 * server"): `pulumi up --replace <urn>`, `replaceOnChanges` on a provider-only setting and
 * `replacementTrigger` each end with exactly one live server, the new one, tracked by the stack, on both
 * faces, except `replaceOnChanges` on the dynamic face: an update that keeps the server and calls no API
 * (the dynamic provider host reports no changed keys; docs/_index.md). Then what `pulumi preview --diff` shows
 * for a tag change (a replacement) on each face, against what docs/_index.md says of the idempotency key.
 * A replacement with `deleteBeforeReplace` to a build the environment lacks fails before anything is deleted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  fixtureIds,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  type ServerArgsJson,
  serverArgs,
  TYPES,
} from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { type CliProject, programProject, realCli, realCliTitle } from "../support/realPulumi";
import { connection, expectTokenNowhere, liveIds, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const INDEX = fs.readFileSync(path.join(REPO_ROOT, "docs", "_index.md"), "utf8");

it("docs/_index.md says where the key shows", () => {
  expect(INDEX).toContain("With the plugin (`pulumi-gamehost/native`) the key never\n  shows as a diff");
  // `pulumi up --replace` replaces with no change: the engine diffs the inputs itself, the new key among them.
  expect(INDEX).toContain("but in the preview of `pulumi up --replace <urn>`, which lists it on both faces");
  expect(INDEX).toContain("on the dynamic face a replacement's preview lists `idempotencyKey`");
});

describe.skipIf(!realCli).each(["dynamic", "plugin"] as const)(
  realCliTitle("replacements, %s face"),
  (face) => {
    const cli = useCliEnvironment(`replacements-${face}`);
    const types = [TYPES[face].server];

    /** `pulumi config set` of the one server `web` and its resource options. */
    const declare = (project: CliProject, web: ServerArgsJson, options: ServerArgsJson) =>
      project.setConfig({
        [`${SERVERS_PROJECT}:servers`]: { value: JSON.stringify({ web }) },
        [`${SERVERS_PROJECT}:options`]: { value: JSON.stringify({ web: options }) },
      });

    /** The steps of one `up` for `web`, and the server the stack tracks afterwards. */
    async function up(project: CliProject, extra: string[] = []) {
      const steps = await project.stepsOf(["up", "--yes", "--skip-preview", ...extra], types);
      const id = (await project.stateIds(types)).web;
      return { ops: steps.filter(([, name]) => name === "web").map(([op]) => op), id };
    }

    it("--replace, replaceOnChanges and replacementTrigger each leave one live server, the tracked one; a tag change's preview --diff", {
      timeout: SCENARIO_TIMEOUT_MS,
    }, async () => {
      const { emulator } = cli;
      const project = programProject(cli.root, `servers-${face}`, SERVERS_PROGRAM, {
        name: SERVERS_PROJECT,
        plugin: face === "plugin",
      });
      const options = { replaceOnChanges: ["readyTimeoutSeconds"], replacementTrigger: "v1" };
      await project.configure({ ...connection(emulator), [`${SERVERS_PROJECT}:face`]: { value: face } });
      await declare(project, serverArgs(emulator), options);
      const first = await up(project);
      expect(first.ops).toEqual(["create"]);
      expect(liveIds(emulator)).toEqual([first.id]);

      // `pulumi up --replace <urn>`: the new server is made (and ready) before the old one goes. Its preview
      // lists the new key on both faces (docs/_index.md): no change is diffed, so the engine compares the inputs.
      const urn = `urn:pulumi:dev::${SERVERS_PROJECT}::${TYPES[face].server}::web`;
      const replacePreview = await project.ok(["preview", "--diff", "--replace", urn]);
      expect(replacePreview).toMatch(/~ idempotencyKey\s*: "[0-9a-f-]{36}" => "[0-9a-f-]{36}"/);
      const forced = await up(project, ["--replace", urn]);
      expect(forced.ops).toEqual(["create-replacement", "replace", "delete-replaced"]);
      expect(forced.id).not.toBe(first.id);
      expect(liveIds(emulator)).toEqual([forced.id]);
      const oldServer = emulator.servers().find((s) => s.id === first.id);
      const newServer = emulator.servers().find((s) => s.id === forced.id);
      expect(newServer?.started_at ?? Infinity).toBeLessThanOrEqual(oldServer?.destroyed_at ?? -Infinity);

      // replaceOnChanges on a provider-only setting. The dynamic face cannot honour it, and its program says so.
      await declare(project, serverArgs(emulator, { readyTimeoutSeconds: 11 }), options);
      if (face === "dynamic")
        expect(await project.ok(["preview"])).toContain(
          'Server "web": replaceOnChanges has no effect on a dynamic resource for readyTimeoutSeconds',
        );
      emulator.resetRequests();
      const knob = await up(project);
      if (face === "dynamic") {
        expect(knob.ops).toEqual(["update"]);
        expect(knob.id).toBe(forced.id);
        expect(emulator.requests.filter((r) => !r.route.startsWith("GET "))).toEqual([]);
      } else {
        expect(knob.ops).toEqual(["create-replacement", "replace", "delete-replaced"]);
        expect(knob.id).not.toBe(forced.id);
      }
      expect(liveIds(emulator)).toEqual([knob.id]);

      // replacementTrigger (an SDK resource option): a new value replaces.
      await declare(project, serverArgs(emulator, { readyTimeoutSeconds: 11 }), {
        ...options,
        replacementTrigger: "v2",
      });
      const triggered = await up(project);
      expect(triggered.ops).toEqual(["create-replacement", "replace", "delete-replaced"]);
      expect(triggered.id).not.toBe(knob.id);
      expect(liveIds(emulator)).toEqual([triggered.id]);
      const ids = fixtureIds(emulator);
      expect(emulator.servers().filter((s) => s.environment === ids.environmentId)).toHaveLength(
        face === "dynamic" ? 3 : 4,
      );

      // Adopted with adoptServerId, kept in the program (docs/adopting-servers.md), then `--replace`: the
      // engine checks the replacement without olds and calls no diff, so its create adopts the same server,
      // and the engine's delete of the original used to delete that server, which the state then tracked.
      await declare(
        project,
        serverArgs(emulator, { readyTimeoutSeconds: 11, adoptServerId: String(triggered.id) }),
        {
          ...options,
          replacementTrigger: "v2",
        },
      );
      const readopted = await up(project, ["--replace", urn]);
      expect(readopted.ops).toEqual(["create-replacement", "replace", "delete-replaced"]);
      expect(readopted.id).toBe(triggered.id);
      expect(liveIds(emulator)).toEqual([triggered.id]);

      // `deleteBeforeReplace` and a build the environment does not have: the engine deletes before it creates,
      // so the old server went and the create was refused (no server left). Diff asks first: preview and up
      // fail naming `runtime.build`, and the server is kept, tracked.
      const noSuchBuild = "0b0b0b0b-0000-4000-8000-00000000dead";
      await declare(
        project,
        serverArgs(emulator, { readyTimeoutSeconds: 11, runtime: { build: noSuchBuild } }),
        { ...options, replacementTrigger: "v2", deleteBeforeReplace: true },
      );
      const refused = `runtime.build: ${noSuchBuild} is not a build of environment ${fixtureIds(emulator).environmentId}`;
      expect(await project.fails(["preview"])).toContain(refused);
      const failedUp = await project.fails(["up", "--yes", "--skip-preview"]);
      expect(failedUp).toContain(refused);
      expect(failedUp).toContain("the server it would replace keeps running");
      expect(liveIds(emulator)).toEqual([triggered.id]);
      expect((await project.stateIds(types)).web).toBe(triggered.id);

      // A tag change's `pulumi preview --diff`, against what docs/_index.md says of the idempotency key: the
      // plugin's detailed diff names the changed spec fields only; the dynamic provider host gives the engine no
      // detailed diff, so the engine compares every input and the replacement's new key shows. (On this stack
      // rather than one of its own, which made, deployed and destroyed the same program a second time.)
      await declare(project, serverArgs(emulator, { readyTimeoutSeconds: 11, tags: { role: "web-2" } }), {
        ...options,
        replacementTrigger: "v2",
      });
      const preview = await project.ok(["preview", "--diff"]);
      expect(preview).toMatch(/\+-(pulumi-nodejs:dynamic\/gamehost|gamehost:index):Server: \(replace\)/);
      expect(preview).toContain('~ role: "web" => "web-2"');
      // The property's own line (the program's `idempotencyKeys` stack output is another matter).
      const keyLine = /~ idempotencyKey\s*: "[0-9a-f-]{36}" => "[0-9a-f-]{36}"/;
      if (face === "plugin") expect(preview).not.toMatch(keyLine);
      else expect(preview).toMatch(keyLine);
      expect(preview).not.toContain("pulumi-gamehost/idempotency-key");

      await project.ok(["destroy", "--yes", "--skip-preview"]);
      expect(liveIds(emulator)).toEqual([]);
      await expectTokenNowhere(project, emulator.tokens.user);
    });
  },
);
