/**
 * `harness/demo.mjs` (what `npm run demo` runs after the build): deploys the quickstart against its own
 * emulator, prints the stack outputs, destroys the stack. Run as a user would, in a child process.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { stackOutputs } from "../../scripts/lib/stack-outputs.mjs";
import { dist, REPO_ROOT } from "../support/dist";
import { realCli } from "../support/realPulumi";

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "harness", "demo.mjs")], {
      cwd: REPO_ROOT,
      // Offline npm: the demo's `npx pulumi` probe must not download the CLI package in a test run.
      env: { ...process.env, npm_config_offline: "true", NODE_OPTIONS: undefined },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `  key  value` lines of the demo's "outputs:" block. */
function printedOutputs(stdout: string): Record<string, string> {
  const block = stdout.split("\noutputs:\n")[1] ?? "";
  const out: Record<string, string> = {};
  for (const line of block.split("\n")) {
    const match = /^ {2}(\w+)\s+(.+)$/.exec(line);
    if (!match) break;
    out[match[1] ?? ""] = match[2] ?? "";
  }
  return out;
}

describe("npm run demo", () => {
  it("deploys the quickstart, prints its outputs and leaves no live server", {
    // Through the real CLI (about 50 s on a loaded 2-core machine) where one is built or on PATH.
    timeout: 330_000,
  }, async () => {
    expect(fs.existsSync(path.join(REPO_ROOT, "dist", "emulator", "index.js")), "run the build first").toBe(
      true,
    );
    const { code, stdout, stderr } = await runDemo();

    expect(stderr).not.toContain("demo failed");
    expect(code, `demo output:\n${stdout}\n${stderr}`).toBe(0);
    const game = dist.emulator().loadFixture().games[0];
    const outputs = printedOutputs(stdout);
    expect(Object.keys(outputs).sort()).toEqual([
      "environments",
      "gameName",
      "gameNames",
      "historyRows",
      "historySha256",
      "historyUrl",
      "lobbyEndpoint",
      "lobbyServerId",
      "matchEndpoint",
      "matchServerId",
    ]);
    expect(outputs.gameName).toBe(JSON.stringify(game?.displayName));
    expect(outputs.historyUrl).toBe("[secret]");
    expect(outputs.historyRows).toMatch(/^\d+$/);
    expect(outputs.historySha256).toMatch(/^"[0-9a-f]{64}"$/);
    expect(outputs.lobbyServerId).toMatch(new RegExp(`^"${UUID}"$`));
    expect(outputs.matchServerId).toMatch(new RegExp(`^"${UUID}"$`));
    expect(outputs.lobbyServerId).not.toBe(outputs.matchServerId);
    expect(outputs.matchEndpoint).toMatch(/^"[^":]+:\d+"$/);
    const lobbyId = JSON.parse(outputs.lobbyServerId ?? '""') as string;
    expect(outputs.lobbyEndpoint).toContain(lobbyId);
    expect(stdout).toContain("live servers left in the emulator: 0");
    // The built CLI (or the one on PATH) when there is one, not the harness; it leaves no stack config.
    if (realCli) expect(stdout).toContain(`engine: pulumi ${realCli.version}`);
    expect(fs.existsSync(path.join(REPO_ROOT, "Pulumi.demo.yaml"))).toBe(false);
  });
});

describe("the demo's outputs", () => {
  const SECRET = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "x" };

  it("take their secrecy from the engine's state, not from their names", () => {
    const deployment = {
      resources: [
        { type: "pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport", outputs: { url: SECRET } },
        { type: "pulumi:pulumi:Stack", outputs: { historyUrl: "https://leak", gameName: SECRET } },
      ],
    };
    const values = { historyUrl: "https://leak", gameName: "[secret]" };
    expect(stackOutputs(deployment, values)).toEqual({
      historyUrl: { value: "https://leak", secret: false },
      gameName: { value: undefined, secret: true },
    });
  });
});
