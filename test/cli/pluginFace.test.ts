/**
 * Features of the plugin face through the real `pulumi` CLI: `Server.get` of a server made outside
 * Pulumi (its environment kept secret), `pulumi up --target`, `pulumi refresh --preview-only` (no state change) and `customTimeouts`
 * ending the readiness wait of a server that is never placed. (The secret output, the export's URL, is
 * checked on both faces in quickstart.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { fixtureIds, SERVERS_PROGRAM, SERVERS_PROJECT, serverArgs, TYPES } from "../engine/helpers";
import { userClient, wireServerBody } from "../support/emulator";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  connection,
  expectOnlyReads,
  expectTokenNowhere,
  liveIds,
  SCENARIO_TIMEOUT_MS,
  summaryOf,
  useCliEnvironment,
} from "./helpers";

const SERVER = TYPES.plugin.server;
const urnOf = (name: string) => `urn:pulumi:dev::${SERVERS_PROJECT}::${SERVER}::${name}`;

describe.skipIf(!realCli)(realCliTitle("the plugin face"), () => {
  const cli = useCliEnvironment("plugin-face");

  it("get, --target, refresh --preview-only, customTimeouts ending the readiness wait", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const ids = fixtureIds(emulator);
    const client = userClient(emulator);
    // Made by another team's stack, which keeps its environment's values secret.
    const byHand = wireServerBody(ids.datacenterId, ids.buildId, { role: "made-by-hand" });
    const password = "another-stacks-db-password";
    const made = await client.createServer(ids.gameId, ids.environmentId, {
      ...byHand,
      runtime: { ...byHand.runtime, environment: { DB_PASSWORD: password } },
    });
    const project = programProject(cli.root, "servers-plugin", SERVERS_PROGRAM, {
      name: SERVERS_PROJECT,
      plugin: true,
    });
    const servers = (declared: Record<string, unknown>, options: Record<string, unknown> = {}) => ({
      [`${SERVERS_PROJECT}:servers`]: { value: JSON.stringify(declared) },
      [`${SERVERS_PROJECT}:options`]: { value: JSON.stringify(options) },
    });
    const web = serverArgs(emulator, { tags: { role: "web" } });
    await project.configure({
      ...connection(emulator),
      [`${SERVERS_PROJECT}:face`]: { value: "plugin" },
      [`${SERVERS_PROJECT}:lookups`]: {
        value: JSON.stringify({ other: `${ids.gameId}/${ids.environmentId}/${made.id}` }),
      },
      ...servers({ web }),
    });

    // Server.get reads the server made by hand; the stack does not own it.
    const up = await project.stepsOf(["up", "--yes", "--skip-preview"], [SERVER]);
    expect(up.map(([op, name]) => `${name}: ${op}`).sort()).toEqual(["other: read", "web: create"]);
    const found = (await project.outputsJson()).found as Record<string, unknown[]>;
    expect(found.other?.[0]).toBe(made.id);
    expect(found.other?.[1]).toEqual({ role: "made-by-hand" });
    const webId = (await project.stateIds([SERVER])).web;
    // Read with no state of its own, its environment may hold that stack's secrets: it is kept secret.
    const other = (await project.exported()).find((r) => r.urn === urnOf("other"));
    const runtime = other?.outputs?.runtime as Record<string, unknown> | undefined;
    expect(runtime?.environment).toMatchObject({ ciphertext: expect.any(String) });
    expect(await project.ok(["stack", "export"])).not.toContain(password);

    // --target: only the named server is made; web's pending change (new tags) waits.
    await project.setConfig(
      servers({ web: serverArgs(emulator, { tags: { role: "web", tier: "gold" } }), extra: web }),
    );
    const targeted = await project.stepsOf(
      ["up", "--yes", "--skip-preview", "--target", urnOf("extra")],
      [SERVER],
    );
    // The engine reports the untargeted server as `same` although its tags changed.
    expect(targeted.map(([op, name]) => `${name}: ${op}`).sort()).toEqual([
      "extra: create",
      "other: read",
      "web: same",
    ]);
    const afterTarget = await project.stateIds([SERVER]);
    expect(afterTarget.web).toBe(webId);
    expect(emulator.servers().find((s) => s.id === webId)?.tags.tier).toBeUndefined();

    // refresh --preview-only shows the out-of-band delete and changes no state.
    await client.deleteServer(ids.gameId, ids.environmentId, afterTarget.extra ?? "");
    const before = await project.exported();
    emulator.resetRequests();
    // Without the suite's PULUMI_SKIP_CONFIRMATIONS, which the CLI takes for a --yes it refuses here.
    const refreshPreview = await project.ok(["refresh", "--preview-only"], {
      PULUMI_SKIP_CONFIRMATIONS: undefined,
    });
    expectOnlyReads(emulator);
    expect(summaryOf(refreshPreview)).toMatchObject({ delete: 1 });
    expect(await project.exported()).toEqual(before);

    // customTimeouts.create ends the wait of a server that is never placed; the server is recorded.
    await project.setConfig(
      servers(
        { slow: serverArgs(emulator, { tags: { role: "slow" }, readyTimeoutSeconds: 300 }) },
        { slow: { customTimeouts: { create: "2s" } } },
      ),
    );
    emulator.setPlacement("never");
    let failed: string;
    try {
      failed = await project.fails(["up", "--yes", "--skip-preview", "--target", urnOf("slow")]);
    } finally {
      emulator.setPlacement("auto");
    }
    const slow = emulator.servers().find((s) => s.tags.role === "slow");
    expect(failed).toContain("was not ready after 2s");
    expect(failed).toContain("customTimeouts");
    expect(failed).toContain(slow?.id);
    expect(failed).not.toMatch(/\n\s+at /);
    expect((await project.stateIds([SERVER])).slow).toBe(slow?.id);

    // The next up finishes it (and carries out what waited: web and extra leave the program).
    const healed = await project.stepsOf(["up", "--yes", "--skip-preview"], [SERVER]);
    expect(healed.filter(([, name]) => name === "slow").map(([op]) => op)).toEqual(["update"]);
    expect(liveIds(emulator)).toEqual([made.id, slow?.id].sort());

    await project.ok(["destroy", "--yes", "--skip-preview"]);
    // The server read with get is not the stack's: destroy leaves it.
    expect(liveIds(emulator)).toEqual([made.id]);
    await expectTokenNowhere(project, emulator.tokens.user);
  });
});
