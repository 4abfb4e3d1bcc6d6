/**
 * A real full disk and a real read-only remount, through the CLI (issue #28, findings 1 and 2): the
 * emulator's state lives on a 4 MiB tmpfs mounted for the test, which needs root (mount(2)); where
 * that is refused, stateDurability.test.ts covers the same rules at the state file's I/O seam.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerResponse } from "../../src/api/schemas/servers";
import { startEmulator } from "../../src/emulator";
import { ids, serverBody, until } from "./helpers";

const CLI = path.resolve(__dirname, "../../dist/emulator/cli.js");
const mountPoint = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-diskfull-"));
const mounted =
  spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint], { encoding: "utf8" }).status ===
  0;
afterAll(() => {
  if (mounted) spawnSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const filler = path.join(mountPoint, "filler");

/** Fills the file system to its last byte. */
function fillDisk(): void {
  const fd = openSync(filler, "a");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  }
  // The last partial chunk, byte by byte in halves, until not even one fits.
  for (let size = 32 * 1024; size >= 1; size = Math.floor(size / 2)) {
    try {
      for (;;) writeSync(fd, chunk, 0, size);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
    }
  }
  closeSync(fd);
}

const freeDisk = () => rmSync(filler, { force: true });

/**
 * Remounts the tmpfs read-only or read-write. A read-only remount is refused (EBUSY) while a file is
 * open for writing, as the emulator's journal is during an append: tried until it lands between two.
 */
async function remount(mode: "ro" | "rw"): Promise<void> {
  await until(
    () => (spawnSync("mount", ["-o", `remount,${mode}`, mountPoint]).status === 0 ? true : undefined),
    `the ${mode} remount`,
  );
}

interface Cli {
  proc: ChildProcess;
  url: string;
  token: string;
  output: () => string;
  exited: Promise<unknown>;
}

async function startCli(stateFile: string): Promise<Cli> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const proc = spawn(process.execPath, [CLI, "--state", stateFile, "--placement-delay", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  let out = "";
  proc.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  proc.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const url = await until(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], "the URL");
  await until(() => out.includes("Press Ctrl+C"), "the emulator's ready line");
  const token = /user\s+(\S+)/.exec(out)?.[1] ?? "";
  return { proc, url, token, output: () => out, exited };
}

/** The lines of the emulator's output (its stderr warnings among them) that contain `text`. */
function warnings(cli: Cli, text: string): string[] {
  return cli
    .output()
    .split("\n")
    .filter((line) => line.includes(text));
}

async function stopCli(cli: Cli, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (cli.proc.exitCode === null && cli.proc.signalCode === null) cli.proc.kill(signal);
  await cli.exited;
}

describe.runIf(mounted)("a full disk and a read-only remount, on a real tmpfs", () => {
  it("answers 503 for what it cannot keep, keeps exactly what it answered, and recovers without hand edits", async () => {
    const probe = await startEmulator({ placement: "never" });
    const body = JSON.stringify(serverBody(probe));
    const serversPath = ids(probe).serversPath;
    await probe.stop();
    const stateFile = path.join(mountPoint, "state.json");
    const post = async (cli: Cli) => {
      const res = await fetch(`${cli.url}${serversPath}`, {
        method: "POST",
        headers: { authorization: `Bearer ${cli.token}`, "content-type": "application/json" },
        body,
      });
      return { status: res.status, body: (await res.json()) as { code?: string; server?: { id: string } } };
    };
    const listed = async (cli: Cli) => {
      const res = await fetch(`${cli.url}${serversPath}?include_destroyed=true`, {
        headers: { authorization: `Bearer ${cli.token}` },
      });
      return ((await res.json()) as { servers: { id: string }[] }).servers.map((s) => s.id).sort();
    };
    const acked: string[] = [];
    /** Creates `n` servers; every answer is 200 (kept) or 503 EMULATOR_STATE_NOT_SAVED; counts the 503s. */
    const createMany = async (cli: Cli, n: number) => {
      let refused = 0;
      for (let i = 0; i < n; i++) {
        const res = await post(cli);
        if (res.status === 200) acked.push(ServerResponse.parse(res.body).server.id);
        else {
          expect(res).toMatchObject({ status: 503, body: { code: "EMULATOR_STATE_NOT_SAVED" } });
          refused++;
        }
      }
      return refused;
    };
    const journals = () => readdirSync(mountPoint).filter((f) => f.startsWith("state.json.journal."));

    let cli = await startCli(stateFile);
    try {
      await createMany(cli, 5);
      fillDisk();
      // The journal's last page may take a few more lines; then every create is refused.
      expect(await createMany(cli, 60)).toBeGreaterThan(40);
      expect(await listed(cli)).toEqual([...acked].sort());
      expect(journals()).toHaveLength(1);
      // Whoever runs the emulator (a terminal, a CI log) is told once, naming the file and the cause.
      expect(warnings(cli, "changes are answered 503")).toEqual([
        expect.stringMatching(/state\.json\.journal\.\d+: ENOSPC/),
      ]);
      expect(warnings(cli, "succeed again")).toHaveLength(0);
      // An export's CSV that does not fit: the client gets the 503, the emulator's output says which file.
      const game = serversPath.split("/")[2];
      const exported = await fetch(`${cli.url}/cloud/games/${game}/matchmaker/lobbies/export-history`, {
        method: "POST",
        headers: { authorization: `Bearer ${cli.token}`, "content-type": "application/json" },
        body: JSON.stringify({ query_start: 0, query_end: Date.now() }),
      });
      expect(exported.status).toBe(503);
      await until(
        () => (warnings(cli, "cannot write the lobby-history export").length > 0 ? true : undefined),
        "the export's warning",
      );
      expect(warnings(cli, "cannot write the lobby-history export")[0]).toMatch(
        /state\.json\.exports\/.*ENOSPC/,
      );
      freeDisk();
      // Room again: creates go through in the same emulator.
      expect(await createMany(cli, 5)).toBe(0);
      expect(await listed(cli)).toEqual([...acked].sort());
      expect(warnings(cli, "succeed again")).toHaveLength(1);
      // A read-only remount: refused, then kept again once writable.
      await remount("ro");
      expect(await createMany(cli, 5)).toBe(5);
      await remount("rw");
      expect(await createMany(cli, 2)).toBe(0);
      expect([
        warnings(cli, "changes are answered 503").length,
        warnings(cli, "succeed again").length,
      ]).toEqual([2, 2]);
      expect(warnings(cli, "changes are answered 503")[1]).toContain("EROFS");
      // Killed while the disk is full again.
      fillDisk();
      await createMany(cli, 3);
      await stopCli(cli, "SIGKILL");
      // A restart on the full disk loads what was answered, and serves it.
      cli = await startCli(stateFile);
      expect(cli.output()).toContain("started on the files as they are");
      expect(await listed(cli)).toEqual([...acked].sort());
      expect(await createMany(cli, 3)).toBeGreaterThan(0);
      await stopCli(cli);
      freeDisk();
      cli = await startCli(stateFile);
      expect(cli.output()).not.toContain("started on the files as they are");
      expect(await listed(cli)).toEqual([...acked].sort());
      expect(await createMany(cli, 2)).toBe(0);
      expect(journals()).toHaveLength(1);
    } finally {
      await stopCli(cli, "SIGKILL");
      freeDisk();
    }
    expect(acked.length).toBeGreaterThanOrEqual(14);
  });

  it("fails at start on an export folder on a read-only mount, rather than answering every export 503", async () => {
    const exports = path.join(mountPoint, "exports");
    mkdirSync(exports, { recursive: true });
    await remount("ro");
    try {
      const result = spawnSync(process.execPath, [CLI, "--export-dir", exports], {
        encoding: "utf8",
        timeout: 30_000,
      });
      expect([result.status, result.signal]).toEqual([1, null]);
      expect(result.stderr).toContain(`exportDir (--export-dir) ${exports} cannot be written to (EROFS)`);
    } finally {
      await remount("rw");
    }
  });
});
