/**
 * The state on disk as a snapshot plus a journal: what a restart replays, what it refuses, how the
 * journal is folded into a new snapshot (and what a crash at each step of that leaves), and that a
 * change costs bytes in proportion to itself, not to the state.
 */
import { randomUUID } from "node:crypto";
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ServerResponse } from "../../src/api/schemas/servers";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import type { ServerRecord } from "../../src/emulator/servers";
import { journalPolicy, stateIo } from "../../src/emulator/stateFile";
import { journalFileOf, journalsOf, readState } from "../../src/emulator/stateFormat";
import { call, ids, serverBody, start, until } from "./helpers";

const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-journal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const defaultMinBytes = journalPolicy.minBytes;
afterEach(() => {
  vi.restoreAllMocks();
  journalPolicy.minBytes = defaultMinBytes;
});

/** A fresh directory for one test's state. */
function stateIn(name: string): string {
  const sub = path.join(dir, name);
  mkdirSync(sub);
  return path.join(sub, "state.json");
}

/** The snapshot file as JSON, without its journals. */
function snapshotOf(stateFile: string): { generation?: number; servers: ServerRecord[] } {
  return JSON.parse(readFileSync(stateFile, "utf8"));
}

/**
 * What a SIGKILL at this moment would leave: the state file and every file beside it that is its
 * own (journals, the temporary snapshot), copied into a directory of their own. A kill loses only
 * what a process holds in memory, and every write here is on its way to disk already.
 */
function crashImage(stateFile: string, name: string): string {
  const copy = stateIn(name);
  const base = path.basename(stateFile);
  for (const entry of readdirSync(path.dirname(stateFile))) {
    if (entry === base || entry.startsWith(`${base}.journal.`) || /\.\d+\.tmp$/.test(entry)) {
      copyFileSync(
        path.join(path.dirname(stateFile), entry),
        path.join(path.dirname(copy), entry.replace(base, "state.json")),
      );
    }
  }
  return copy;
}

async function create(emu: RunningEmulator): Promise<string> {
  const res = await call(emu, "POST", ids(emu).serversPath, { body: serverBody(emu) });
  expect(res.status).toBe(200);
  return ServerResponse.parse(res.body).server.id;
}

/** Server ids an emulator started on `stateFile` holds; it is stopped again. */
async function idsAfterRestart(stateFile: string): Promise<string[]> {
  const emu = await start({ stateFile, placement: "never" });
  try {
    return emu.servers().map((s) => s.id);
  } finally {
    await emu.stop();
  }
}

/** Releases a held step when called. */
function gate(): { wait: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { wait, release };
}

describe("journal replay", () => {
  it("restores creates, placements, deletes, exports and retention drops from the journal alone", async () => {
    const stateFile = stateIn("replay");
    const t0 = Date.now();
    let now = t0;
    const options = { stateFile, placementDelayMs: 5, destroyedRetentionMs: 60_000, now: () => now };
    const emu = await start(options);
    const exportPath = `/cloud/games/${ids(emu).gameId}/matchmaker/lobbies/export-history`;
    const exportBody = { body: { query_start: 0, query_end: Date.UTC(2025, 0, 1) } };
    let before: ReturnType<RunningEmulator["servers"]>;
    let kept: string;
    let dropped: string;
    try {
      const [a, b, c] = [await create(emu), await create(emu), await create(emu)];
      await until(() => (emu.servers().every((s) => s.started_at !== undefined) ? true : undefined));
      expect((await call(emu, "DELETE", `${ids(emu).serversPath}/${b}`)).status).toBe(200);
      expect((await call(emu, "POST", exportPath, exportBody)).status).toBe(200);
      // Past the retention of b and the expiry of that export: the next change drops both.
      now += 3_600_001;
      await create(emu);
      expect((await call(emu, "DELETE", `${ids(emu).serversPath}/${c}`)).status).toBe(200);
      const exported = await call(emu, "POST", exportPath, exportBody);
      kept = new URL((exported.body as { url: string }).url).pathname.split("/")[2] as string;
      await until(() => (emu.servers().every((s) => s.started_at !== undefined) ? true : undefined));
      before = emu.servers();
      expect(before.map((s) => s.id)).not.toContain(b);
      expect(before.map((s) => s.id)).toContain(a);
      dropped = b as string;
    } finally {
      await emu.stop();
    }
    // Everything since the start is in the journal: the snapshot is the empty one written at start.
    expect(snapshotOf(stateFile).servers).toEqual([]);
    // Back at t0, b and the first export would still be within retention: only their journaled
    // drops keep them out.
    now = t0;
    const again = await start(options);
    try {
      expect(again.servers()).toEqual(before);
      expect(again.servers().map((s) => s.id)).not.toContain(dropped);
      expect(readState(stateFile)?.exports.map((e) => e.uploadId)).toEqual([kept]);
    } finally {
      await again.stop();
    }
  });

  it("skips a torn last line (a write cut off, never acknowledged) with a warning", async () => {
    const stateFile = stateIn("torn");
    const emu = await start({ stateFile, placement: "never" });
    const created = [await create(emu), await create(emu)];
    await emu.stop();
    const [journal] = journalsOf(stateFile);
    if (!journal) throw new Error("no journal");
    appendFileSync(journal.file, '[{"server":{"server":{"id":"');
    const warnings: string[] = [];
    const again = await start({ stateFile, placement: "never", onWarning: (w) => warnings.push(w) });
    try {
      expect(again.servers().map((s) => s.id)).toEqual(created);
      expect(warnings).toEqual([expect.stringContaining(`skipped the last line of ${journal.file}`)]);
    } finally {
      await again.stop();
    }
  });

  it("refuses a journal with a corrupt line before its last, naming the file and the line", async () => {
    const stateFile = stateIn("corrupt");
    const emu = await start({ stateFile, placement: "never" });
    for (let i = 0; i < 3; i++) await create(emu);
    await emu.stop();
    const [journal] = journalsOf(stateFile);
    if (!journal) throw new Error("no journal");
    const lines = readFileSync(journal.file, "utf8").split("\n");
    expect(lines).toHaveLength(4);
    lines[1] = (lines[1] as string).slice(0, 40);
    const damaged = lines.join("\n");
    writeFileSync(journal.file, damaged);
    await expect(startEmulator({ stateFile })).rejects.toThrow(
      `Corrupt emulator state journal ${journal.file}, line 2 of 3`,
    );
    // Refused before anything was written: the state is as it was, for the user to repair.
    expect(readFileSync(journal.file, "utf8")).toBe(damaged);
  });

  it("loads a state file written before journals (no generation, no journal)", async () => {
    const probeState = stateIn("old-format-probe");
    const probe = await start({ stateFile: probeState, placement: "never" });
    const id = await create(probe);
    await probe.stop();
    const [record] = readState(probeState)?.servers ?? [];
    const stateFile = stateIn("old-format");
    writeFileSync(
      stateFile,
      `${JSON.stringify({ version: 1, secret: "c".repeat(64), servers: [record], exports: [] })}\n`,
    );
    expect(await idsAfterRestart(stateFile)).toEqual([id]);
    // Started on it: a snapshot of the next generation and its journal replace it.
    expect(snapshotOf(stateFile).generation).toBe(1);
    expect(journalsOf(stateFile).map((j) => j.generation)).toEqual([1]);
  });
});

describe("compaction", () => {
  it("folds the journal into a new snapshot once it outgrows the last one, and deletes the old journal", async () => {
    journalPolicy.minBytes = 4096;
    const stateFile = stateIn("compaction");
    const emu = await start({ stateFile, placement: "never" });
    const startGeneration = snapshotOf(stateFile).generation ?? 0;
    const created: string[] = [];
    try {
      for (let i = 0; i < 30; i++) created.push(await create(emu));
    } finally {
      await emu.stop();
    }
    const snapshot = snapshotOf(stateFile);
    expect(snapshot.generation).toBeGreaterThan(startGeneration);
    // Most servers are now in the snapshot itself; the journals left are its own generation's.
    expect(snapshot.servers.length).toBeGreaterThan(0);
    expect(existsSync(journalFileOf(stateFile, startGeneration))).toBe(false);
    expect(journalsOf(stateFile).every((j) => j.generation >= (snapshot.generation ?? 0))).toBe(true);
    expect(await idsAfterRestart(stateFile)).toEqual(created);
  });

  it("loses nothing acknowledged when a crash cuts a compaction short, before or after the snapshot's rename", async () => {
    journalPolicy.minBytes = 4096;
    const stateFile = stateIn("interrupted");
    const emu = await start({ stateFile, placement: "never" });
    const startGeneration = snapshotOf(stateFile).generation ?? 0;
    const renameGate = gate();
    const unlinkGate = gate();
    const renames = vi.spyOn(stateIo, "rename").mockImplementation(async (from, to) => {
      await renameGate.wait;
      return rename(from, to);
    });
    const unlinks = vi.spyOn(stateIo, "unlink").mockImplementation(async (file) => {
      await unlinkGate.wait;
      return unlink(file);
    });
    const acked: string[] = [];
    let beforeRename: string;
    let ackedBeforeRename: string[];
    let afterRename: string;
    try {
      // Until the journal is folded: the snapshot is written and held before its rename.
      while (renames.mock.calls.length === 0) acked.push(await create(emu));
      // Creates go on meanwhile, into the next generation's journal.
      for (let i = 0; i < 5; i++) acked.push(await create(emu));
      expect(journalsOf(stateFile).map((j) => j.generation)).toEqual([startGeneration, startGeneration + 1]);
      beforeRename = crashImage(stateFile, "interrupted-before-rename");
      ackedBeforeRename = [...acked];
      renameGate.release();
      // Renamed; the old journal's deletion is held.
      await until(() => (unlinks.mock.calls.length === 1 ? true : undefined));
      expect(snapshotOf(stateFile).generation).toBe(startGeneration + 1);
      for (let i = 0; i < 5; i++) acked.push(await create(emu));
      afterRename = crashImage(stateFile, "interrupted-after-rename");
    } finally {
      renameGate.release();
      unlinkGate.release();
      await emu.stop();
    }
    expect(existsSync(journalFileOf(stateFile, startGeneration))).toBe(false);
    const tmp = readdirSync(path.dirname(beforeRename)).filter((f) => f.endsWith(".tmp"));
    expect(tmp).toHaveLength(1);
    expect(snapshotOf(beforeRename).generation).toBe(startGeneration);
    expect(await idsAfterRestart(beforeRename)).toEqual(ackedBeforeRename);
    // The temporary snapshot of the cut-off compaction is removed at start.
    expect(readdirSync(path.dirname(beforeRename)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(journalsOf(afterRename).map((j) => j.generation)).toEqual([startGeneration, startGeneration + 1]);
    expect(await idsAfterRestart(afterRename)).toEqual(acked);
    expect(await idsAfterRestart(stateFile)).toEqual(acked);
  });
});

describe("a failed journal write", () => {
  it("is answered 503, shows nothing, is never written later, and the journal goes on in the same file", async () => {
    const stateFile = stateIn("failed-append");
    const emu = await start({ stateFile, placement: "never" });
    const startGeneration = snapshotOf(stateFile).generation ?? 0;
    const journal = journalFileOf(stateFile, startGeneration);
    let a: string;
    let c: string;
    try {
      a = await create(emu);
      const before = readFileSync(journal, "utf8");
      // The next append writes half its line, then fails (a disk error).
      vi.spyOn(stateIo, "open").mockImplementationOnce((async (file: string, flags: string) => {
        const handle = await open(file, flags);
        const write = handle.write.bind(handle) as (b: Buffer, o: number, l: number) => Promise<unknown>;
        handle.write = (async (buffer: Buffer, offset: number) => {
          await write(buffer, offset, Math.floor((buffer.length - offset) / 2));
          throw Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" });
        }) as unknown as typeof handle.write;
        return handle;
      }) as typeof stateIo.open);
      const failed = await call(emu, "POST", ids(emu).serversPath, { body: serverBody(emu) });
      expect(failed.status).toBe(503);
      expect(failed.body).toMatchObject({ code: "EMULATOR_STATE_NOT_SAVED" });
      expect((failed.body as { message: string }).message).toContain("EIO");
      expect(failed.headers.get("retry-after")).toBe("1");
      // Cut back to its whole lines, in the same file.
      expect(readFileSync(journal, "utf8")).toBe(before);
      expect(emu.servers().map((s) => s.id)).toEqual([a]);
      c = await create(emu);
      expect(journalsOf(stateFile).map((j) => j.generation)).toEqual([startGeneration]);
    } finally {
      await emu.stop();
    }
    expect(readState(stateFile)?.servers.map((r) => r.server.id)).toEqual([a, c]);
    expect(await idsAfterRestart(stateFile)).toEqual([a, c]);
  });
});

describe("the cost of a change", () => {
  /** A state file of `count` unplaced servers cloned from `template`, in the format before journals. */
  function stateWith(template: ServerRecord, count: number, name: string): string {
    const stateFile = stateIn(name);
    const servers = Array.from({ length: count }, (_, i) => {
      const record = structuredClone(template);
      record.server.id = randomUUID();
      record.seq = i + 1;
      return record;
    });
    writeFileSync(stateFile, JSON.stringify({ version: 1, secret: "d".repeat(64), servers, exports: [] }));
    return stateFile;
  }

  /** Bytes the state file's background writes hand to the file system during `fn`. */
  async function bytesWrittenBy(fn: () => Promise<void>): Promise<number> {
    let bytes = 0;
    const realOpen = stateIo.open;
    const spy = vi.spyOn(stateIo, "open").mockImplementation((async (file: string, flags: string) => {
      const handle = await realOpen(file, flags);
      const write = handle.write.bind(handle) as (...args: unknown[]) => Promise<{ bytesWritten: number }>;
      handle.write = (async (...args: unknown[]) => {
        const result = await write(...args);
        bytes += result.bytesWritten;
        return result;
      }) as typeof handle.write;
      return handle;
    }) as typeof stateIo.open);
    try {
      await fn();
    } finally {
      spy.mockRestore();
    }
    return bytes;
  }

  it("does not grow with the number of servers: one create writes its own record, with 20 or 2,000 in the state", async () => {
    const probeState = stateIn("cost-probe");
    const probe = await start({ stateFile: probeState, placement: "never" });
    await create(probe);
    await probe.stop();
    const template = readState(probeState)?.servers[0];
    if (!template) throw new Error("no server in the probe's state");
    const results: { bytes: number; record: number; snapshot: number }[] = [];
    for (const count of [20, 2_000]) {
      const stateFile = stateWith(template, count, `cost-${count}`);
      const emu = await start({ stateFile, placement: "never" });
      try {
        let id = "";
        const bytes = await bytesWrittenBy(async () => {
          id = await create(emu);
        });
        const record = readState(stateFile)?.servers.find((r) => r.server.id === id);
        results.push({
          bytes,
          record: Buffer.byteLength(JSON.stringify(record)),
          snapshot: statSync(stateFile).size,
        });
      } finally {
        await emu.stop();
      }
    }
    const [small, large] = results as [(typeof results)[0], (typeof results)[0]];
    // The 2,000-server state is far larger than what a create writes…
    expect(large.snapshot).toBeGreaterThan(100 * large.bytes);
    // …which is its own record and a few bytes of framing, the same with either state (the records
    // differ only in the digits of their sequence number).
    for (const r of results) {
      expect(r.bytes).toBeGreaterThanOrEqual(r.record);
      expect(r.bytes).toBeLessThan(r.record + 32);
    }
    expect(Math.abs(large.bytes - small.bytes)).toBeLessThanOrEqual(Math.abs(large.record - small.record));
  });
});
