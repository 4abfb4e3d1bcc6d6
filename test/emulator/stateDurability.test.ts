/**
 * The emulator answers only what it keeps (issue #28, findings 1 and 2): while its state file cannot
 * be written, a create, a delete or an export is answered 503 `EMULATOR_STATE_NOT_SAVED`, is never
 * shown (listed, got, placed) and never written later; the journal is cut back to its whole lines
 * instead of a new file per failure; and writes resume by themselves once the disk has room.
 *
 * The disk is made full at the state file's one file-system seam (`stateIo`): every append writes
 * half its line and fails with ENOSPC, as a full disk does. stateDiskFull.test.ts does the same on a
 * real, small tmpfs through the CLI.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ServerResponse } from "../../src/api/schemas/servers";
import type { RunningEmulator } from "../../src/emulator";
import { retryPolicy, stateIo } from "../../src/emulator/stateFile";
import { journalsOf, readState } from "../../src/emulator/stateFormat";
import { type ApiResponse, call, codeOf, ids, serverBody, sleep, start, until } from "./helpers";

const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-durability-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const defaultRetryMs = retryPolicy.delayMs;
afterEach(() => {
  vi.restoreAllMocks();
  retryPolicy.delayMs = defaultRetryMs;
});

function stateIn(name: string): string {
  const sub = path.join(dir, name);
  mkdirSync(sub);
  return path.join(sub, "state.json");
}

/**
 * A disk that fills and empties on demand: while full, every write of the state file (journal
 * appends, snapshots) puts half its bytes on disk and then fails with ENOSPC.
 */
function fillableDisk(): { fill(): void; free(): void } {
  let full = false;
  vi.spyOn(stateIo, "open").mockImplementation((async (file: string, flags: string) => {
    const handle = await open(file, flags);
    const write = handle.write.bind(handle) as (b: Buffer, o: number, l: number) => Promise<unknown>;
    handle.write = (async (buffer: Buffer, offset = 0) => {
      if (!full) return write(buffer, offset, buffer.length - offset);
      await write(buffer, offset, Math.floor((buffer.length - offset) / 2));
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    }) as unknown as typeof handle.write;
    return handle;
  }) as typeof stateIo.open);
  return {
    fill: () => {
      full = true;
    },
    free: () => {
      full = false;
    },
  };
}

function expectNotSaved(res: ApiResponse): void {
  expect(res.status).toBe(503);
  expect(codeOf(res)).toBe("EMULATOR_STATE_NOT_SAVED");
  expect((res.body as { message: string }).message).toContain("ENOSPC");
  expect(res.headers.get("retry-after")).toBe("1");
}

/** The state file's own files beside it: the snapshot, journals, temporary snapshots. */
function stateFiles(stateFile: string): string[] {
  const base = path.basename(stateFile);
  return readdirSync(path.dirname(stateFile)).filter((f) => f.startsWith(base) && !f.endsWith(".exports"));
}

async function create(emu: RunningEmulator): Promise<ApiResponse> {
  return call(emu, "POST", ids(emu).serversPath, { body: serverBody(emu) });
}

async function idsAfterRestart(stateFile: string): Promise<string[]> {
  const emu = await start({ stateFile, placement: "never" });
  try {
    return emu
      .servers()
      .map((s) => s.id)
      .sort();
  } finally {
    await emu.stop();
  }
}

describe("while the state file cannot be written", () => {
  it("a create is answered 503, never listed, got or placed, and never written later", async () => {
    const stateFile = stateIn("create");
    const disk = fillableDisk();
    // No placement until the journal is compared: a placement writes a line of its own, whenever it runs.
    const emu = await start({ stateFile, placementDelayMs: 0, placement: "never" });
    try {
      const kept = ServerResponse.parse((await create(emu)).body).server.id;
      const journal = journalsOf(stateFile).at(-1)?.file as string;
      const before = readFileSync(journal, "utf8");
      const filesBefore = stateFiles(stateFile);
      disk.fill();
      const failed = await Promise.all(Array.from({ length: 20 }, () => create(emu)));
      for (const res of failed) expectNotSaved(res);
      // The id a failed answer would have had is nowhere: not listed, not in any get.
      const listed = await call(emu, "GET", `${ids(emu).serversPath}?include_destroyed=true`);
      expect((listed.body as { servers: { id: string }[] }).servers.map((s) => s.id)).toEqual([kept]);
      await sleep(50);
      expect(emu.servers().map((s) => s.id)).toEqual([kept]);
      // No new file per failure, and no part of a failed line left in the journal.
      expect(stateFiles(stateFile)).toEqual(filesBefore);
      expect(readFileSync(journal, "utf8")).toBe(before);
      disk.free();
      emu.setPlacement("auto");
      // Space is back: the next create goes through, without a restart.
      const after = await create(emu);
      expect(after.status).toBe(200);
      const later = ServerResponse.parse(after.body).server.id;
      await until(() => (emu.servers().find((s) => s.id === later)?.started_at ? true : undefined));
      expect(await idsAfterRestartOf(emu, stateFile)).toEqual([kept, later].sort());
    } finally {
      await emu.stop();
    }
  });

  it("a delete is answered 503 and leaves the server live, ports held; a later delete goes through", async () => {
    const stateFile = stateIn("delete");
    const disk = fillableDisk();
    const emu = await start({ stateFile, placementDelayMs: 0 });
    try {
      const id = ServerResponse.parse((await create(emu)).body).server.id;
      const placed = await until(() => emu.servers().find((s) => s.id === id && s.started_at !== undefined));
      disk.fill();
      const serverPath = `${ids(emu).serversPath}/${id}`;
      const [first, second] = await Promise.all([
        call(emu, "DELETE", serverPath),
        call(emu, "DELETE", serverPath),
      ]);
      expectNotSaved(first as ApiResponse);
      expectNotSaved(second as ApiResponse);
      const got = ServerResponse.parse((await call(emu, "GET", serverPath)).body).server;
      expect(got.destroyed_at).toBeUndefined();
      expect(got.network.ports).toEqual(placed.network.ports);
      disk.free();
      expect((await call(emu, "DELETE", serverPath)).status).toBe(200);
      const destroyed = ServerResponse.parse((await call(emu, "GET", serverPath)).body).server;
      expect(destroyed.destroyed_at).toBeDefined();
      await emu.stop();
      expect(readState(stateFile)?.servers.find((r) => r.server.id === id)?.server.destroyed_at).toBe(
        destroyed.destroyed_at,
      );
    } finally {
      await emu.stop();
    }
  });

  it("an export is answered 503, its CSV removed, and no record of it kept", async () => {
    const stateFile = stateIn("export");
    const disk = fillableDisk();
    const emu = await start({ stateFile, placement: "never" });
    const exportPath = `/cloud/games/${ids(emu).gameId}/matchmaker/lobbies/export-history`;
    const span = { query_start: 0, query_end: Date.now() };
    const exportDir = `${stateFile}.exports`;
    try {
      disk.fill();
      expectNotSaved(await call(emu, "POST", exportPath, { body: span }));
      expect(readdirSync(exportDir)).toEqual([]);
      disk.free();
      const ok = await call(emu, "POST", exportPath, { body: span });
      expect(ok.status).toBe(200);
      expect(readdirSync(exportDir)).toHaveLength(1);
    } finally {
      await emu.stop();
    }
    expect(readState(stateFile)?.exports).toHaveLength(1);
  });

  it("the emulator's own changes (a placement) reach the disk by themselves once it has room", async () => {
    retryPolicy.delayMs = 20;
    const stateFile = stateIn("placement");
    const disk = fillableDisk();
    const emu = await start({ stateFile, placementDelayMs: 50 });
    try {
      const id = ServerResponse.parse((await create(emu)).body).server.id;
      disk.fill();
      // Placed in memory; its write fails, and is tried again without any request.
      const placed = await until(() => emu.servers().find((s) => s.id === id)?.started_at);
      await sleep(60);
      expect(
        readState(stateFile)?.servers.find((r) => r.server.id === id)?.server.started_at,
      ).toBeUndefined();
      disk.free();
      await until(() => readState(stateFile)?.servers.find((r) => r.server.id === id)?.server.started_at);
      expect(readState(stateFile)?.servers.find((r) => r.server.id === id)?.server.started_at).toBe(placed);
    } finally {
      await emu.stop();
    }
  });
});

/** Stops `emu` and lists the ids a fresh start on its state file loads. */
async function idsAfterRestartOf(emu: RunningEmulator, stateFile: string): Promise<string[]> {
  await emu.stop();
  return idsAfterRestart(stateFile);
}
