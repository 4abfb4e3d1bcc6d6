import { ERROR_CODES } from "../api/errors";
import type { ExportRecord } from "./exports";
import { ServiceError } from "./http";
import type { ServerRecord } from "./servers";
import { StateFile, StateWriteError } from "./stateFile";
import {
  dropExportChange,
  dropServerChange,
  exportChange,
  type LoadedState,
  type StateText,
  serverChange,
  snapshotText,
} from "./stateFormat";

/** What is kept: the emulator's live records, and the secret that signs export URLs. */
export interface KeptData {
  readonly servers: ReadonlyMap<string, ServerRecord>;
  readonly exports: ReadonlyMap<string, ExportRecord>;
  secret(): string;
}

/**
 * 503 `EMULATOR_STATE_NOT_SAVED`: the state file could not be written (a full disk, a read-only
 * mount), so the request changed nothing; worth another try (docs/service-contract.md §2).
 */
function notSaved(err: unknown): never {
  if (!(err instanceof StateWriteError)) throw err;
  throw new ServiceError(
    503,
    ERROR_CODES.stateNotSaved,
    `The emulator could not write this change to its state file (${err.code ?? "write failed"}), so it made none: try again later.`,
    undefined,
    { "retry-after": "1" },
  );
}

/**
 * Keeping the emulator's records in its state file (`--state`, see {@link StateFile}), or nowhere:
 * which records changed since the last write, each server's JSON until it changes again, and when a
 * request's change takes effect (once written). Without a state file every change takes effect at once.
 */
export class StateKeeping {
  private readonly file: StateFile | undefined;
  /** Each server's JSON in the state file, kept until the server changes. */
  private readonly serverText = new Map<string, string>();
  /** Servers and exports changed since the last journal write, by id (only with a state file). */
  private readonly dirtyServers = new Set<string>();
  private readonly dirtyExports = new Set<string>();

  /** Takes the state file's lock (see {@link StateFile}); throws naming the path when it cannot be kept. */
  constructor(
    stateFile: string | undefined,
    private readonly data: KeptData,
    warn: (message: string) => void,
  ) {
    this.file = stateFile
      ? new StateFile(
          stateFile,
          { changes: () => this.takeChanges(), snapshot: (generation) => this.snapshot(generation) },
          warn,
        )
      : undefined;
  }

  /** The state on disk, if any (see {@link StateFile.load}). */
  load(): LoadedState | undefined {
    return this.file?.load();
  }

  /** The start's snapshot (see {@link StateFile.writeNow}). */
  writeNow(): void {
    this.file?.writeNow();
  }

  /** A server was added, changed or dropped: its old JSON is stale and its id goes into the next write. */
  serverChanged(id: string): void {
    this.serverText.delete(id);
    if (this.file) this.dirtyServers.add(id);
  }

  /** An export record was added or dropped: its id goes into the next write. */
  exportChanged(uploadId: string): void {
    if (this.file) this.dirtyExports.add(uploadId);
  }

  /** A server's JSON as a request's change wrote it: reused by snapshots until the server changes. */
  written(id: string, text: string | undefined): void {
    if (text === undefined) this.serverText.delete(id);
    else this.serverText.set(id, text);
  }

  /**
   * Writes the emulator's own changes (already in effect); resolves once they are on disk, rejects
   * with a 503 when that write fails (they are then tried again with the next one).
   */
  save(): Promise<void> {
    return this.file?.save().catch(notSaved) ?? Promise.resolve();
  }

  /**
   * A request's change: `apply` puts it in effect once `changes` (its journal changes, taken when
   * the write starts) are on disk, so nobody sees it before it is kept; at once without a state
   * file. When the write fails nothing is applied or written later, and the promise rejects with
   * 503 `EMULATOR_STATE_NOT_SAVED`.
   */
  commit(changes: () => string[], apply: () => void): Promise<void> {
    if (!this.file) {
      apply();
      return Promise.resolve();
    }
    return this.file.commit({ changes, apply }).catch(notSaved);
  }

  /** Resolves when every state write started so far has ended. */
  settled(): Promise<void> {
    return this.file?.idle() ?? Promise.resolve();
  }

  /** Releases the state file (its lock); after {@link settled}. */
  close(): void {
    this.file?.close();
  }

  /** A server's JSON, serialized once per change (journal writes and snapshots share it). */
  private textOf(record: ServerRecord): string {
    let text = this.serverText.get(record.server.id);
    if (text === undefined) {
      text = JSON.stringify(record);
      this.serverText.set(record.server.id, text);
    }
    return text;
  }

  /** The changes since the last call, as journal changes: each changed record as it is now. */
  private takeChanges(): string[] {
    const changes: string[] = [];
    for (const id of this.dirtyServers) {
      const record = this.data.servers.get(id);
      changes.push(record ? serverChange(this.textOf(record)) : dropServerChange(id));
    }
    for (const id of this.dirtyExports) {
      const record = this.data.exports.get(id);
      changes.push(record ? exportChange(record) : dropExportChange(id));
    }
    this.dirtyServers.clear();
    this.dirtyExports.clear();
    return changes;
  }

  /** A snapshot of the state: unchanged servers reuse their JSON from earlier writes. */
  private snapshot(generation: number): StateText {
    const textOf = (record: ServerRecord) => this.textOf(record);
    function* servers(records: Iterable<ServerRecord>): Generator<string> {
      for (const record of records) yield textOf(record);
    }
    return snapshotText(this.data.secret(), generation, servers(this.data.servers.values()), [
      ...this.data.exports.values(),
    ]);
  }
}
