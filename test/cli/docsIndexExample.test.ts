/**
 * docs/_index.md's Example program as written, deployed by the real `pulumi` CLI the two ways the docs give:
 * docs/installation-configuration.md's "Running against the local emulator" (the emulator's CLI in one terminal,
 * config and `pulumi up` in the project, with the user token the emulator printed) and docs/testing.md's
 * "Integration tests against the emulator" (a GitHub workflow whose last step starts the emulator in the
 * background and runs up and destroy in its own local backend, as a fresh CI job). One project for both; each block starts its own emulator by its
 * documented line, on a free port
 * (test/cli/docCommands.ts). The program uses the ids the emulator's fixture seeds, so `up` must leave a
 * running match server there whose public address is the stack's `endpoint`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api";
import { TEMPLATE_TSCONFIG, writeJson } from "../packaging/support";
import { docBlock } from "../support/docBlocks";
import { freePort } from "../support/freePort";
import { CliProject, realCli, realCliTitle, tempRoot } from "../support/realPulumi";
import { Background, installPackage, jobOf, onFreePort, runLine } from "./docCommands";
import { SCENARIO_TIMEOUT_MS, summaryOf } from "./helpers";

const EXAMPLE = docBlock("docs/_index.md", "Example", "typescript");
const SPACE_RACE = "9a000000-0000-4000-8000-000000000001";
const PROD = "e1000000-0000-4000-8000-000000000001";

describe.skipIf(!realCli)(realCliTitle("docs/_index.md's Example, deployed as the docs say"), () => {
  let root: string;
  let project: CliProject;
  const running: Background[] = [];
  beforeAll(async () => {
    root = tempRoot("docs-index");
    const dir = path.join(root, "example");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "index.ts"), EXAMPLE.text);
    writeJson(path.join(dir, "package.json"), { name: "gamehost-example", main: "index.ts" });
    writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: gamehost-example\nruntime: nodejs\n");
    installPackage(dir);
    project = new CliProject(dir, root);
    // What installation-configuration.md asks of the reader first: a project with its stack selected.
    await project.ok(["stack", "init", "dev"]);
  });
  afterAll(() => {
    for (const b of running) b.kill();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  /** The live servers of space-race's prod environment, as the emulator at `url` lists them. */
  const liveServers = (url: string, token: string) =>
    new GamehostClient({ baseUrl: url, token, maxRetries: 0 }).listServers(SPACE_RACE, PROD);

  /** Starts the emulator by a block's first line; the rest of the block's lines and the emulator. */
  async function startEmulator(lines: string[]) {
    const [start, ...rest] = lines;
    const emulator = new Background(project, (start as string).replace(/ &$/, ""));
    running.push(emulator);
    await emulator.waitFor(/Press Ctrl\+C to stop\./);
    return { emulator, rest };
  }

  /** After `pulumi up`: one live match server, at the stack's `endpoint`. */
  async function expectMatchServerUp(url: string, token: string) {
    const servers = await liveServers(url, token);
    expect(servers.map((s) => s.tags.role)).toEqual(["match"]);
    const port = servers[0]?.network.ports.game;
    expect(port?.public_hostname).toBeTruthy();
    expect((await project.outputsJson()).endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);
  }

  it("docs/installation-configuration.md, Running against the local emulator: the printed user token, then pulumi up", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const block = docBlock(
      "docs/installation-configuration.md",
      "Running against the local emulator",
      "bash",
    );
    const { emulator, rest } = await startEmulator(onFreePort(block, port));
    const token = (await emulator.waitFor(/^ {2}user +(\S+)$/m))[1] as string;
    expect(rest).toEqual([
      `pulumi config set gamehost:baseUrl ${url}`,
      "pulumi config set --secret gamehost:token <printed user token>",
      "pulumi up",
    ]);
    for (const line of rest) await runLine(project, line.replace("<printed user token>", token));
    await expectMatchServerUp(url, token);
    // Not in the block: the next test starts from an empty stack.
    await project.ok(["destroy", "--yes"]);
    expect(await liveServers(url, token)).toEqual([]);
    await emulator.stop();
  });

  it("docs/testing.md, Integration tests against the emulator: the workflow's job, the emulator in the background, up and destroy", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const workflow = docBlock("docs/testing.md", "Integration tests against the emulator", "yaml");
    expect(workflow.file).toBe(".github/workflows/stack.yml");
    const job = jobOf(workflow.text);
    // What the suite stands in for: the checkout is the project's folder, Node.js and the pinned CLI are on
    // PATH, and the package is installed there. The last step runs as written.
    expect(job.steps.slice(0, -1).map((step) => step.uses ?? step.run)).toEqual([
      "actions/checkout@v4",
      "actions/setup-node@v4",
      "pulumi/actions@v6",
      "npm ci",
    ]);
    expect(`v${job.steps[2]?.with?.["pulumi-version"]}`).toBe(realCli?.version);
    const step = job.steps.at(-1);
    const block = { ...workflow, text: step?.run ?? "" };
    const lines = onFreePort(block, port);
    expect(lines[0]).toMatch(/ &$/);
    const emulator = new Background(project, lines[0] as string);
    running.push(emulator);
    // The block's own wait for the emulator (curl, retrying until it answers), then config, up and destroy.
    const [wait, ...rest] = lines.slice(1);
    expect(wait).toMatch(/^curl --retry \d+ --retry-connrefused /);
    await runLine(project, wait as string);
    expect(rest.at(-1)).toBe("pulumi up --yes && pulumi destroy --yes");
    // As in a fresh CI job: one shell, logged in nowhere, with the step's own env (its passphrase). The block's
    // own login must do; before it had one, `pulumi config set` asked for PULUMI_ACCESS_TOKEN.
    const { stdout: output } = await runLine(project, rest.join("\n"), {
      PULUMI_BACKEND_URL: undefined,
      PULUMI_CONFIG_PASSPHRASE: undefined,
      CI: "true",
      ...step?.env,
    });
    expect(fs.readdirSync(path.join(project.dir, ".pulumi-state", ".pulumi", "stacks"))).toEqual([
      "gamehost-example",
    ]);
    // Up created the stack and its server, destroy deleted both (each with its preview).
    const summaries = output
      .split("\nResources:\n")
      .slice(1)
      .map((block) => summaryOf(`\nResources:\n${block}`));
    expect(summaries).toContainEqual(expect.objectContaining({ created: 2 }));
    expect(summaries.at(-1)).toMatchObject({ deleted: 2 });
    const client = new GamehostClient({ baseUrl: url, token: "emu_user_alice", maxRetries: 0 });
    const all = await client.listServers(SPACE_RACE, PROD, { include_destroyed: true });
    expect(all.map((s) => [s.tags.role, s.destroyed_at !== undefined])).toEqual([["match", true]]);
    await emulator.stop("SIGTERM"); // it was started with `&`
  });
});
