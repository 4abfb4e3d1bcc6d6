import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import * as path from "node:path";
import { z } from "zod";
import { describeIssues } from "../api/issues";
import { Server } from "../api/schemas/servers";
import { toFieldIssues } from "../api/validate";
import type { ExportRecord } from "./exports";
import type { ServerRecord } from "./servers";

const PersistedState = z.object({
  version: z.literal(1),
  /** Export URL signing secret, kept so presigned URLs outlive a restart. */
  secret: z.string().min(32),
  servers: z.array(
    z.object({
      server: Server,
      gameId: z.string(),
      seq: z.number().int(),
      killAt: z.number().int().optional(),
    }),
  ),
  exports: z.array(
    z.object({
      uploadId: z.string(),
      gameId: z.string(),
      queryStart: z.number(),
      queryEnd: z.number(),
      createdAt: z.number(),
      expiresAt: z.number(),
      rows: z.number(),
      file: z.string(),
    }),
  ),
});

/** What a state file holds: servers, export records and the signing secret. */
export interface PersistedState {
  version: 1;
  secret: string;
  servers: ServerRecord[];
  exports: ExportRecord[];
}

/**
 * The state as pieces of its JSON text, in order: the pieces of unchanged servers are kept from one
 * write to the next, so taking a snapshot copies references instead of serializing every server.
 */
export type StateText = readonly string[];

/** The JSON text of a state whose servers are already serialized, one string each. */
export function stateText(
  secret: string,
  servers: Iterable<string>,
  exports: readonly ExportRecord[],
): StateText {
  const pieces = [`{"version":1,"secret":${JSON.stringify(secret)},"servers":[`];
  let first = true;
  for (const server of servers) {
    pieces.push(first ? server : `,${server}`);
    first = false;
  }
  pieces.push(`],"exports":${JSON.stringify(exports)}}\n`);
  return pieces;
}

/**
 * The file operations of a background write, in one object so a test can hold a write in flight
 * (and see that requests are answered meanwhile). Not part of the public API.
 */
export const stateIo = { open, rename };

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

/** The temporary file a process writes before renaming it over the state file. */
function tempFileOf(file: string): string {
  return `${file}.${process.pid}.tmp`;
}

/** `state.json.<pid>.tmp` files a killed emulator may have left beside `file`. */
function leftoverTempFiles(file: string): string[] {
  const base = path.basename(file);
  const dir = path.dirname(file);
  const pattern = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.\\d+\\.tmp$`);
  return readdirSync(dir)
    .filter((name) => pattern.test(name))
    .map((name) => path.join(dir, name));
}

/** The reason of a file-system error, e.g. `EACCES: permission denied`, without the path repeated. */
function reasonOf(err: unknown): string {
  const { code, message } = err as NodeJS.ErrnoException;
  return code ? `${code}: ${message.split(",")[0]?.replace(`${code}: `, "")}` : String(message);
}

/**
 * The state file of one emulator: read at start, then written atomically after every change.
 *
 * Each write goes to a temporary file beside the state file, is flushed to disk (fsync) and renamed
 * over it, so a crash at any point leaves the previous or the new state, never a torn file. Writes
 * run in the background, one at a time: changes made while one is in flight are written together by
 * the next one, from the state as it is when that write starts. {@link save} resolves once a write
 * holding the caller's change is on disk, so a request answered after it can never be lost.
 */
export class StateFile {
  private writing = false;
  /** Callers waiting for the next write (it starts when the one in flight ends). */
  private waiting: { resolve: () => void; reject: (err: unknown) => void }[] | undefined;
  private idleWaiters: (() => void)[] = [];

  /**
   * Checks that `file` can be kept: its directory exists, it is not a directory, and temporary files
   * left by a killed emulator are removed. Throws naming the path and the fix.
   */
  constructor(
    readonly file: string,
    private readonly snapshot: () => StateText,
  ) {
    const dir = path.dirname(path.resolve(file));
    const fix = "create it, or pass another state file path (--state)";
    let isDir: boolean;
    try {
      isDir = statSync(dir).isDirectory();
    } catch (err) {
      throw new Error(
        `Cannot keep emulator state in ${file}: directory ${dir} ${
          (err as NodeJS.ErrnoException).code === "ENOENT"
            ? "does not exist"
            : `cannot be read (${reasonOf(err)})`
        }; ${fix}.`,
      );
    }
    if (!isDir) throw new Error(`Cannot keep emulator state in ${file}: ${dir} is not a directory; ${fix}.`);
    if (existsSync(file) && statSync(file).isDirectory()) {
      throw new Error(
        `Cannot keep emulator state in ${file}: it is a directory; pass a file path (--state).`,
      );
    }
    for (const leftover of leftoverTempFiles(file)) rmSync(leftover, { force: true });
  }

  /** Reads the state file; `undefined` when it does not exist yet. Throws naming the file when it is corrupt. */
  load(): PersistedState | undefined {
    if (!existsSync(this.file)) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, "utf8"));
    } catch (err) {
      throw new Error(`Cannot read emulator state file ${this.file}: ${(err as Error).message}`);
    }
    const parsed = PersistedState.safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        `Invalid emulator state file ${this.file}: ${describeIssues(toFieldIssues(parsed.error))}`,
      );
    }
    return parsed.data as PersistedState;
  }

  /**
   * Writes the state now, synchronously: at start, before any request, so a state file that cannot
   * be written stops the emulator from starting instead of failing its first create.
   */
  writeNow(): void {
    const tmp = tempFileOf(this.file);
    try {
      const fd = openSync(tmp, "w");
      try {
        for (const chunk of chunks(this.snapshot())) writeSync(fd, chunk);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw new Error(
        `Cannot write emulator state file ${this.file} (${reasonOf(err)}): make ${path.dirname(
          path.resolve(this.file),
        )} writable, or pass another state file path (--state).`,
      );
    }
  }

  /** Resolves once the state as it is now (or later) is on disk; rejects when that write fails. */
  save(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting ??= [];
      this.waiting.push({ resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  /** Resolves when no write is in flight or waiting. */
  idle(): Promise<void> {
    if (!this.writing) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.waiting) {
      const batch = this.waiting;
      this.waiting = undefined;
      try {
        await this.write(this.snapshot());
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.writing = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async write(text: StateText): Promise<void> {
    const tmp = tempFileOf(this.file);
    try {
      const handle = await stateIo.open(tmp, "w");
      try {
        // Chunk by chunk, each an asynchronous write: requests are served between them.
        for (const chunk of chunks(text)) {
          const bytes = Buffer.from(chunk);
          for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at)).bytesWritten;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await stateIo.rename(tmp, this.file);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw new Error(`Cannot write emulator state file ${this.file}: ${reasonOf(err)}`);
    }
  }
}
