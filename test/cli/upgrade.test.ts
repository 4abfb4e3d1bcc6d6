/**
 * A user's long-lived stack across an upgrade of the package, through the real CLI: the quickstart with a
 * Server on the plugin's face too, deployed with the package of {@link PREVIOUS_RELEASE} (whose Servers kept
 * a key derived from their spec), then this build installed over it and docs/installation-configuration.md's
 * "Upgrading" commands run as written, the stack exported and imported; then back to the earlier package,
 * and destroyed. Servers are counted at every step: none lost, none made, none left.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runGamehost } from "../reconcile/helpers";
import { docBlock, shellCommands } from "../support/docBlocks";
import { installTarball, installThisBuild, tarballOf } from "../support/earlierRelease";
import { liveServers } from "../support/emulator";
import { QUICKSTART_DIR } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { connection, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

/** `git log --until=2026-11-24 -1` of main: the last build whose Servers kept a spec-hash key. */
const PREVIOUS_RELEASE = "cae825fdbd100545043fc824b779063afa0466a5";

const UPGRADE = shellCommands(docBlock("docs/installation-configuration.md", "Upgrading", "bash"));

const INSTALLED_PLUGIN = `plugins:
  providers:
    - name: gamehost
      path: ./node_modules/pulumi-gamehost/plugin
`;

const NATIVE_SERVER = `
const nativeLobby = new gamehost.native.Server("nativeLobby", {
  ...common,
  tags: { role: "native-lobby" },
  network: { ports: { web: { protocol: "http", internalPort: 8080, routing: { gameGuard: {} } } } },
});
export const nativeLobbyId = nativeLobby.serverId;
`;

describe.skipIf(!realCli)(realCliTitle("a stack upgraded from an earlier build of the package"), () => {
  const setup = useCliEnvironment("upgrade");

  it("keeps its servers through the docs' upgrade, a drift check, refresh, a downgrade and destroy", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const previous = tarballOf(PREVIOUS_RELEASE);
    const dir = path.join(setup.root, "quickstart");
    fs.mkdirSync(dir);
    for (const file of ["index.ts", "package.json", "tsconfig.json"])
      fs.copyFileSync(path.join(QUICKSTART_DIR, file), path.join(dir, file));
    fs.appendFileSync(path.join(dir, "index.ts"), NATIVE_SERVER);
    const project = fs.readFileSync(path.join(QUICKSTART_DIR, "Pulumi.yaml"), "utf8");
    // The plugin of the installed package, as docs/languages.md's `Pulumi.yaml` entry names it: it is upgraded with it.
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${project}${INSTALLED_PLUGIN}`);
    installTarball(dir, previous);
    const cli = new CliProject(dir, setup.root);
    await cli.configure({
      ...connection(setup.emulator),
      "gamehost-quickstart:game": { value: "space-race" },
    });
    const live = () =>
      liveServers(setup.emulator)
        .map((s) => s.id)
        .sort();
    const changing = () => setup.emulator.requests.map((r) => r.route).filter((r) => !r.startsWith("GET "));

    await cli.ok(["up", "--yes", "--skip-preview"]);
    const made = live();
    expect(made).toHaveLength(3);
    const keys = (await cli.exported()).flatMap((r) => {
      const key = r.inputs?.idempotencyKey;
      return typeof key === "string" ? [key] : [];
    });
    expect(keys).toHaveLength(3);
    expect(
      keys.filter((k) => !/^[0-9a-f]{32}$/.test(k)),
      "keys not of the spec-hash form",
    ).toEqual([]);

    installThisBuild(dir);
    // Before any up: the earlier build's state reads as no drift and refreshes without a change.
    const drift = await runGamehost(cli, ["drift"]);
    expect(drift.code, `${drift.stdout}\n${drift.stderr}`).toBe(0);
    const refreshed = await cli.ok(["refresh", "--yes", "--skip-preview"]);
    expect(refreshed).not.toMatch(/updated/);

    expect(UPGRADE).toEqual(["pulumi preview", "pulumi up", "pulumi preview --expect-no-changes"]);
    for (const line of UPGRADE) {
      const args = line.split(" ").slice(1);
      setup.emulator.resetRequests();
      const out = await cli.ok(args[0] === "up" ? [...args, "--yes"] : args);
      if (args[0] === "preview" && args.length === 1) {
        expect(out).toMatch(/~ 3 to update/);
        expect(out).not.toMatch(/replace|create|delete/);
      }
      expect(changing()).toEqual([]);
      expect(live()).toEqual(made);
    }

    // The upgraded stack through `pulumi stack export` and `import` (the file holds no token: expectNoLeak).
    await cli.ok(["stack", "export", "--file", "upgraded.json"]);
    await cli.ok(["stack", "import", "--file", "upgraded.json"]);
    await cli.ok(["preview", "--expect-no-changes"]);

    // Back to the earlier build: nothing to change, and its refresh and destroy work on this state.
    installTarball(dir, previous);
    await cli.ok(["preview", "--expect-no-changes"]);
    await cli.ok(["refresh", "--yes", "--skip-preview"]);
    expect(live()).toEqual(made);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
