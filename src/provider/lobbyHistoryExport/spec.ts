import { z } from "zod";
import { ExportLobbyHistoryRequest, Rfc3339, Uint64, Uuid } from "../../api/schemas";
import { type CheckFailure, checkWire, UNKNOWN } from "../checks";

/** Checked inputs of a LobbyHistoryExport: times normalized to epoch milliseconds. */
export interface LobbyHistoryExportInputs {
  gameId: string;
  queryStart: number;
  queryEnd: number;
  triggers?: Record<string, unknown>;
  summarize?: boolean;
}

/** Outputs: the inputs echoed, plus the export's URL and times, and the CSV summary if asked. */
export interface LobbyHistoryExportOutputs extends LobbyHistoryExportInputs {
  url: string;
  exportedAt: string;
  expiresAt: string;
  rowCount?: number;
  byteLength?: number;
  sha256?: string;
}

export const EXPORT_INPUT_FIELDS = ["gameId", "queryStart", "queryEnd", "triggers", "summarize"] as const;

/**
 * A span bound: an RFC 3339 string or integer epoch milliseconds (the resource class turns a `Date`
 * into its ISO string before it reaches the provider, since a `Date` does not survive serialization).
 */
const TimeInput = z.union([Uint64, Rfc3339], {
  error: "must be a Date, an RFC 3339 timestamp or integer epoch milliseconds",
});

const Extras = z.strictObject({
  gameId: Uuid,
  triggers: z.record(z.string(), z.unknown()).optional(),
  summarize: z.boolean().optional(),
});

/** Epoch milliseconds of a checked time input; non-times pass through for the schema to reject. */
export function toEpochMs(value: unknown): unknown {
  if (typeof value === "string" && value !== UNKNOWN && Rfc3339.safeParse(value).success)
    return Date.parse(value);
  return value;
}

/** Validates raw inputs; failures name camelCase properties; returns the normalized inputs. */
export function checkExportInputs(news: Record<string, unknown>): {
  inputs: Record<string, unknown>;
  failures: CheckFailure[];
} {
  const { gameId, queryStart, queryEnd, triggers, summarize, __provider, ...unknownKeys } = news;
  const inputs: Record<string, unknown> = {
    ...news,
    queryStart: toEpochMs(queryStart),
    queryEnd: toEpochMs(queryEnd),
  };
  const failures = [
    ...checkWire(TimeInput, queryStart, queryStart, []).map((f) => ({ ...f, property: "queryStart" })),
    ...checkWire(TimeInput, queryEnd, queryEnd, []).map((f) => ({ ...f, property: "queryEnd" })),
    ...checkWire(Extras, { gameId, triggers, summarize, ...unknownKeys }, news, [], "camelCase"),
  ];
  if (failures.length === 0) {
    failures.push(
      ...checkWire(
        ExportLobbyHistoryRequest,
        { query_start: inputs.queryStart, query_end: inputs.queryEnd },
        { queryStart, queryEnd },
        [],
      ),
    );
  }
  // The service accepts any span and answers an empty file for one that does not move forward:
  // for a resource that is a mistake, named before any request.
  const [start, end] = [inputs.queryStart, inputs.queryEnd];
  if (failures.length === 0 && typeof start === "number" && typeof end === "number" && start >= end) {
    failures.push({ property: "queryEnd", reason: "must be after queryStart (the span would hold nothing)" });
  }
  return { inputs, failures };
}
