import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { type FileHandle, open, rename, rm, truncate, unlink } from "node:fs/promises";
import * as path from "node:path";
import { ERROR_CODES } from "../api/errors";
import { PRIVATE_FILE_MODE } from "./privateFiles";
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
import { StateLock } from "./stateLock";

/** What the state file asks of the emulator's state, each answered at once (synchronously). */
export interface StateSource {
  /**
   * The emulator's own changes since the last call (placement, retention drops), already in effect,
   * as journal changes in the order made (see stateFormat.ts). Written until they are on disk.
   */
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
  /** Cuts a journal back to its last whole line after a failed append. */
  truncate,
};

/**
 * A change a request asks for, kept back until it is on disk: nobody sees it before (a create is
 * not listed, a delete frees no port), and a failed write drops it, so what the emulator shows is
 * always what it keeps.
 */
export interface StagedChange {
  /** Its journal changes, taken when its write starts (so they hold the records as they then are). */
  changes(): string[];
  /** Puts it in effect, once written. */
  apply(): void;
}

/** A state write failed: the changes of its requests were dropped, those of the emulator's own kept. */
export class StateWriteError extends Error {
  constructor(
    message: string,
    /** The file-system error code, e.g. `ENOSPC`. */
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = "StateWriteError";
  }
}

/** How long after a failed write the emulator's own changes (placements) are tried again unprompted. */
export const retryPolicy = { delayMs: 1_000 };

/** Errors that say the disk is full: a start goes on without a new snapshot, and writes resume with space. */
const DISK_FULL = new Set(["ENOSPC", "EDQUOT"]);

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
 * `FILE.journal.<generation>` (docs/reliability.md, "The emulator's state"), with the lock
 * `FILE.lock` that keeps a second emulator off them (see stateLock.ts).
 *
 * A change is written by appending one line to the journal and flushing it (fdatasync): the bytes
 * written are those of the records that changed, whatever the size of the state. Appends run in the
 * background, one at a time: changes made while one is in flight are written together by the next
 * one, as they are when it starts. A request's change is {@link commit}ted: put in effect only once
 * an append holding it is on disk, and dropped, never written later, when that append fails. The
 * emulator's own changes (placement, retention) are in effect at once and written with the next
 * append ({@link save}), tried again until they are on disk.
 *
 * A failed append cuts the journal back to its last whole line, so the next one goes on in the same
 * file: a full disk costs no new files, and writes resume by themselves once space returns.
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
  private waiting:
    | { staged: StagedChange | undefined; resolve: () => void; reject: (err: unknown) => void }[]
    | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly dir: string;
  private readonly lock: StateLock;
  /** The highest generation loaded; the start's snapshot is the next one. */
  private loadedGeneration = 0;
  /** The newest journal loaded, where appends go on when no snapshot can be written at start. */
  private loadedJournal: { generation: number; wholeBytes: number } | undefined;
  /** The generation appends go to. */
  private generation = 0;
  /** Bytes in that journal: all whole lines, as a failed append is cut off again. */
  private journalBytes = 0;
  /** Bytes of the newest snapshot written. */
  private snapshotBytes = 0;
  /** Whether that journal's directory entry is known to be on disk. */
  private journalDurable = false;
  /** The snapshot being written in the background, if any. */
  private compacting: Promise<void> | undefined;
  /** The emulator's own changes of a failed append, written with the next one. */
  private unwritten: string[] = [];
  /** The journal may end in a part of a line that could not be cut off yet: cut it before appending. */
  private tornEnd = false;
  /** The unprompted retry of {@link unwritten}. */
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /**
   * Whether the last write failed: whoever runs the emulator is told once when writes start failing
   * and once when they resume (its clients see each failure as a 503).
   */
  private failing = false;

  /**
   * Checks that `file` can be kept: its directory exists, it is not a directory, no other emulator
   * uses it (the lock is taken here), and temporary files left by a killed emulator are removed.
   * Throws naming the path and the fix.
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
    // Before anything is read or removed: another emulator's files are not this one's to touch.
    this.lock = StateLock.acquire(file, warn);
    try {
      for (const leftover of leftoverTempFiles(file)) rmSync(leftover, { force: true });
    } catch (err) {
      this.lock.release();
      throw err;
    }
  }

  /**
   * Reads the snapshot and replays its journals; `undefined` when there is no state yet. Throws
   * naming the file (and line) when one is corrupt.
   */
  load(): LoadedState | undefined {
    const state = readState(this.file, this.warn);
    this.loadedGeneration = state?.generation ?? 0;
    this.loadedJournal = state?.lastJournal;
    return state;
  }

  /**
   * Writes a snapshot of the state now, synchronously, with an empty journal after it: at start,
   * before any request, so a state file that cannot be written stops the emulator from starting
   * instead of failing its first create. Journals folded into it are deleted once it is in place.
   *
   * On a full disk, a state that loaded starts anyway on the files it has (nothing on them is
   * changed but a torn end of the newest journal, cut off): its reads are served, and its writes
   * answer 503 until space returns.
   */
  writeNow(): void {
    const generation = Math.max(this.loadedGeneration, ...journalsOf(this.file).map((j) => j.generation)) + 1;
    // The snapshot holds every change made so far (restore, pruning at start).
    const changes = this.source.changes();
    const tmp = tempFileOf(this.file);
    const journal = journalFileOf(this.file, generation);
    let bytes = 0;
    try {
      const fd = openSync(tmp, "w", PRIVATE_FILE_MODE);
      try {
        for (const chunk of chunks(this.source.snapshot(generation))) bytes += writeSync(fd, chunk);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
      closeSync(openSync(journal, "w", PRIVATE_FILE_MODE));
      syncDirSync(this.dir);
    } catch (err) {
      rmSync(tmp, { force: true });
      if (this.startOnLoadedFiles(err, changes)) return;
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

  /**
   * After a start's snapshot failed for a full disk: appends go on in the newest journal loaded, cut
   * back to its last whole line. `false` when that cannot be (no state loaded, or another error).
   */
  private startOnLoadedFiles(err: unknown, changes: string[]): boolean {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === undefined || !DISK_FULL.has(code) || !existsSync(this.file)) return false;
    const journal = this.loadedJournal ?? { generation: this.loadedGeneration, wholeBytes: 0 };
    const journalFile = journalFileOf(this.file, journal.generation);
    if (existsSync(journalFile) && statSync(journalFile).size > journal.wholeBytes) {
      // Cutting frees space; it needs none.
      try {
        truncateSync(journalFile, journal.wholeBytes);
      } catch {
        return false;
      }
    }
    this.generation = journal.generation;
    this.journalBytes = journal.wholeBytes;
    this.snapshotBytes = statSync(this.file).size;
    this.journalDurable = existsSync(journalFile);
    this.unwritten = changes;
    this.scheduleRetry();
    this.warn(
      `cannot write a new snapshot of ${this.file} (${reasonOf(err)}): started on the files as they are; changes answer 503 until the disk has space again.`,
    );
    return true;
  }

  /** Resolves once the state as it is now (or later) is on disk; rejects when that write fails. */
  save(): Promise<void> {
    return this.enqueue(undefined);
  }

  /**
   * Writes a request's change and then puts it in effect; resolves once both are done. Rejects with
   * a {@link StateWriteError} when the write fails: the change is then dropped, never in effect and
   * never written.
   */
  commit(staged: StagedChange): Promise<void> {
    return this.enqueue(staged);
  }

  private enqueue(staged: StagedChange | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting ??= [];
      this.waiting.push({ staged, resolve, reject });
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

  /** Stops retrying and releases the lock: after {@link idle}, when the emulator stops. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.lock.release();
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.waiting) {
      const batch = this.waiting;
      this.waiting = undefined;
      let own = this.unwritten;
      this.unwritten = [];
      let wrote = false;
      try {
        own = [...own, ...this.source.changes()];
        if (this.compactionDue()) this.compact();
        const requested = batch.flatMap((w) => w.staged?.changes() ?? []);
        // The emulator's own changes first: a request's change of the same record is the newer one.
        const changes = [...own, ...requested];
        if (changes.length > 0) await this.append(changes);
        wrote = changes.length > 0;
      } catch (err) {
        this.unwritten = own;
        this.scheduleRetry();
        if (!this.failing) {
          this.failing = true;
          this.warn(
            `${(err as Error).message}: changes are answered 503 ${ERROR_CODES.stateNotSaved} and not kept until a write succeeds.`,
          );
        }
        for (const w of batch) w.reject(err);
        continue;
      }
      if (this.failing && wrote) {
        this.failing = false;
        this.warn(`state writes to ${this.file} succeed again: changes are kept and answered as usual.`);
      }
      for (const w of batch) {
        try {
          w.staged?.apply();
          w.resolve();
        } catch (err) {
          w.reject(err);
        }
      }
    }
    this.writing = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Writes the emulator's own changes of a failed append again later, even if no request comes. */
  private scheduleRetry(): void {
    if (this.closed || this.retryTimer !== undefined || this.unwritten.length === 0) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.save().catch(() => undefined);
    }, retryPolicy.delayMs);
    this.retryTimer.unref();
  }

  private compactionDue(): boolean {
    if (this.compacting) return false;
    return this.journalBytes > Math.max(this.snapshotBytes, journalPolicy.minBytes);
  }

  /**
   * Switches appends to the next generation's journal and takes that generation's snapshot, in one
   * synchronous step: the snapshot holds exactly what the journals before it hold (requests' changes
   * not yet written are in neither: they go into the new journal). Its write runs in the background,
   * appends going on meanwhile.
   */
  private compact(): void {
    const generation = this.generation + 1;
    const text = this.source.snapshot(generation);
    this.generation = generation;
    this.journalBytes = 0;
    this.journalDurable = false;
    this.tornEnd = false;
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
      const handle = await stateIo.open(tmp, "w", PRIVATE_FILE_MODE);
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
      // A part of a line left by an earlier failure would make this line unreadable: cut it first.
      if (this.tornEnd) {
        await stateIo.truncate(journal, this.journalBytes);
        this.tornEnd = false;
      }
      const handle = await stateIo.open(journal, "a", PRIVATE_FILE_MODE);
      // From here on a failure may leave some of the line (or all of it, unflushed): it is cut off.
      this.tornEnd = true;
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
      this.tornEnd = false;
    } catch (err) {
      await this.cutTornEnd(journal);
      const code = (err as NodeJS.ErrnoException).code;
      throw new StateWriteError(`Cannot write emulator state journal ${journal}: ${reasonOf(err)}`, code);
    }
    this.journalBytes += bytes.length;
  }

  /**
   * Cuts the journal back to its last whole line after a failed append: the failed line never
   * counts, and the next append goes on in the same file. When even that fails, the next append
   * tries it again before writing.
   */
  private async cutTornEnd(journal: string): Promise<void> {
    if (!this.tornEnd) return;
    try {
      await stateIo.truncate(journal, this.journalBytes);
      this.tornEnd = false;
    } catch {
      // See above.
    }
  }
}
