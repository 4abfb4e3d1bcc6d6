import { createReadStream, statSync } from "node:fs";
import { rm, rmdir } from "node:fs/promises";
import * as path from "node:path";
import { ERROR_CODES } from "../../api/errors";
import { EXPORT_URL_TTL_MS, ExportLobbyHistoryRequestAsServed } from "../../api/schemas/lobbies";
import { authorizeGame } from "../auth";
import type { Handler } from "../core";
import { exportFile, writeLobbyExport } from "../exports";
import { ok, ServiceError } from "../http";
import { parseBody } from "../validation";

/**
 * `POST /cloud/games/{game_id}/matchmaker/lobbies/export-history`: writes the CSV, answers a
 * presigned URL. The body is read as the service reads it: any integers, no range check (a
 * backward or negative span exports nothing), unknown fields ignored (docs/service-contract.md §1, §6).
 */
export const exportLobbyHistory: Handler = async (core, ctx) => {
  const gameId = ctx.params.game as string;
  // The service's order (docs/service-contract.md §1): the token is valid, the body, then what the token may do.
  const principal = core.principal(ctx);
  const body = parseBody(ExportLobbyHistoryRequestAsServed, await ctx.json());
  authorizeGame(core.world, principal, gameId);
  const game = core.world.games.get(gameId);
  if (!game) throw new ServiceError(400, ERROR_CODES.gameNotFound, `Game ${gameId} was not found.`);
  const uploadId = core.nextUploadId();
  const file = exportFile(core.options.exportDir, uploadId);
  try {
    const rows = await writeLobbyExport(core.fixture, game, body.query_start, body.query_end, file).catch(
      (err: unknown) => {
        const refusal = exportNotWritten(err);
        // Whoever runs the emulator sees why, as for a state write that fails; the client sees the 503.
        if (refusal instanceof ServiceError)
          core.options.warn(
            `cannot write the lobby-history export ${file} (${(err as NodeJS.ErrnoException).code}): answered 503 ${ERROR_CODES.stateNotSaved}.`,
          );
        throw refusal;
      },
    );
    const createdAt = core.now();
    const expiresAt = createdAt + EXPORT_URL_TTL_MS;
    await core.addExport({
      uploadId,
      gameId,
      queryStart: body.query_start,
      queryEnd: body.query_end,
      createdAt,
      expiresAt,
      rows,
      file,
    });
    return ok({ url: core.signer.url(core.baseUrl, uploadId, expiresAt) });
  } catch (err) {
    // Not kept, so never served: its CSV goes too (the file, then its own directory).
    await rm(file, { force: true })
      .then(() => rmdir(path.dirname(file)))
      .catch(() => undefined);
    throw err;
  }
};

/**
 * The CSV could not be written (a full disk, a read-only mount): 503 `EMULATOR_STATE_NOT_SAVED`,
 * like a state write that fails, as nothing was made. Other errors stay internal.
 */
function exportNotWritten(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return err;
  return new ServiceError(
    503,
    ERROR_CODES.stateNotSaved,
    `The emulator could not write the export file (${code}), so it made none: try again later.`,
    undefined,
    { "retry-after": "1" },
  );
}

const denied = (message: string) => new ServiceError(403, ERROR_CODES.forbidden, message);

/** `GET /__exports/{upload_id}/export.csv?expires&signature`: the presigned download (no token). */
export const downloadExport: Handler = (core, ctx) => {
  const uploadId = ctx.params.upload as string;
  const expires = ctx.query.get("expires") ?? "";
  const signature = ctx.query.get("signature") ?? "";
  if (!core.signer.verify(uploadId, expires, signature)) {
    throw denied(
      "The request signature does not match: the URL was altered or is not one the service issued. (The emulator signs with a key of its own for each start without --state: a URL of an earlier start no longer works; keep them with --state FILE.)",
    );
  }
  if (Number(expires) <= core.now()) throw denied("The URL has expired: export the lobby history again.");
  const record = core.exports.get(uploadId);
  let size: number;
  try {
    if (!record) throw new Error("no record");
    size = statSync(record.file).size;
  } catch {
    throw new ServiceError(404, ERROR_CODES.notFound, "The export file no longer exists.");
  }
  const file = (record as { file: string }).file;
  return {
    kind: "stream",
    write(res) {
      res.writeHead(200, {
        "rvt-ray-id": ctx.rayId,
        "content-type": "text/csv; charset=utf-8",
        "content-length": String(size),
        "content-disposition": 'attachment; filename="export.csv"',
      });
      // 1 MiB reads instead of 64 KiB: a million-lobby export is ~280 MB, and at the default chunk
      // size the per-chunk work (and its garbage) limited the download rate (BENCHMARKS.md, bench 6).
      const stream = createReadStream(file, { highWaterMark: 1 << 20 });
      stream.on("error", () => res.destroy());
      stream.pipe(res);
    },
  };
};
