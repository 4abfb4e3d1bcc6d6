import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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

/** Reads a state file; `undefined` when it does not exist yet. Throws naming the file when it is corrupt. */
export function loadState(file: string): PersistedState | undefined {
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`Cannot read emulator state file ${file}: ${(err as Error).message}`);
  }
  const parsed = PersistedState.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`Invalid emulator state file ${file}: ${describeIssues(toFieldIssues(parsed.error))}`);
  }
  return parsed.data as PersistedState;
}

/**
 * Writes the state atomically: a temporary file beside it, then a rename, so a crash never leaves
 * a half-written file. Synchronous, so writes of successive mutations cannot interleave.
 */
export function saveState(file: string, state: PersistedState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`);
  renameSync(tmp, file);
}
