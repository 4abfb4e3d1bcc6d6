import { z } from "zod";
import { Uint64 } from "./common";

/**
 * Body of the lobby-history export as the client sends it: a span in epoch milliseconds. The service
 * checks no range (an empty or backward span gives an empty export); a LobbyHistoryExport resource
 * refuses such a span in its own checks.
 */
export const ExportLobbyHistoryRequest = z.strictObject({ query_start: Uint64, query_end: Uint64 });
export type ExportLobbyHistoryRequest = z.infer<typeof ExportLobbyHistoryRequest>;

/**
 * The same body as the service reads it (docs/service-contract.md §1, §6): any integers, unknown fields ignored.
 */
export const ExportLobbyHistoryRequestAsServed = z.object({
  query_start: z.number().int({ error: "must be an integer" }),
  query_end: z.number().int({ error: "must be an integer" }),
});

export const ExportLobbyHistoryResponse = z.object({ url: z.string() });
export type ExportLobbyHistoryResponse = z.infer<typeof ExportLobbyHistoryResponse>;

/** How long an export URL stays valid. */
export const EXPORT_URL_TTL_MS = 3_600_000;

/** CSV columns of an export, in file order (docs/service-contract.md §6). */
export const LOBBY_HISTORY_COLUMNS = [
  "lobby_id",
  "namespace_id",
  "namespace_name",
  "region_id",
  "region_name",
  "tier_name",
  "version_id",
  "version_name",
  "lobby_group_id",
  "lobby_group_name",
  "start_ts",
  "stop_ts",
  "total_uptime_ms",
  "query_uptime_ms",
] as const;
