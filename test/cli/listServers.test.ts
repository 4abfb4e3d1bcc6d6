/**
 * The provider's `List` through the real CLI: `pulumi do gamehost:index:Server list` (the command the
 * pinned CLI builds from the schema's `listInputs`) lists the servers a stack made and a stray made by a
 * script, narrows them by tags (a PCL input file, which needs no converter plugin) and adds destroyed ones
 * only with `--include-destroyed`; the commands and the filter file are docs/reconcile.md's, as written.
 * Each answer is an import id that `pulumi import` takes as listed. With the connection only in the stack's
 * config (which `pulumi do` does not read), the error names what it reads, not `pulumi config set`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureIds, SERVERS_PROGRAM, SERVERS_PROJECT, serverArgs, TYPES } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { docBlock, shellCommands } from "../support/docBlocks";
import { userClient, wireServerBody } from "../support/emulator";
import { CliProject, programProject, realCli, realCliTitle } from "../support/realPulumi";
import { until } from "../support/until";
import { connection, expectTokenNowhere, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const SERVER = TYPES.plugin.server;
const PLUGIN_DIR = path.join(REPO_ROOT, "plugin");
const DOC = "docs/reconcile.md";
const SECTION = "Listing servers: `pulumi do`";

describe.skipIf(!realCli)(realCliTitle("pulumi do gamehost:index:Server list"), () => {
  const cli = useCliEnvironment("list-servers");

  it("lists a stack's servers and a stray, by tags, and destroyed ones only when asked", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const ids = fixtureIds(emulator);
    const project = programProject(cli.root, "list-servers", SERVERS_PROGRAM, {
      name: SERVERS_PROJECT,
      plugin: true,
    });
    await project.configure({
      ...connection(emulator),
      [`${SERVERS_PROJECT}:face`]: { value: "plugin" },
      [`${SERVERS_PROJECT}:servers`]: {
        value: JSON.stringify({
          web: serverArgs(emulator, { tags: { role: "web" } }),
          db: serverArgs(emulator, { tags: { role: "db" } }),
        }),
      },
      [`${SERVERS_PROJECT}:options`]: { value: "{}" },
    });
    await project.ok(["up", "--yes", "--skip-preview"]);
    const stack = await project.stateIds([SERVER]);
    expect(Object.keys(stack).sort()).toEqual(["db", "web"]);

    // A stray a script made, and a server made and destroyed out of band.
    const client = userClient(emulator);
    const spec = (tags: Record<string, string>) => wireServerBody(ids.datacenterId, ids.buildId, tags);
    const stray = await client.createServer(
      ids.gameId,
      ids.environmentId,
      spec({ role: "web", by: "script" }),
    );
    const gone = await client.createServer(ids.gameId, ids.environmentId, spec({ role: "web" }));
    await client.deleteServer(ids.gameId, ids.environmentId, gone.id);
    await until(
      () => emulator.servers().find((s) => s.id === gone.id)?.destroyed_at !== undefined,
      "the deleted server to be destroyed",
    );

    // As docs/reconcile.md says: the plugin found through the project's `packages:` entry (what `pulumi package
    // add <plugin folder>` writes), the connection from the environment (the token never on a command line).
    // (A project of its own: the CLI looks for `packages:` from the program's folder, which for the stack's
    // project is the shared fixture program's, elsewhere.)
    const lister = new CliProject(path.join(cli.root, "lister"), cli.root);
    fs.mkdirSync(lister.dir, { recursive: true });
    fs.writeFileSync(
      path.join(lister.dir, "Pulumi.yaml"),
      `name: lister\nruntime: nodejs\npackages:\n  gamehost: ${PLUGIN_DIR}\n`,
    );
    const env = { GAMEHOST_BASE_URL: emulator.url, GAMEHOST_TOKEN: emulator.tokens.user };
    const serverIds = (out: string): string[] =>
      (JSON.parse(out) as Array<{ id: string; name: string }>).map((entry) => {
        const [gameId, environmentId, serverId] = entry.id.split("/");
        expect({ gameId, environmentId }).toEqual({ gameId: ids.gameId, environmentId: ids.environmentId });
        return serverId ?? "";
      });
    const run = async (command: string) => {
      const args = command.split(" ");
      expect(args.slice(0, 4)).toEqual(["pulumi", "do", SERVER, "list"]);
      return serverIds(await lister.ok(args.slice(1), env));
    };
    const sorted = (values: string[]) => [...values].sort();

    // The page's commands and filter file, as written.
    const [every, web, destroyedToo, ...more] = shellCommands(docBlock(DOC, SECTION, "sh"), [
      ["<gameId>", ids.gameId],
      ["<environmentId>", ids.environmentId],
    ]);
    expect(more).toEqual([]);
    const filter = docBlock(DOC, SECTION, "hcl");
    expect(filter.file).toBe("web.pcl");
    fs.writeFileSync(path.join(lister.dir, "web.pcl"), filter.text);
    // The reference page shows the page's first command.
    expect(shellCommands(docBlock("docs/reference/server.md", "List", "sh"))).toEqual(
      shellCommands(docBlock(DOC, SECTION, "sh")).slice(0, 1),
    );

    // Every live server of the environment, newest first; the destroyed one is left out.
    const all = await run(every ?? "");
    expect(sorted(all)).toEqual(sorted([stack.web ?? "", stack.db ?? "", stray.id]));
    expect(all[0]).toBe(stray.id);
    // The tags filter: servers carrying every tag given.
    expect(sorted(await run(web ?? ""))).toEqual(sorted([stack.web ?? "", stray.id]));
    // Destroyed servers only on request.
    expect(sorted(await run(destroyedToo ?? ""))).toEqual(
      sorted([stack.web ?? "", stack.db ?? "", stray.id, gone.id]),
    );

    // Two tags must both match; --count is the CLI's limit, the newest first.
    const scope = ["do", SERVER, "list", "--game-id", ids.gameId, "--environment-id", ids.environmentId];
    fs.writeFileSync(path.join(lister.dir, "script.pcl"), 'tags = {\n  role = "web"\n  by = "script"\n}\n');
    expect(
      serverIds(await lister.ok([...scope, "--input", "pcl", "--input-file", "script.pcl"], env)),
    ).toEqual([stray.id]);
    expect(serverIds(await lister.ok([...scope, "--count", "1"], env))).toEqual([stray.id]);

    // Bad input is named by its field, before any request.
    const bad = await lister.run(
      ["do", SERVER, "list", "--game-id", "space-race", "--environment-id", ids.environmentId],
      env,
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/gameId: must be a UUID/);

    // A listed id imports as listed.
    const strayId = `${ids.gameId}/${ids.environmentId}/${stray.id}`;
    await project.ok(["import", SERVER, "stray", strayId, "--yes", "--generate-code=false"]);
    expect((await project.stateIds([SERVER])).stray).toBe(stray.id);
    await expectTokenNowhere(project, emulator.tokens.user);
    lister.expectNoLeak(emulator.tokens.user);
  });

  it("with the connection in the stack's config only, which `pulumi do` does not read: the error says what it reads", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const ids = fixtureIds(emulator);
    const lister = new CliProject(path.join(cli.root, "config-only"), cli.root);
    fs.mkdirSync(lister.dir, { recursive: true });
    fs.writeFileSync(
      path.join(lister.dir, "Pulumi.yaml"),
      `name: config-only\nruntime: nodejs\npackages:\n  gamehost: ${PLUGIN_DIR}\n`,
    );
    // What docs/languages.md has a user do before anything else.
    await lister.configure(connection(emulator));
    const [every] = shellCommands(docBlock(DOC, SECTION, "sh"), [
      ["<gameId>", ids.gameId],
      ["<environmentId>", ids.environmentId],
    ]);
    const result = await lister.run((every ?? "").split(" ").slice(1));
    expect(result.code).toBe(1);
    // Not "run `pulumi config set gamehost:baseUrl`", which the stack has already.
    expect(result.stderr).toContain(
      "Configuration gamehost:baseUrl is not set: `pulumi do` reads no stack config: set the GAMEHOST_BASE_URL environment variable or pass `--gamehost:base-url <value>`.",
    );
    lister.expectNoLeak(emulator.tokens.user);
  });
});
