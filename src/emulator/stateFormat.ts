import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { describeIssues } from "../api/issues";
import { Server } from "../api/schemas/servers";
import { toFieldIssues } from "../api/validate";
import { PACKAGE_VERSION } from "../version";
import type { ExportRecord } from "./exports";
import type { ServerRecord } from "./servers";

// The emulator's state on disk (docs/reliability.md, "The emulator's state"): a snapshot, `FILE`, and
// beside it the journals `FILE.journal.<generation>` of the changes made since. This module reads
// them and spells their text; stateFile.ts writes them.

/** The state format this version reads and writes (`version` in the snapshot). */
const STATE_FORMAT = 1;

const PersistedServer = z.object({
  server: Server,
  gameId: z.string(),
  seq: z.number().int(),
  killAt: z.number().int().optional(),
});

const PersistedExport = z.object({
  uploadId: z.string(),
  gameId: z.string(),
  queryStart: z.number(),
  queryEnd: z.number(),
  createdAt: z.number(),
  expiresAt: z.number(),
  rows: z.number(),
  file: z.string(),
});

const Snapshot = z.object({
  version: z.literal(STATE_FORMAT),
  /** Which journals follow it (`FILE.journal.<generation>` and later); absent in files of earlier versions. */
  generation: z.number().int().min(0).default(0),
  /** Export URL signing secret, kept so presigned URLs outlive a restart. */
  secret: z.string().min(32),
  servers: z.array(PersistedServer),
  exports: z.array(PersistedExport),
});

/**
 * One journal line: the changes of one write, in order, each the whole record as it then was or the
 * id of a dropped one. A line is written whole or is the torn end of the journal, so a write's
 * changes are replayed all together or not at all.
 */
const JournalLine = z.array(
  z.union([
    z.strictObject({ server: PersistedServer }),
    z.strictObject({ dropServer: z.string() }),
    z.strictObject({ export: PersistedExport }),
    z.strictObject({ dropExport: z.string() }),
  ]),
);

/** What the state on disk holds: servers, export records and the signing secret. */
export interface PersistedState {
  version: 1;
  secret: string;
  servers: ServerRecord[];
  exports: ExportRecord[];
}

/** The state as loaded, with the highest generation found (the next snapshot's is above it). */
export interface LoadedState extends PersistedState {
  generation: number;
  /**
   * The newest journal replayed, with its bytes up to its last whole line (a torn end excluded):
   * where appends may go on when no new snapshot can be written at start (a full disk).
   */
  lastJournal?: { file: string; generation: number; wholeBytes: number };
}

/**
 * A snapshot as pieces of its JSON text, in order: the pieces of unchanged servers are kept from one
 * write to the next, so taking a snapshot copies references instead of serializing every server.
 */
export type StateText = readonly string[];

/** The JSON text of a snapshot whose servers are already serialized, one string each. */
export function snapshotText(
  secret: string,
  generation: number,
  servers: Iterable<string>,
  exports: readonly ExportRecord[],
): StateText {
  const pieces = [`{"version":1,"generation":${generation},"secret":${JSON.stringify(secret)},"servers":[`];
  let first = true;
  for (const server of servers) {
    pieces.push(first ? server : `,${server}`);
    first = false;
  }
  pieces.push(`],"exports":${JSON.stringify(exports)}}\n`);
  return pieces;
}

/** A journal change: a server as it is now, given as its serialized record. */
export const serverChange = (recordJson: string): string => `{"server":${recordJson}}`;
/** A journal change: a server dropped after its retention. */
export const dropServerChange = (id: string): string => `{"dropServer":${JSON.stringify(id)}}`;
/** A journal change: an export record as it is now. */
export const exportChange = (record: ExportRecord): string => `{"export":${JSON.stringify(record)}}`;
/** A journal change: an export record dropped once its URL expired. */
export const dropExportChange = (uploadId: string): string => `{"dropExport":${JSON.stringify(uploadId)}}`;

/** The journal line of one write's changes (from the functions above), newline included. */
export function journalLine(changes: readonly string[]): string {
  return `[${changes.join(",")}]\n`;
}

/** The journal of the changes made after snapshot `generation` of `file`. */
export function journalFileOf(file: string, generation: number): string {
  return `${file}.journal.${generation}`;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Files beside `file` named `<its name><suffix>`, with what the suffix pattern captures. */
function besides(
  file: string,
  suffix: string,
): { file: string; name: string; captured: string; isDir: boolean }[] {
  const pattern = new RegExp(`^${escapeRegex(path.basename(file))}${suffix}$`);
  const dir = path.dirname(file);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const match = pattern.exec(entry.name);
    return match
      ? [
          {
            file: path.join(dir, entry.name),
            name: entry.name,
            captured: match[1] ?? "",
            isDir: entry.isDirectory(),
          },
        ]
      : [];
  });
}

/**
 * The generation a journal's name spells: a whole number from 0 to 2^53 - 1 in plain decimal, as
 * the emulator writes it. Anything else (`1e+23`, `007`, a number past what a double holds exactly)
 * is no journal of the emulator's, and guessing its place in the order could replay it wrongly.
 */
function generationOf(text: string): number | undefined {
  if (!/^(0|[1-9]\d*)$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The journals beside `file`, oldest generation first. Throws naming the entry when one is named like
 * a journal but cannot be one: a directory, or a generation that is not a safe whole number.
 */
export function journalsOf(file: string): { file: string; generation: number }[] {
  return besides(file, "\\.journal\\.(\\d[\\de+.]*)")
    .map((entry) => {
      const generation = generationOf(entry.captured);
      if (generation === undefined) {
        throw new Error(
          `Unexpected file ${entry.file} beside the emulator state file ${file}: a journal's generation is a whole number from 0 to ${Number.MAX_SAFE_INTEGER} without leading zeros, not ${JSON.stringify(entry.captured)}; the emulator did not write it. Move it away, or pass another state file path (--state).`,
        );
      }
      if (entry.isDir) {
        throw new Error(
          `Unexpected directory ${entry.file} beside the emulator state file ${file}: the emulator keeps its journals there as files. Move it away, or pass another state file path (--state).`,
        );
      }
      return { file: entry.file, generation };
    })
    .sort((a, b) => a.generation - b.generation);
}

/** The temporary file a process writes a snapshot to before renaming it over `file`. */
export function tempFileOf(file: string): string {
  return `${file}.${process.pid}.tmp`;
}

/** `FILE.<pid>.tmp` files a killed emulator may have left beside `file`. */
export function leftoverTempFiles(file: string): string[] {
  return besides(file, "\\.(\\d+)\\.tmp")
    .filter((entry) => !entry.isDir)
    .map(({ file: tmp }) => tmp);
}

/**
 * The snapshot, or `undefined` for an empty file: one a user or script made for the emulator to fill
 * (`--state "$(mktemp)"`, `touch state.json`). The emulator never leaves one (it writes a snapshot to a
 * temporary file and renames it), so an empty file beside journals is damage, and refused.
 */
function readSnapshot(file: string): z.infer<typeof Snapshot> | undefined {
  let text: string;
  let raw: unknown;
  try {
    text = readFileSync(file, "utf8");
    if (text.trim() === "") {
      if (journalsOf(file).length === 0) return undefined;
      throw new Error(
        "it is empty, but journals of changes lie beside it: restore the file, or move it and its journals away to start afresh",
      );
    }
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`Cannot read emulator state file ${file}: ${(err as Error).message}`);
  }
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > STATE_FORMAT) {
    throw new Error(
      `Cannot read emulator state file ${file}: a newer pulumi-gamehost wrote it (state format ${version}; this one, ${PACKAGE_VERSION}, reads format ${STATE_FORMAT}). Run the newer version, or pass another state file path (--state).`,
    );
  }
  const parsed = Snapshot.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`Invalid emulator state file ${file}: ${describeIssues(toFieldIssues(parsed.error))}`);
  }
  return parsed.data;
}

/** One line's changes, or why they cannot be read. */
function parseLine(line: string): { changes: z.infer<typeof JournalLine> } | { reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return { reason: (err as Error).message };
  }
  const parsed = JournalLine.safeParse(raw);
  return parsed.success
    ? { changes: parsed.data }
    : { reason: describeIssues(toFieldIssues(parsed.error)) || "not a list of changes" };
}

/**
 * Applies a journal's changes in order. A write cut off by a kill leaves a last line without its
 * newline, and that write was never acknowledged: it is skipped with a warning. Any other line that
 * cannot be read, the last one included when it is complete, means the file was damaged or written
 * by something else, and is refused naming the file and line.
 */
function replay(
  journal: string,
  servers: Map<string, ServerRecord>,
  exports: Map<string, ExportRecord>,
  warn: (message: string) => void,
): number {
  let text: string;
  try {
    text = readFileSync(journal, "utf8");
  } catch (err) {
    throw new Error(`Cannot read emulator state journal ${journal}: ${(err as Error).message}`);
  }
  if (text === "") return 0;
  const torn = !text.endsWith("\n");
  const lines = (torn ? text : text.slice(0, -1)).split("\n");
  lines.forEach((line, i) => {
    if (torn && i === lines.length - 1) {
      warn(
        `skipped the last line of ${journal}: a write cut off by a crash (no newline), never acknowledged.`,
      );
      return;
    }
    const read = parseLine(line);
    if ("reason" in read) {
      throw new Error(
        `Corrupt emulator state journal ${journal}, line ${i + 1} of ${lines.length}: ${read.reason}. ` +
          "Only a last line without its newline can be cut short by a crash: restore the file, or delete " +
          "it to start without the changes it holds.",
      );
    }
    for (const change of read.changes) {
      if ("server" in change) servers.set(change.server.server.id, change.server as ServerRecord);
      else if ("dropServer" in change) servers.delete(change.dropServer);
      else if ("export" in change) exports.set(change.export.uploadId, change.export);
      else exports.delete(change.dropExport);
    }
  });
  return torn ? Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)) : Buffer.byteLength(text);
}

/**
 * Reads the state: the snapshot `file`, then each journal of its generation or later in order (a
 * compaction cut short leaves two). `undefined` when there is no snapshot (journals without one are
 * leftovers, removed at start). Throws naming the file when the snapshot or a journal is corrupt.
 */
export function readState(
  file: string,
  warn: (message: string) => void = () => undefined,
): LoadedState | undefined {
  if (!existsSync(file)) return undefined;
  const snapshot = readSnapshot(file);
  if (snapshot === undefined) return undefined;
  const servers = new Map<string, ServerRecord>();
  for (const record of snapshot.servers) servers.set(record.server.id, record as ServerRecord);
  const exports = new Map<string, ExportRecord>();
  for (const record of snapshot.exports) exports.set(record.uploadId, record);
  let generation = snapshot.generation;
  let lastJournal: LoadedState["lastJournal"];
  for (const journal of journalsOf(file)) {
    // Older journals are folded into the snapshot already: removed at start.
    if (journal.generation < snapshot.generation) continue;
    const wholeBytes = replay(journal.file, servers, exports, warn);
    generation = journal.generation;
    lastJournal = { ...journal, wholeBytes };
  }
  return {
    version: 1,
    secret: snapshot.secret,
    generation,
    ...(lastJournal ? { lastJournal } : {}),
    servers: [...servers.values()],
    exports: [...exports.values()],
  };
}
