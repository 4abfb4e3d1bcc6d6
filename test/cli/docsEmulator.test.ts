/**
 * docs/emulator.md as written, and README.md's block under "The emulator": the emulator's CLI started by its
 * documented line (`npx gamehost-emulator --port 8787`, on a free port: test/cli/docCommands.ts) from a folder
 * where the package is installed, then the page's curl lines against it, checked for what the page says they
 * print and do; the page's script on `pulumi-gamehost/emulator` type-checked and run by `node`.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api";
import type { RunningEmulator } from "../../src/emulator";
import { type DocBlock, docBlock } from "../support/docBlocks";
import { freePort } from "../support/freePort";
import { CliProject, tempRoot } from "../support/realPulumi";
import { Background, installPackage, jobOf, onFreePort, runLine, startScript } from "./docCommands";

const PAGE = "docs/emulator.md";
const FIXTURE: RunningEmulator["fixture"] = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "fixtures", "default.json"), "utf8"),
);
const USER_TOKEN = "emu_user_alice";

let root: string;
let project: CliProject;
const running: Background[] = [];
beforeAll(() => {
  root = tempRoot("docs-emulator");
  const dir = path.join(root, "project");
  fs.mkdirSync(dir);
  // The package installed as a user's project has it (`node_modules/.bin/gamehost-emulator` for npx).
  installPackage(dir);
  project = new CliProject(dir, root);
});
afterAll(() => {
  for (const b of running) b.kill();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** Starts the emulator by the block's first line on a free port; the rest of its lines and the port. */
async function startFromBlock(block: DocBlock, extraFlags = "") {
  const port = await freePort();
  const [start, ...rest] = onFreePort(block, port);
  expect(start).toBe(`npx gamehost-emulator --port ${port}`);
  const emulator = new Background(project, `${start}${extraFlags}`);
  running.push(emulator);
  await emulator.waitFor(/Press Ctrl\+C to stop\./);
  return { emulator, port, rest, url: `http://127.0.0.1:${port}` };
}

describe.each([
  ["README.md", "The emulator"],
  [PAGE, "Running it"],
])("%s, %s: the emulator's CLI, then curl", (page, section) => {
  it("prints its URL, the fixture's tokens and the provider's settings; curl lists the user's games; Ctrl+C stops it", async () => {
    const { emulator, rest, url } = await startFromBlock(docBlock(page, section, "bash"));
    const printed = emulator.printed;
    expect(printed).toContain(`listening on ${url}\n`);
    // A user token per role, each game's cloud token.
    const shown = FIXTURE.tokens.filter((t) => t.kind === "cloud" || t.role !== undefined);
    expect(shown.map((t) => t.role ?? t.kind).sort()).toEqual([
      "cloud",
      "cloud",
      "cloud",
      "expired",
      "otherUser",
      "user",
    ]);
    for (const token of shown)
      expect(printed).toMatch(new RegExp(`^  ${token.role ?? token.kind} +${token.token}\\b`, "m"));
    expect(printed).toContain(`export GAMEHOST_BASE_URL=${url}\n`);
    expect(printed).toContain(`export GAMEHOST_TOKEN=${USER_TOKEN}\n`);

    expect(rest).toEqual([`curl -H "Authorization: Bearer ${USER_TOKEN}" ${url}/cloud/games`]);
    const { stdout } = await runLine(project, rest[0] as string);
    const answer = JSON.parse(stdout) as { games: { game_id: string; name_id: string }[] };
    // The games the typed client lists for the same token: every game of alice's groups.
    const { games } = await new GamehostClient({ baseUrl: url, token: USER_TOKEN }).listGames();
    expect(games.length).toBeGreaterThan(0);
    expect(answer.games.map((g) => g.name_id)).toEqual(games.map((g) => g.name_id));

    // "`Ctrl+C` (or SIGTERM) stops it": the process group ends and the port is free again.
    await emulator.stop();
    expect(emulator.printed).toContain("stopping");
    await expect(fetch(`${url}/cloud/bootstrap`)).rejects.toThrow();
  });
});

it(`${PAGE}, The admin API: with --admin, the page's curl injects a 500 into the next server create`, async () => {
  const { emulator, url } = await startFromBlock(docBlock(PAGE, "Running it", "bash"), " --admin");
  const adminToken = (await emulator.waitFor(/admin token (emu_admin_\S+)/))[1] as string;
  const lines = onFreePort(docBlock(PAGE, "The admin API", "bash"), new URL(url).port);
  expect(lines).toHaveLength(1);
  const { stdout } = await runLine(project, lines[0] as string, { ADMIN_TOKEN: adminToken });
  expect(JSON.parse(stdout)).toEqual({
    faults: [
      expect.objectContaining({
        kind: "error_500",
        pathGlob: "/games/*/environments/*/servers",
        method: "POST",
      }),
    ],
  });

  const game = FIXTURE.games[0];
  const create = () =>
    fetch(`${url}/games/${game?.id}/environments/${game?.environments[0]?.id}/servers`, {
      method: "POST",
      headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
  const first = await create();
  expect(first.status).toBe(500);
  expect(((await first.json()) as { code: string }).code).toBe("ERROR");
  // One fault (count 1 by default): the next create reaches the service's own checks of its body.
  const second = await create();
  expect(second.status).toBe(400);
  await emulator.stop();
});

it("docs/testing.md, Integration tests against the emulator: `kill $!` of the npx the workflow's step starts with `&` stops the emulator", async () => {
  // In a script (no job control) `&` starts npx in the script's own process group, so `kill $!` is a
  // SIGTERM to npx alone, not to its group as Ctrl+C or `kill %1` in a terminal is: npm's `sh -c` ends
  // without passing it on. The emulator must stop all the same, freeing its port.
  const port = await freePort();
  // The workflow's last step: the lines a job runs (in GitHub Actions or another CI).
  const workflow = docBlock("docs/testing.md", "Integration tests against the emulator", "yaml");
  const step = jobOf(workflow.text).steps.at(-1);
  const [start, waitForIt] = onFreePort({ ...workflow, text: step?.run ?? "" }, port);
  expect(start).toMatch(/^npx gamehost-emulator --port \d+ .*&$/);
  expect(waitForIt).toMatch(/^curl --retry/);
  const log = path.join(project.dir, `emulator-${port}.log`);
  const script = [
    `${start?.replace(/&$/, "")} > ${log} 2>&1 &`,
    waitForIt,
    "kill $!",
    "wait $! || true",
  ].join("\n");
  try {
    await runLine(project, script);
    const deadline = Date.now() + 10_000;
    let answering = true;
    while (answering && Date.now() < deadline) {
      answering = await fetch(`http://127.0.0.1:${port}/cloud/bootstrap`).then(
        () => true,
        () => false,
      );
      if (answering) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answering, fs.readFileSync(log, "utf8")).toBe(false);
    expect(fs.readFileSync(log, "utf8")).toContain("The npx that started it has ended, stopping…");
  } finally {
    // On a failure, the emulator left running (found by its port), so that it holds nothing after the test.
    const left = spawnSync("pgrep", ["-f", `gamehost-emulator --port ${port} `], { encoding: "utf8" });
    for (const pid of left.stdout.split("\n").filter(Boolean)) process.kill(Number(pid), "SIGKILL");
  }
});

it(`${PAGE}, Starting it from code: the script type-checks, publishes a version and stops`, async () => {
  const script = startScript(
    project.dir,
    "emulator",
    docBlock(PAGE, "Starting it from code", "typescript").text,
  );
  try {
    const [line] = await script.lines(1);
    expect(line).toMatch(/^http:\/\/127\.0\.0\.1:\d+ published [0-9a-f-]{36}$/);
    // `await emulator.stop()` leaves nothing running: node exits by itself.
    expect(await script.exited, script.stderr).toBe(0);
  } finally {
    script.kill();
  }
});
