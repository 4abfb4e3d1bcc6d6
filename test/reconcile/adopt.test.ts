/**
 * `gamehost adopt` and `gamehost sweep` through the real CLI against the emulator. Servers a script made
 * are written as a `pulumi import --file` file; `pulumi import --file` adopts them, and the YAML it
 * generates, put into the program, previews with no changes. Servers this package made for a stack that
 * was then removed are listed by `sweep` with their age and deleted only with `--delete --yes`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { configure, SCENARIO_TIMEOUT_MS, useCliEnvironment, yamlProject } from "../cli/helpers";
import {
  fixtureIds,
  liveTagged,
  SERVERS_KEY,
  SERVERS_PROGRAM,
  SERVERS_PROJECT,
  serverArgs,
} from "../engine/helpers";
import { userClient, wireServerBody } from "../support/emulator";
import { CliProject, programProject, realCli, realCliTitle } from "../support/realPulumi";
import { runGamehost } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("gamehost adopt and sweep"), () => {
  const setup = useCliEnvironment("adopt");

  it("adopt + pulumi import --file: the generated code previews with no changes", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const ids = fixtureIds(setup.emulator);
    const client = userClient(setup.emulator);
    const spec = (name?: string) =>
      wireServerBody(ids.datacenterId, ids.buildId, { script: "adopt", ...(name ? { name } : {}) });
    const made = [
      await client.createServer(ids.gameId, ids.environmentId, spec("lobby eu")),
      await client.createServer(ids.gameId, ids.environmentId, spec()),
    ];
    const cli = await yamlProject(setup, "gamehost-adopt");
    const file = path.join(setup.root, "adopt.json");
    const adopted = await runGamehost(cli, [
      "adopt",
      "--game",
      ids.gameId,
      "--environment",
      ids.environmentId,
      "--tag",
      "script=adopt",
      "--out",
      file,
    ]);
    expect(adopted.code, adopted.stderr).toBe(0);
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    const written = JSON.parse(fs.readFileSync(file, "utf8")) as { resources: Array<{ id: string }> };
    expect(written.resources.sort(byId)).toEqual(
      [
        {
          type: "gamehost:index:Server",
          name: "lobby-eu",
          id: `${ids.gameId}/${ids.environmentId}/${made[0]?.id}`,
        },
        {
          type: "gamehost:index:Server",
          name: `server-${made[1]?.id.slice(0, 8)}`,
          id: `${ids.gameId}/${ids.environmentId}/${made[1]?.id}`,
        },
      ].sort(byId),
    );
    const code = path.join(setup.root, "adopt.yaml");
    await cli.ok(["import", "--file", file, "--yes", "--out", code]);
    fs.appendFileSync(path.join(cli.dir, "Pulumi.yaml"), fs.readFileSync(code, "utf8"));
    await cli.ok(["preview", "--expect-no-changes"]);
    // Adopted: nothing is left to adopt.
    const again = await runGamehost(cli, [
      "adopt",
      "--game",
      ids.gameId,
      "--environment",
      ids.environmentId,
      "--tag",
      "script=adopt",
      "--json",
    ]);
    expect(JSON.parse(again.stdout)).toEqual({ resources: [] });
    // `pulumi import` protects what it adopts.
    await cli.ok(["state", "unprotect", "--all", "--yes"]);
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveTagged(setup.emulator, "script", "adopt")).toEqual([]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });

  it("sweep lists what a removed stack left behind, and deletes only with --delete --yes", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const run = "sweep";
    const ids = fixtureIds(setup.emulator);
    const cli = programProject(setup.root, run, SERVERS_PROGRAM, { name: SERVERS_PROJECT, plugin: true });
    const args = serverArgs(setup.emulator, { tags: { run } });
    await configure(
      cli,
      {
        "gamehost:baseUrl": { value: setup.emulator.url },
        "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
        [SERVERS_KEY]: { value: { kept: args } },
      },
      "prod",
    );
    await cli.ok(["up", "--yes", "--skip-preview"]);
    await configure(
      cli,
      {
        "gamehost:baseUrl": { value: setup.emulator.url },
        "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
        [SERVERS_KEY]: { value: { left1: args, left2: args } },
      },
      "preview",
    );
    await cli.ok(["up", "--yes", "--skip-preview"]);
    const left = await cli.stateIds(["pulumi-nodejs:dynamic/gamehost:Server"]);
    const live = () => liveTagged(setup.emulator, "run", run);
    const scope = ["--game", ids.gameId, "--environment", ids.environmentId, "--tag", `run=${run}`];
    // While the preview stack exists its servers are its own, though no command names it: not strays of prod's
    // drift, not offered by its adopt, not swept.
    const drift = await runGamehost(cli, ["drift", "--stack", "prod", "--json"]);
    expect(drift.code, drift.stdout).toBe(0);
    const offered = await runGamehost(cli, ["adopt", ...scope, "--stack", "prod", "--json"]);
    expect(JSON.parse(offered.stdout)).toEqual({ resources: [] });
    const siblings = await runGamehost(cli, [
      "sweep",
      ...scope,
      "--stack",
      "prod",
      "--delete",
      "--yes",
      "--json",
    ]);
    expect(siblings.code, siblings.stderr).toBe(0);
    expect(JSON.parse(siblings.stdout)).toMatchObject({ strays: [], deleted: [] });
    expect(live()).toHaveLength(3);
    // The preview stack is removed with its servers still running.
    await cli.ok(["stack", "rm", "preview", "--force", "--yes"]);
    await cli.ok(["stack", "select", "prod"]);
    expect(live()).toHaveLength(3);

    const listed = await runGamehost(cli, ["sweep", ...scope, "--stack", "prod", "--json"]);
    expect(listed.code, listed.stderr).toBe(3);
    const found = JSON.parse(listed.stdout) as {
      strays: Array<{ serverId: string; ageSeconds: number }>;
      deleted: string[];
    };
    expect(found.strays.map((s) => s.serverId).sort()).toEqual([left.left1, left.left2].sort());
    expect(found.strays.every((s) => s.ageSeconds >= 0)).toBe(true);
    expect(found.deleted).toEqual([]);
    const onlyDelete = await runGamehost(cli, ["sweep", ...scope, "--delete"]);
    expect(onlyDelete.code).toBe(3);
    expect(onlyDelete.stdout).toContain("add --yes to delete them");
    expect(live()).toHaveLength(3);

    const swept = await runGamehost(cli, ["sweep", ...scope, "--delete", "--yes"]);
    expect(swept.code, swept.stderr).toBe(0);
    expect(live().map((s) => s.id)).toEqual(
      Object.values(await cli.stateIds(["pulumi-nodejs:dynamic/gamehost:Server"])),
    );
    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    expect(live()).toEqual([]);
  });

  it("sweep, drift and adopt list the servers of another project's stack unless it is named as org/project/stack", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const run = "sweep-projects";
    const ids = fixtureIds(setup.emulator);
    const args = serverArgs(setup.emulator, { tags: { run } });
    const connection = {
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
    };
    const mine = programProject(setup.root, run, SERVERS_PROGRAM, { name: SERVERS_PROJECT, plugin: true });
    await configure(mine, { ...connection, [SERVERS_KEY]: { value: { mine: args } } }, "prod");
    await mine.ok(["up", "--yes", "--skip-preview"]);
    // Another project of the same backend (another team's infra) with a server in the same environment.
    const other = `${SERVERS_PROJECT}-other`;
    const otherDir = programProject(setup.root, `${run}-other`, SERVERS_PROGRAM, {
      name: other,
      plugin: true,
    }).dir;
    const theirs = new CliProject(otherDir, setup.root, { PULUMI_BACKEND_URL: `file://${mine.backend}` });
    await configure(theirs, { ...connection, [`${other}:servers`]: { value: { theirs: args } } }, "prod");
    await theirs.ok(["up", "--yes", "--skip-preview"]);
    const theirId = (await theirs.stateIds(["pulumi-nodejs:dynamic/gamehost:Server"])).theirs;
    const scope = ["--game", ids.gameId, "--environment", ids.environmentId, "--tag", `run=${run}`];

    const strays = async (stacks: string[]) => {
      const swept = await runGamehost(mine, [
        "sweep",
        ...scope,
        ...stacks.flatMap((s) => ["--stack", s]),
        "--json",
      ]);
      return {
        code: swept.code,
        stderr: swept.stderr,
        strays: swept.stdout
          ? (JSON.parse(swept.stdout) as { strays: Array<{ serverId: string }> }).strays.map(
              (s) => s.serverId,
            )
          : [],
      };
    };
    // Not named, its server is one no given stack tracks: listed, as the help says.
    expect(await strays(["prod"])).toEqual({ code: 3, stderr: "", strays: [theirId] });
    // Its summary counts one server as one.
    const summary = await runGamehost(mine, ["sweep", ...scope, "--stack", "prod"]);
    expect(summary.stdout).toMatch(/^1 server no stack of \S+ tracks \(--delete --yes deletes them\)$/m);
    // Named in full from this project's folder, it is compared with too.
    expect(await strays(["prod", `organization/${other}/prod`])).toEqual({ code: 0, stderr: "", strays: [] });
    // drift lists it as a stray of this stack too, unless that stack is named with --other-stack.
    const drift = async (extra: string[]) => {
      const report = await runGamehost(mine, ["drift", "--stack", "prod", ...extra, "--json"]);
      const { strays } = JSON.parse(report.stdout) as { strays: Array<{ serverId: string }> };
      return { code: report.code, strays: strays.map((s) => s.serverId) };
    };
    expect(await drift([])).toEqual({ code: 3, strays: [theirId] });
    expect(await drift(["--other-stack", `organization/${other}/prod`])).toEqual({ code: 0, strays: [] });
    // adopt offers it for import unless that stack is named with --other-stack: imported, it would have two owners.
    const offered = async (extra: string[]) => {
      const adopted = await runGamehost(mine, ["adopt", ...scope, "--stack", "prod", ...extra, "--json"]);
      const file = JSON.parse(adopted.stdout) as { resources: Array<{ id: string }> };
      return { code: adopted.code, ids: file.resources.map((r) => r.id.split("/").pop()) };
    };
    expect(await offered([])).toEqual({ code: 0, ids: [theirId] });
    expect(await offered(["--other-stack", `organization/${other}/prod`])).toEqual({ code: 0, ids: [] });
    // So does a pass of reconcile (its drift gate).
    const pass = await runGamehost(mine, [
      "reconcile",
      "--once",
      "--stack",
      "prod",
      "--other-stack",
      `organization/${other}/prod`,
    ]);
    expect([pass.code, pass.stderr]).toEqual([0, ""]);
    // A short name of another project's stack fails naming the full form.
    const short = await runGamehost(mine, ["sweep", ...scope, "--stack", "prod", "--stack", `${other}/prod`]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("name a stack of another project in full, as org/project/stack");

    await theirs.ok(["destroy", "--yes", "--skip-preview"]);
    await mine.ok(["destroy", "--yes", "--skip-preview"]);
    expect(liveTagged(setup.emulator, "run", run)).toEqual([]);
  });
});
