/**
 * LobbyHistoryExport provider implementation, loaded at call time by the serialized shim through
 * `pulumi-gamehost/provider/lobby-history-export`.
 */
import { EXPORT_URL_TTL_MS } from "../../api/schemas";
import { type CheckFailure, containsUnknown } from "../checks";
import { providerClient } from "../settings";
import {
  checkExportInputs,
  EXPORT_INPUT_FIELDS,
  type LobbyHistoryExportInputs,
  type LobbyHistoryExportOutputs,
} from "./spec";
import { summarizeCsv } from "./summary";

export { configure } from "../settings";

export async function check(
  _olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
  return checkExportInputs(news);
}

export async function diff(
  _id: string,
  olds: LobbyHistoryExportOutputs,
  news: LobbyHistoryExportInputs,
): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }> {
  // An export is a snapshot: any input change (triggers included) exports again.
  const replaces = EXPORT_INPUT_FIELDS.filter(
    (k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]) || containsUnknown(news[k]),
  );
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
}

export async function create(
  inputs: LobbyHistoryExportInputs,
): Promise<{ id: string; outs: LobbyHistoryExportOutputs }> {
  const client = providerClient();
  const exportedAt = Date.now();
  const { url } = await client.exportLobbyHistory(inputs.gameId, {
    query_start: inputs.queryStart,
    query_end: inputs.queryEnd,
  });
  const summary = inputs.summarize ? await summarizeCsv(await client.openExport(url)) : {};
  const id = `${inputs.gameId}/${inputs.queryStart}-${inputs.queryEnd}/${exportedAt}`;
  return {
    id,
    outs: {
      ...inputs,
      url,
      exportedAt: new Date(exportedAt).toISOString(),
      expiresAt: new Date(exportedAt + EXPORT_URL_TTL_MS).toISOString(),
      ...summary,
    },
  };
}

export async function read(
  id: string,
  props: LobbyHistoryExportOutputs,
): Promise<{ id: string; props: LobbyHistoryExportOutputs }> {
  // The service keeps no export record to read back: the state is the truth.
  return { id, props };
}

/** Nothing to delete remotely: the export file expires by itself. */
export async function deleteExport(): Promise<void> {}

export { deleteExport as delete };
