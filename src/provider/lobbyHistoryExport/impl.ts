/**
 * The LobbyHistoryExport kind as the dynamic provider host calls it, loaded at call time by the
 * serialized shim through `pulumi-gamehost/provider/lobby-history-export`.
 */
import type { CheckFailure } from "../checks";
import { dynamicContext } from "../settings";
import { lobbyHistoryExportKind } from "./kind";
import type { LobbyHistoryExportInputs, LobbyHistoryExportOutputs } from "./spec";

export { configure } from "../settings";

export async function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
  const { inputs, failures } = lobbyHistoryExportKind.check(olds, news, {});
  return { inputs: inputs as unknown as Record<string, unknown>, failures };
}

export async function diff(
  id: string,
  olds: LobbyHistoryExportOutputs,
  news: LobbyHistoryExportInputs,
): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }> {
  const { changes, replaces, deleteBeforeReplace } = lobbyHistoryExportKind.diff(id, olds, news);
  return { changes, replaces, deleteBeforeReplace };
}

export async function create(
  inputs: LobbyHistoryExportInputs,
): Promise<{ id: string; outs: LobbyHistoryExportOutputs }> {
  const { id, outputs } = await lobbyHistoryExportKind.create(dynamicContext(), inputs);
  return { id, outs: outputs };
}

export async function read(
  id: string,
  props: LobbyHistoryExportOutputs,
): Promise<{ id: string; props: LobbyHistoryExportOutputs }> {
  return { id, props };
}

/** Nothing to delete remotely: the export file expires by itself. */
export async function deleteExport(): Promise<void> {}

export { deleteExport as delete };
