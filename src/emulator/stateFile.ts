import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { type FileHandle, open, rename, rm, unlink } from "node:fs/promises";
import * as path from "node:path";
import {
  journalFileOf,
  journalLine,
  journalsOf,
  type LoadedState,
  leftoverTempFiles,
  readState,
  type StateText,
  tempFileOf,
} from "./stateFormat";

/** What the state file asks of the emulator's state, each answered at once (synchronously). */
export interface StateSource {
  /** The changes since the last call, as journal changes in the order made (see stateFormat.ts). */
  changes(): string[];
  /** The whole state as it is now, as snapshot `generation`. */
  snapshot(generation: number): StateText;
}

/**
 * The file operations of the background writes, in one object so a test can hold a write at a
 * chosen step (and see that requests are answered meanwhile, or copy the files a crash would leave
 * then). Not part of the public API.
 */
export const stateIo = {
  open,
  /** Puts a snapshot in place. */
  rename,
  /** Deletes a journal folded into a snapshot. */
  unlink,
  /** Makes a journal append durable: the moment its changes may be acknowledged. */
  datasync: (handle: FileHandle): Promise<void> => handle.datasync(),
};

/**
 * When a journal is folded into a new snapshot: once it is larger than the last snapshot and than
 * `minBytes`. Rewriting the state at most once per its own size of journal keeps a change's amortized
 * cost O(its size), and the state on disk under twice its size. Tests lower `minBytes`; not public.
 */
export const journalPolicy = { minBytes: 1 << 20 };

/** Text is handed to the file system in chunks of about this many characters. */
const CHUNK_CHARS = 1 << 20;

function* chunks(text: StateText): Generator<string> {
  let chunk = "";
  for (const piece of text) {
    chunk += piece;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** The reason of a file-system error, e.g. `EACCES: permission denied`, without the path repeated. */
function reasonOf(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  return code ? `${code}: ${message.split(",")[0]?.replace(`${code}: `, "")}` : String(message);
}

/**
 * Makes the directory's entries durable (a new journal, a renamed snapshot) before anything relies on
 * them. Some systems cannot open a directory (Windows): there the rename is all there is.
 */
function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // See above.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // See syncDirSync.
  } finally {
    await handle?.close();
  }
}

/**
 * The state file of one emulator: a snapshot, `FILE`, and a journal of the changes made since,
 * `FILE.journal.<generation>` (docs/reliability.md, "The emulator's state").
 *
 * A change is written by appending one line to the journal and flushing it (fdatasync): the bytes
 * written are those of the records that changed, whatever the size of the state. Appends run in the
 * background, one at a time: changes made while one is in flight are written together by the next
 * one, as they are when it starts. {@link save} resolves once an append holding the caller's change
 * is on disk, so a request answered after it can never be lost.
 *
 * Once the journal outgrows the snapshot ({@link journalPolicy}), appends switch to the journal of the
 * next generation and a snapshot of that generation is taken, at one and the same moment; the
 * snapshot is written in the background (temporary file, fsync, rename, as a crash must leave the old
 * or the new one, never a torn one), then the older journals are deleted. Loading reads the snapshot
 * and replays the journals of its generation and later, so a crash at any step loses nothing: before
 * the rename, the old snapshot and both journals hold everything; after it, the new one and its journal.
 */
export class StateFile {
  private writing = false;
  /** Callers waiting for the next append (it starts when the one in flight ends). */
  private waiting: { resolve: () => void; reject: (err: unknown) => void }[] | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly dir: string;
  /** The highest generation loaded; the start's snapshot is the next one. */
  private loadedGeneration = 0;
  /** The generation appends go to. */
  private generation = 0;
  /** Bytes in that journal. */
  private journalBytes = 0;
  /** Bytes of the newest snapshot written. */
  private snapshotBytes = 0;
  /** Whether that journal's directory entry is known to be on disk. */
  private journalDurable = false;
  /** The snapshot being written in the background, if any. */
  private compacting: Promise<void> | undefined;
  /** Changes of a failed append, written with the next one. */
  private unwritten: string[] = [];
  /**
   * After a failed append the journal may end in a part of a line: no line may follow it, so the next
   * write switches to a new generation (a torn last line is skipped on load; one in the middle is not).
   */
  private mustSwitch = false;

  /**
   * Checks that `file` can be kept: its directory exists, it is not a directory, and temporary files
   * left by a killed emulator are removed. Throws naming the path and the fix.
   */
  constructor(
    readonly file: string,
    private readonly source: StateSource,
    private readonly warn: (message: string) => void,
  ) {
    this.dir = path.dirname(path.resolve(file));
    const fix = "create it, or pass another state file path (--state)";
    let isDir: boolean;
    try {
      isDir = statSync(this.dir).isDirectory();
    } catch (err) {
      throw new Error(
        `Cannot keep emulator state in ${file}: directory ${this.dir} ${
          (err as NodeJS.ErrnoException).code === "ENOENT"
            ? "does not exist"
            : `cannot be read (${reasonOf(err)})`
        }; ${fix}.`,
      );
    }
    if (!isDir)
      throw new Error(`Cannot keep emulator state in ${file}: ${this.dir} is not a directory; ${fix}.`);
    if (existsSync(file) && statSync(file).isDirectory()) {
      throw new Error(
        `Cannot keep emulator state in ${file}: it is a directory; pass a file path (--state).`,
      );
    }
    for (const leftover of leftoverTempFiles(file)) rmSync(leftover, { force: true });
  }

  /**
   * Reads the snapshot and replays its journals; `undefined` when there is no state yet. Throws
   * naming the file (and line) when one is corrupt.
   */
  load(): LoadedState | undefined {
    const state = readState(this.file, this.warn);
    this.loadedGeneration = state?.generation ?? 0;
    return state;
  }

  /**
   * Writes a snapshot of the state now, synchronously, with an empty journal after it: at start,
   * before any request, so a state file that cannot be written stops the emulator from starting
   * instead of failing its first create. Journals folded into it are deleted once it is in place.
   */
  writeNow(): void {
    const generation = Math.max(this.loadedGeneration, ...journalsOf(this.file).map((j) => j.generation)) + 1;
    // The snapshot holds every change made so far (restore, pruning at start).
    this.source.changes();
    const tmp = tempFileOf(this.file);
    const journal = journalFileOf(this.file, generation);
    let bytes = 0;
    try {
      const fd = openSync(tmp, "w");
      try {
        for (const chunk of chunks(this.source.snapshot(generation))) bytes += writeSync(fd, chunk);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
      closeSync(openSync(journal, "w"));
      syncDirSync(this.dir);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw new Error(
        `Cannot write emulator state file ${this.file} (${reasonOf(err)}): make ${this.dir} writable, or pass another state file path (--state).`,
      );
    }
    for (const old of journalsOf(this.file)) {
      if (old.generation !== generation) rmSync(old.file, { force: true });
    }
    this.generation = generation;
    this.journalBytes = 0;
    this.snapshotBytes = bytes;
    this.journalDurable = true;
  }

  /** Resolves once the state as it is now (or later) is on disk; rejects when that write fails. */
  save(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting ??= [];
      this.waiting.push({ resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  /** Resolves when no write is in flight or waiting, snapshots included. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.writing) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      else if (this.compacting) await this.compacting;
      else return;
    }
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.waiting) {
      const batch = this.waiting;
      this.waiting = undefined;
      try {
        // A switch forced by a failed append waits for the snapshot in flight, before the changes
        // are taken: the next snapshot must be taken at the very moment they are.
        if (this.mustSwitch) await this.compacting;
        const changes = [...this.unwritten, ...this.source.changes()];
        this.unwritten = [];
        if (this.compactionDue()) this.compact();
        if (changes.length > 0) await this.append(changes);
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.writing = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private compactionDue(): boolean {
    if (this.compacting) return false;
    return this.mustSwitch || this.journalBytes > Math.max(this.snapshotBytes, journalPolicy.minBytes);
  }

  /**
   * Switches appends to the next generation's journal and takes that generation's snapshot, in one
   * synchronous step: the snapshot holds exactly what the journals before it hold. Its write runs in
   * the background, appends going on meanwhile.
   */
  private compact(): void {
    const generation = this.generation + 1;
    const text = this.source.snapshot(generation);
    this.generation = generation;
    this.journalBytes = 0;
    this.journalDurable = false;
    this.mustSwitch = false;
    this.compacting = this.writeSnapshot(text, generation)
      .catch((err: unknown) =>
        this.warn(
          `cannot write the state snapshot ${this.file} (${reasonOf(err)}); the changes stay in its journals, and a later snapshot tries again.`,
        ),
      )
      .finally(() => {
        this.compacting = undefined;
      });
  }

  private async writeSnapshot(text: StateText, generation: number): Promise<void> {
    const tmp = tempFileOf(this.file);
    let bytes = 0;
    try {
      const handle = await stateIo.open(tmp, "w");
      try {
        // Chunk by chunk, each an asynchronous write: requests are served between them.
        for (const chunk of chunks(text)) {
          const buffer = Buffer.from(chunk);
          for (let at = 0; at < buffer.length; ) at += (await handle.write(buffer, at)).bytesWritten;
          bytes += buffer.length;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await stateIo.rename(tmp, this.file);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    this.snapshotBytes = bytes;
    // The rename is on disk before the journals it replaces go.
    await syncDir(this.dir);
    for (const old of journalsOf(this.file)) {
      // One left behind is harmless: older than the snapshot, it is skipped on load and removed at start.
      if (old.generation < generation) await stateIo.unlink(old.file).catch(() => undefined);
    }
  }

  private async append(changes: string[]): Promise<void> {
    const journal = journalFileOf(this.file, this.generation);
    const bytes = Buffer.from(journalLine(changes));
    try {
      const handle = await stateIo.open(journal, "a");
      try {
        for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at)).bytesWritten;
        await stateIo.datasync(handle);
      } finally {
        await handle.close();
      }
      if (!this.journalDurable) {
        await syncDir(this.dir);
        this.journalDurable = true;
      }
    } catch (err) {
      this.unwritten = changes;
      this.mustSwitch = true;
      throw new Error(`Cannot write emulator state journal ${journal}: ${reasonOf(err)}`);
    }
    this.journalBytes += bytes.length;
  }
}
