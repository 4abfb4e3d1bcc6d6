import { z } from "zod";
import { Uint64 } from "./common";

/** Body of the lobby-history export: a span in epoch milliseconds, start before end. */
export const ExportLobbyHistoryRequest = z
  .strictObject({ query_start: Uint64, query_end: Uint64 })
  .refine((span) => span.query_start < span.query_end, {
    path: ["query_end"],
    error: "must be after the start of the span",
  });
export type ExportLobbyHistoryRequest = z.infer<typeof ExportLobbyHistoryRequest>;

export const ExportLobbyHistoryResponse = z.object({ url: z.string() });
export type ExportLobbyHistoryResponse = z.infer<typeof ExportLobbyHistoryResponse>;

/** How long an export URL stays valid. */
export const EXPORT_URL_TTL_MS = 3_600_000;

/** CSV columns of an export, in file order (service-facts §6). */
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
