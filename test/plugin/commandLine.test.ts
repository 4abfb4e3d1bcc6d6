/**
 * The plugin executable run by hand: `--version` and `--help` answer and exit; started as the engine
 * starts it (its address, with or without the engine's own flags) it serves and prints its port.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as readline from "node:readline";
import { describe, expect, it } from "vitest";
import { dist } from "../support/dist";
import { PLUGIN_EXECUTABLE } from "./pluginClient";

const { PACKAGE_VERSION } = dist.pkg();

function run(...args: string[]) {
  return spawnSync(PLUGIN_EXECUTABLE, args, {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: undefined },
    timeout: 30_000,
  });
}

/** Spawns the plugin with `args`, resolves its first stdout line, and kills it. */
async function firstLine(args: string[]): Promise<string> {
  const child = spawn(PLUGIN_EXECUTABLE, args, {
    env: { ...process.env, NODE_OPTIONS: undefined },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    return await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).once("line", resolve);
      child.once("exit", (code) => reject(new Error(`plugin exited (${code}) before printing a line`)));
    });
  } finally {
    child.kill("SIGKILL");
  }
}

describe("pulumi-resource-gamehost by hand", () => {
  it("--version prints the package version and exits 0", () => {
    const result = run("--version");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`pulumi-resource-gamehost ${PACKAGE_VERSION}\n`);
  });

  it("--help says what it is, that Pulumi starts it, and where the docs are (shipped and online)", () => {
    for (const flag of ["--help", "-h"]) {
      const result = run(flag);
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/^Usage: pulumi-resource-gamehost \[--help \| --version\]\n/);
      expect(result.stdout).toContain("provider plugin of pulumi-gamehost");
      expect(result.stdout).toContain("Pulumi starts it, not you");
      const local = /Docs: (\S+)/.exec(result.stdout)?.[1];
      expect(local && fs.existsSync(local)).toBe(true);
      expect(result.stdout).toContain(
        "https://github.com/pulumi-gamehost/pulumi-gamehost/blob/main/docs/languages.md",
      );
    }
  });

  it("started as the engine starts it, with or without the engine's flags, it prints its port", async () => {
    for (const args of [[], ["127.0.0.1:1"], ["--logtostderr", "-v=9", "--logflow", "127.0.0.1:1"]]) {
      expect(await firstLine(args)).toMatch(/^\d+$/);
    }
  });
});
