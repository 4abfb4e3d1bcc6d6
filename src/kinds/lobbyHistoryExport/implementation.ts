/**
 * The LobbyHistoryExport kind: one implementation of an export's lifecycle, used by the dynamic shim
 * (`src/dynamic/generated/host/`) and by the provider plugin.
 */
import type { GamehostClient } from "../../api/client";
import { GamehostDeadlineError, GamehostError } from "../../api/errors";
import { EXPORT_URL_TTL_MS } from "../../api/schemas";
import { containsUnknown } from "../checks";
import { defineKind, type OperationContext } from "../kind";
import {
  checkExportInputs,
  EXPORT_INPUT_FIELDS,
  ExportComputedOutputs,
  ExportExtras,
  ExportSpan,
  type LobbyHistoryExportInputs,
  type LobbyHistoryExportOutputs,
} from "./spec";
import { type CsvSummary, summarizeCsv } from "./summary";

/**
 * Reads the CSV once for `summarize`. On a face with no Cancel and no customTimeouts (the dynamic face)
 * the whole download must end within the call deadline: an endless CSV would otherwise be read until
 * the process is killed.
 */
async function summarize(ctx: OperationContext, client: GamehostClient, url: string): Promise<CsvSummary> {
  const bound = ctx.boundDownloads === true;
  try {
    return await summarizeCsv(
      await client.openExport(url, { ...(ctx.signal ? { signal: ctx.signal } : {}), wholeBody: bound }),
    );
  } catch (error) {
    if (bound && error instanceof GamehostDeadlineError) {
      error.message =
        `The lobby-history CSV download (summarize) did not finish within ${error.deadlineMs} ms, the deadline ` +
        "of a download on the dynamic provider (it has neither Cancel nor customTimeouts): raise " +
        "gamehost:callTimeoutMs (GAMEHOST_CALL_TIMEOUT_MS; 0 turns it off), set summarize to false, or use the " +
        `plugin's LobbyHistoryExport with customTimeouts. [GET ${error.path}: no complete answer within ${error.deadlineMs} ms]`;
    }
    throw error;
  }
}

/**
 * Whether the URL recorded in `olds` is within `renewMinutesBeforeExpiry` of its `expiresAt` at `now`. Only an
 * export that asks renews: the service keeps no record of an export, so every renewal is a new export job.
 */
export function renewalDue(
  olds: Partial<LobbyHistoryExportOutputs>,
  news: Partial<LobbyHistoryExportInputs>,
  now: number,
): boolean {
  const minutes = news.renewMinutesBeforeExpiry;
  const expiresAt = typeof olds.expiresAt === "string" ? Date.parse(olds.expiresAt) : Number.NaN;
  if (typeof minutes !== "number" || Number.isNaN(expiresAt)) return false;
  return now >= expiresAt - minutes * 60_000;
}

/** The LobbyHistoryExport kind. */
export const lobbyHistoryExportKind = defineKind<LobbyHistoryExportInputs, LobbyHistoryExportOutputs>({
  name: "LobbyHistoryExport",
  description:
    "An export of a game's matchmaker lobby history for a time span, as a CSV file behind a presigned URL valid for one hour. Any input change exports again. The service keeps no record of an export, so `pulumi refresh` and `pulumi up` keep a URL that has expired (see `expiresAt`) unless `renewMinutesBeforeExpiry` is set: to export again, set it, change one of its `triggers`, or run `pulumi up --replace <its urn>`.",
  hostSubpath: "lobby-history-export",
  inputs: [ExportExtras, ExportSpan],
  computed: ExportComputedOutputs,
  secretOutputs: ["url"],

  check(_olds, news) {
    const { inputs, failures } = checkExportInputs(news);
    // With failures the engine shows them and never runs the kind on these inputs.
    return { inputs: inputs as LobbyHistoryExportInputs, failures };
  },

  diff(_id, olds, news) {
    // An export is a snapshot: any input change (triggers included) exports again.
    const changed = EXPORT_INPUT_FIELDS.filter(
      (k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]) || containsUnknown(news[k]),
    );
    // A renewal is named by the output that made it due, so preview shows why a URL is exported again.
    const replaces = changed.length === 0 && renewalDue(olds, news, Date.now()) ? ["expiresAt"] : changed;
    return {
      changes: replaces.length > 0,
      replaces: [...replaces],
      diffs: [...replaces],
      detailedDiff: Object.fromEntries(replaces.map((k) => [k, "update-replace" as const])),
      deleteBeforeReplace: false,
    };
  },

  async create(ctx, inputs) {
    const client = ctx.client();
    const o = ctx.signal ? { signal: ctx.signal } : {};
    const exportedAt = Date.now();
    const { url } = await client.exportLobbyHistory(
      inputs.gameId,
      { query_start: inputs.queryStart, query_end: inputs.queryEnd },
      o,
    );
    const summary = inputs.summarize ? await summarize(ctx, client, url) : {};
    return {
      id: `${inputs.gameId}/${inputs.queryStart}-${inputs.queryEnd}/${exportedAt}`,
      outputs: {
        ...inputs,
        url,
        exportedAt: new Date(exportedAt).toISOString(),
        expiresAt: new Date(exportedAt + EXPORT_URL_TTL_MS).toISOString(),
        ...summary,
      },
    };
  },

  async read(_ctx, id, recorded) {
    // The service keeps no export record to read back: the state is the truth.
    if (!recorded) {
      throw new GamehostError(
        `LobbyHistoryExport ${id} cannot be imported or read by id: the service keeps no record of an export. Declare the export and run \`pulumi up\` to make a new one.`,
      );
    }
    return { id, outputs: recorded.outputs, inputs: recorded.inputs };
  },
});
