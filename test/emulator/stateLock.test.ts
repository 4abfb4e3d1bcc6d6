/**
 * One writer per state file (issue #28, finding 3): a second emulator on the same `--state` refuses
 * to start, naming the file and the process using it, and touches none of its files; the lock of an
 * emulator that was killed is stale and taken over at once.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerResponse } from "../../src/api/schemas/servers";
import { startEmulator } from "../../src/emulator";
import { call, ids, serverBody, start, until } from "./helpers";

const CLI = path.resolve(__dirname, "../../dist/emulator/cli.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stateIn(name: string): string {
  const sub = path.join(dir, name);
  mkdirSync(sub);
  return path.join(sub, "state.json");
}

/** The CLI on `stateFile`, once it listens. */
async function startCli(stateFile: string): Promise<{ proc: ChildProcess; url: string; token: string }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const proc = spawn(process.execPath, [CLI, "--state", stateFile, "--placement-delay", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const url = await until(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], "the URL");
  await until(() => out.includes("Press Ctrl+C"), "the emulator's ready line");
  return { proc, url, token: /user\s+(\S+)/.exec(out)?.[1] ?? "" };
}

/** Whether the lock is there (a symbolic link to nothing: `existsSync` would follow it). */
function lockExists(stateFile: string): boolean {
  try {
    lstatSync(`${stateFile}.lock`);
    return true;
  } catch {
    return false;
  }
}

const exitOf = (proc: ChildProcess) =>
  proc.exitCode !== null || proc.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => proc.once("exit", resolve));

describe("one emulator per state file", () => {
  it("a second CLI on the same --state refuses to start, naming the file and the first one's process, and loses nothing", async () => {
    const stateFile = stateIn("cli");
    const first = await startCli(stateFile);
    try {
      const probe = await startEmulator({ placement: "never" });
      const body = JSON.stringify(serverBody(probe));
      const serversPath = ids(probe).serversPath;
      await probe.stop();
      const acked: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${first.url}${serversPath}`, {
          method: "POST",
          headers: { authorization: `Bearer ${first.token}`, "content-type": "application/json" },
          body,
        });
        expect(res.status).toBe(200);
        acked.push(ServerResponse.parse(await res.json()).server.id);
      }
      const filesBefore = readdirSync(path.dirname(stateFile)).sort();
      const second = spawnSync(process.execPath, [CLI, "--state", stateFile], {
        encoding: "utf8",
        timeout: 10_000,
      });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(
        `Cannot use emulator state file ${stateFile}: another emulator (process ${first.proc.pid}) is using it`,
      );
      // The first one's files are as they were: nothing deleted, nothing rewritten.
      expect(readdirSync(path.dirname(stateFile)).sort()).toEqual(filesBefore);
      // Killed: its lock is stale, and the next start takes it over at once with everything answered.
      first.proc.kill("SIGKILL");
      await exitOf(first.proc);
      expect(lockExists(stateFile)).toBe(true);
      const again = await start({ stateFile, placement: "never" });
      try {
        expect(
          again
            .servers()
            .map((s) => s.id)
            .sort(),
        ).toEqual([...acked].sort());
      } finally {
        await again.stop();
      }
      expect(lockExists(stateFile)).toBe(false);
    } finally {
      first.proc.kill("SIGKILL");
      await exitOf(first.proc);
    }
  });

  it("in one process too: a second startEmulator refuses until the first stops", async () => {
    const stateFile = stateIn("in-process");
    const first = await start({ stateFile, placement: "never" });
    try {
      await expect(startEmulator({ stateFile })).rejects.toThrow(
        `Cannot use emulator state file ${stateFile}: another emulator (process ${process.pid}, this one) is using it (lock ${stateFile}.lock)`,
      );
      // The refused start left the first one working.
      expect((await call(first, "POST", ids(first).serversPath, { body: serverBody(first) })).status).toBe(
        200,
      );
    } finally {
      await first.stop();
    }
    const next = await start({ stateFile, placement: "never" });
    await next.stop();
  });

  it("through a symbolic link to the state file too: the second refuses, and the link stays a link", async () => {
    const stateFile = stateIn("linked");
    const alias = path.join(path.dirname(stateFile), "alias.json");
    symlinkSync("state.json", alias);
    const first = await start({ stateFile, placement: "never" });
    try {
      // Before: the lock was `alias.json.lock`, so the second started, and its snapshot, renamed over the
      // link, made it a file of its own: two emulators, two states, neither told.
      await expect(startEmulator({ stateFile: alias })).rejects.toThrow(
        `Cannot use emulator state file ${stateFile}: another emulator (process ${process.pid}, this one) is using it (lock ${stateFile}.lock)`,
      );
    } finally {
      await first.stop();
    }
    const viaLink = await start({ stateFile: alias, placement: "never" });
    await viaLink.stop();
    expect(lstatSync(alias).isSymbolicLink()).toBe(true);
  });

  it("takes over a lock whose process id was reused by another process, and refuses one it cannot read", async () => {
    const stateFile = stateIn("reused");
    // This test's own process id, with a start time it never had: a process that exited long ago.
    symlinkSync(`${process.pid}@1`, `${stateFile}.lock`);
    const warnings: string[] = [];
    const emu = await start({ stateFile, onWarning: (m) => warnings.push(m) });
    expect(readlinkSync(`${stateFile}.lock`)).toMatch(new RegExp(`^${process.pid}@\\d+$`));
    await emu.stop();
    expect(warnings).toContainEqual(expect.stringContaining(`removed the stale lock ${stateFile}.lock`));

    const junk = stateIn("junk");
    symlinkSync("not a pid", `${junk}.lock`);
    await expect(startEmulator({ stateFile: junk })).rejects.toThrow(
      `Cannot use emulator state file ${junk}: its lock ${junk}.lock holds "not a pid"`,
    );
  });
});
