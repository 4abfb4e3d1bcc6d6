import { createHmac, timingSafeEqual } from "node:crypto";
import { createWriteStream } from "node:fs";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import { LOBBY_HISTORY_COLUMNS } from "../api/schemas/lobbies";
import type { Fixture } from "./fixture";
import { inSpan, type LobbyRow, lobbiesOf, lobbyRow, spanHoldsNothing } from "./lobbies";
import { makeDirectory } from "./makeDirectory";
import { PRIVATE_FILE_MODE } from "./privateFiles";
import type { Game } from "./world";

/** An export that was written: where its file is and until when its URL is valid. */
export interface ExportRecord {
  uploadId: string;
  gameId: string;
  queryStart: number;
  queryEnd: number;
  createdAt: number;
  expiresAt: number;
  rows: number;
  file: string;
}

/** Path of an export's CSV under the export directory (mirrors the URL's `{upload_id}/export.csv`). */
export function exportFile(exportDir: string, uploadId: string): string {
  return path.join(exportDir, uploadId, "export.csv");
}

/**
 * Streams the span's lobbies of a game, newest first, into a CSV file. Rows are produced lazily
 * and piped with back-pressure, so memory stays flat however many lobbies there are. The header
 * is written with the first row: an export with no lobby is an empty file (docs/service-contract.md §6).
 */
export async function writeLobbyExport(
  fixture: Fixture,
  game: Game,
  start: number,
  end: number,
  file: string,
): Promise<number> {
  // Private, as a mkdtemp folder is: the temporary export folder itself is made here, by the first export.
  makeDirectory(path.dirname(file), 0o700);
  let rows = 0;
  function* source(): Generator<LobbyRow | typeof LOBBY_HISTORY_COLUMNS> {
    // Such a span needs no look at the lobbies: skipping a million generated ones takes a while.
    if (spanHoldsNothing(start, end)) return;
    for (const lobby of lobbiesOf(fixture, game)) {
      if (!inSpan(lobby, start, end)) continue;
      if (rows === 0) yield LOBBY_HISTORY_COLUMNS;
      rows++;
      yield lobbyRow(game, lobby, start, end);
    }
  }
  await pipeline(
    Readable.from(source()),
    // No header of its own: csv-stringify would write one even for no rows.
    stringify({ header: false }),
    // Large buffers: far fewer write syscalls for million-row files; for the user alone (privateFiles.ts).
    createWriteStream(file, { highWaterMark: 1024 * 1024, mode: PRIVATE_FILE_MODE }),
  );
  return rows;
}

/** Presigns export URLs with an HMAC-SHA256 over the upload id and expiry. */
export class ExportSigner {
  constructor(private readonly secret: string) {}

  signature(uploadId: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${uploadId}\n${expires}`).digest("hex");
  }

  url(baseUrl: string, uploadId: string, expires: number): string {
    return `${baseUrl}/__exports/${uploadId}/export.csv?expires=${expires}&signature=${this.signature(uploadId, expires)}`;
  }

  /** Constant-time check of a presented signature. */
  verify(uploadId: string, expires: string, signature: string): boolean {
    if (!/^\d{1,16}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
    const expected = Buffer.from(this.signature(uploadId, Number(expires)), "hex");
    return timingSafeEqual(expected, Buffer.from(signature, "hex"));
  }
}
