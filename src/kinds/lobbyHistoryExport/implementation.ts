/**
 * The LobbyHistoryExport kind: one implementation of an export's lifecycle, used by the dynamic shim
 * (`src/dynamic/generated/host/`) and by the provider plugin.
 */
import { GamehostError } from "../../api/errors";
import { EXPORT_URL_TTL_MS } from "../../api/schemas";
import { containsUnknown } from "../checks";
import { defineKind } from "../kind";
import {
  checkExportInputs,
  EXPORT_INPUT_FIELDS,
  ExportComputedOutputs,
  ExportExtras,
  ExportSpan,
  type LobbyHistoryExportInputs,
  type LobbyHistoryExportOutputs,
} from "./spec";
import { summarizeCsv } from "./summary";

/** The LobbyHistoryExport kind. */
export const lobbyHistoryExportKind = defineKind<LobbyHistoryExportInputs, LobbyHistoryExportOutputs>({
  name: "LobbyHistoryExport",
  description:
    "An export of a game's matchmaker lobby history for a time span, as a CSV file behind a presigned URL valid for one hour. Any input change exports again.",
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
    const replaces = EXPORT_INPUT_FIELDS.filter(
      (k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]) || containsUnknown(news[k]),
    );
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
    const summary = inputs.summarize ? await summarizeCsv(await client.openExport(url, o)) : {};
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
