import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ServerResponse } from "../../src/api/schemas/servers";
import { startEmulator } from "../../src/emulator";
import { parseCli } from "../../src/emulator/cli";
import { StateFile, stateIo } from "../../src/emulator/stateFile";
import { journalFileOf, readState } from "../../src/emulator/stateFormat";
import { call, codeOf, ids, serverBody, start, until } from "./helpers";

const CLI = path.resolve(__dirname, "../../dist/emulator/cli.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-statefile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

/** The journal files beside `stateFile`. */
function journalsIn(stateFile: string): string[] {
  const base = `${path.basename(stateFile)}.journal.`;
  return readdirSync(path.dirname(stateFile))
    .filter((name) => name.startsWith(base))
    .map((name) => path.join(path.dirname(stateFile), name));
}

/** Server ids in the state on disk (the snapshot and its journals). */
function idsOnDisk(stateFile: string): string[] {
  return (readState(stateFile)?.servers ?? []).map((r) => r.server.id);
}

/**
 * Runs the CLI on `stateFile` and creates servers on `connections` connections until `killWhen`
 * says so after an answer, then SIGKILLs it; every create answered 200 (before or after the kill:
 * an answer sent is an acknowledged change) must be there after a restart. Resolves with how many
 * were acknowledged.
 */
async function killUnderLoad(
  stateFile: string,
  connections: number,
  killWhen: (progress: { acked: number }) => boolean,
): Promise<number> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const proc: ChildProcess = spawn(process.execPath, [CLI, "--state", stateFile, "--placement-delay", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  try {
    let out = "";
    proc.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const url = await until(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]);
    await until(() => (out.includes("Press Ctrl+C") ? true : undefined));
    const token = /user\s+(\S+)/.exec(out)?.[1] ?? "";
    const probe = await startEmulator({ placement: "never" });
    const body = JSON.stringify(serverBody(probe));
    const serversPath = ids(probe).serversPath;
    await probe.stop();
    const acked: string[] = [];
    let killed = false;
    const clients = Array.from({ length: connections }, async () => {
      while (!killed) {
        try {
          const res = await fetch(`${url}${serversPath}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body,
          });
          const text = await res.text();
          expect(res.status).toBe(200);
          acked.push(ServerResponse.parse(JSON.parse(text)).server.id);
          if (!killed && killWhen({ acked: acked.length })) {
            killed = true;
            proc.kill("SIGKILL");
          }
        } catch (err) {
          // Cut off by the kill.
          if (!killed) throw err;
        }
      }
    });
    await Promise.all(clients);
    await exited;
    expect(idsOnDisk(stateFile)).toEqual(expect.arrayContaining(acked));
    const again = await start({ stateFile, placement: "never" });
    try {
      const restored = new Set(again.servers().map((s) => s.id));
      expect(acked.filter((id) => !restored.has(id))).toEqual([]);
    } finally {
      await again.stop();
    }
    return acked.length;
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await exited;
  }
}

describe("state writes", () => {
  it("serve other requests while a write is in flight, show and answer a create once it is on disk, and coalesce", async () => {
    const stateFile = path.join(dir, "inflight.json");
    const emu = await start({ stateFile, placement: "never" });
    try {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const datasync = stateIo.datasync;
      const syncs = vi.spyOn(stateIo, "datasync").mockImplementation(async (handle) => {
        await gate;
        return datasync(handle);
      });
      const commits = vi.spyOn(StateFile.prototype, "commit");
      const path_ = ids(emu).serversPath;
      let firstAnswered = false;
      const first = call(emu, "POST", path_, { body: serverBody(emu) }).then((res) => {
        firstAnswered = true;
        return res;
      });
      // The first journal append is held before its flush: written, not yet known to be on disk.
      await until(() => (syncs.mock.calls.length === 1 ? true : undefined));
      const bootstrap = await call(emu, "GET", "/cloud/bootstrap", { token: null });
      expect(bootstrap.status).toBe(200);
      expect(firstAnswered).toBe(false);
      // Five more creates while the write is held: none shown before it is on disk, then all in the next write.
      const more = Array.from({ length: 5 }, () => call(emu, "POST", path_, { body: serverBody(emu) }));
      await until(() => (commits.mock.calls.length === 6 ? true : undefined));
      expect(firstAnswered).toBe(false);
      expect(emu.servers()).toEqual([]);
      const listed = await call(emu, "GET", path_);
      expect((listed.body as { servers: unknown[] }).servers).toEqual([]);
      release();
      const answers = await Promise.all([first, ...more]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(emu.servers()).toHaveLength(6);
      expect(syncs).toHaveBeenCalledTimes(2);
      const created = answers.map((a) => ServerResponse.parse(a.body).server.id);
      expect(idsOnDisk(stateFile).sort()).toEqual([...created].sort());
    } finally {
      await emu.stop();
    }
  });

  it("never lose an acknowledged create to a SIGKILL, and leave a file that loads", async () => {
    // Killed right after the fifth acknowledgement, with other creates still in flight.
    await killUnderLoad(path.join(dir, "killed.json"), 20, ({ acked }) => acked >= 5);
  });

  it("never lose an acknowledged create to a SIGKILL while the journal is being folded into a snapshot", async () => {
    const stateFile = path.join(dir, "killed-compacting.json");
    // The start writes snapshot 1; the first compaction switches the appends to journal 2 and writes
    // snapshot 2 in the background: killed as soon as an answer shows that switch.
    const acked = await killUnderLoad(stateFile, 32, () => existsSync(journalFileOf(stateFile, 2)));
    expect(acked).toBeGreaterThan(100);
  });

  it("removes temporary files a killed emulator left beside the state file", async () => {
    const stateFile = path.join(dir, "leftover.json");
    writeFileSync(`${stateFile}.4242.tmp`, "{ half");
    writeFileSync(path.join(dir, "other.json.4242.tmp"), "not ours");
    const emu = await start({ stateFile });
    try {
      expect(existsSync(`${stateFile}.4242.tmp`)).toBe(false);
      expect(existsSync(path.join(dir, "other.json.4242.tmp"))).toBe(true);
    } finally {
      await emu.stop();
    }
  });
});

describe("retention", () => {
  it("drops destroyed servers once the retention has passed, from memory and from the file", async () => {
    const stateFile = path.join(dir, "retention.json");
    let now = Date.UTC(2026, 0, 1);
    const options = { stateFile, placement: "never" as const, destroyedRetentionMs: 60_000, now: () => now };
    const emu = await start(options);
    const serversPath = ids(emu).serversPath;
    const create = async () =>
      ServerResponse.parse((await call(emu, "POST", serversPath, { body: serverBody(emu) })).body).server.id;
    let kept: string;
    let old: string;
    try {
      old = await create();
      kept = await create();
      expect((await call(emu, "DELETE", `${serversPath}/${old}`)).status).toBe(200);
      now += 59_999;
      await create();
      expect((await call(emu, "GET", `${serversPath}/${old}`)).status).toBe(200);
      now += 1;
      await create();
      expect(codeOf(await call(emu, "GET", `${serversPath}/${old}`))).toBe("SERVERS_SERVER_NOT_FOUND");
      expect((await call(emu, "GET", `${serversPath}/${kept}`)).status).toBe(200);
      expect(idsOnDisk(stateFile)).not.toContain(old);
      expect(idsOnDisk(stateFile)).toContain(kept);
      expect((await call(emu, "DELETE", `${serversPath}/${kept}`)).status).toBe(200);
    } finally {
      await emu.stop();
    }
    // Past the retention while stopped: dropped at the next start.
    now += 60_000;
    const again = await start(options);
    try {
      expect(codeOf(await call(again, "GET", `${serversPath}/${kept}`))).toBe("SERVERS_SERVER_NOT_FOUND");
      expect(idsOnDisk(stateFile)).not.toContain(kept);
    } finally {
      await again.stop();
    }
  });

  it("drops an export once its URL has expired, with its file", async () => {
    const stateFile = path.join(dir, "export-retention.json");
    let now = Date.now();
    const emu = await start({ stateFile, now: () => now });
    try {
      const res = await call(
        emu,
        "POST",
        `/cloud/games/${ids(emu).gameId}/matchmaker/lobbies/export-history`,
        {
          body: { query_start: 0, query_end: Date.UTC(2025, 0, 1) },
        },
      );
      expect(res.status).toBe(200);
      const exportsDir = `${stateFile}.exports`;
      expect(readdirSync(exportsDir)).toHaveLength(1);
      now += 3_600_000;
      expect((await call(emu, "POST", ids(emu).serversPath, { body: serverBody(emu) })).status).toBe(200);
      await until(() => (readdirSync(exportsDir).length === 0 ? true : undefined));
      expect(readState(stateFile)?.exports).toEqual([]);
    } finally {
      await emu.stop();
    }
  });

  it.skipIf(process.platform === "win32")(
    "writes its files for the user alone: they hold the URL-signing secret, servers' environments and the CSVs",
    async () => {
      const stateFile = path.join(dir, "private.json");
      // The usual umask: without a mode of their own, the files would be readable by every local user.
      const umask = process.umask(0o022);
      const emu = await start({ stateFile });
      try {
        const environment = { DB_PASSWORD: "emulator-state-password" };
        const body = serverBody(emu);
        const made = await call(emu, "POST", ids(emu).serversPath, {
          body: { ...body, runtime: { ...(body.runtime as object), environment } },
        });
        expect(made.status).toBe(200);
        const exported = await call(
          emu,
          "POST",
          `/cloud/games/${ids(emu).gameId}/matchmaker/lobbies/export-history`,
          { body: { query_start: 0, query_end: Date.UTC(2025, 0, 1) } },
        );
        expect(exported.status).toBe(200);
        const journal = journalsIn(stateFile);
        expect(journal.some((file) => readFileSync(file, "utf8").includes(environment.DB_PASSWORD))).toBe(
          true,
        );
        const exportsDir = `${stateFile}.exports`;
        const csvs = readdirSync(exportsDir).flatMap((upload) =>
          readdirSync(path.join(exportsDir, upload)).map((name) => path.join(exportsDir, upload, name)),
        );
        expect(csvs).toHaveLength(1);
        const open = [stateFile, ...journal, ...csvs]
          .map((file) => [path.basename(file), (statSync(file).mode & 0o777).toString(8)] as const)
          .filter(([, mode]) => mode !== "600");
        expect(open).toEqual([]);
      } finally {
        process.umask(umask);
        await emu.stop();
      }
    },
  );

  it("is a CLI flag in ms", () => {
    expect(parseCli(["--destroyed-retention", "5000"])).toEqual({ options: { destroyedRetentionMs: 5000 } });
    expect(() => parseCli(["--destroyed-retention", "1h"])).toThrow(
      /--destroyed-retention must be an integer/,
    );
  });
});

describe("a state file that cannot be kept", () => {
  it("refuses to start, naming the path and the fix", async () => {
    const missing = path.join(dir, "no-such-dir", "state.json");
    await expect(startEmulator({ stateFile: missing })).rejects.toThrow(
      `Cannot keep emulator state in ${missing}: directory ${path.dirname(missing)} does not exist; create it`,
    );
    const file = path.join(dir, "a-file");
    writeFileSync(file, "");
    await expect(startEmulator({ stateFile: path.join(file, "state.json") })).rejects.toThrow(
      `${file} is not a directory`,
    );
    const aDir = path.join(dir, "a-dir");
    mkdirSync(aDir);
    await expect(startEmulator({ stateFile: aDir })).rejects.toThrow(`${aDir}: it is a directory`);
  });

  it("stops the CLI with exit code 1 and the path", () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    const missing = path.join(dir, "no-such-dir", "state.json");
    const result = spawnSync(process.execPath, [CLI, "--state", missing], {
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Cannot keep emulator state in ${missing}`);
  });
});
