import { z } from "zod";
import { ExportLobbyHistoryRequest, Rfc3339, rfc3339With, Uint64, Uuid } from "../../api/schemas";
import { type CheckFailure, checkWire, UNKNOWN } from "../checks";
import { SERIALIZED_PROVIDER_FIELD } from "../fields";

/** The text of an invalid `Date` (`String(new Date(NaN))`). */
const INVALID_DATE = "Invalid Date";

/** What a span bound may be, as a reason says it. */
const BOUND_FORMS =
  "an RFC 3339 timestamp with a time and an offset (e.g. 2024-08-16T00:00:00Z) or integer epoch milliseconds";

/**
 * A bound given as a string. A string that is not RFC 3339 gets a reason naming both forms: the union
 * reports this branch's reason alone, and "must be an RFC 3339 timestamp" misleads whoever gave epoch
 * milliseconds from stack config (a config value is a string) or a date without a time.
 */
const BoundTimestamp = rfc3339With((issue) => {
  if (typeof issue.input === "string" && /^\d+$/.test(issue.input))
    return `must be ${BOUND_FORMS}: epoch milliseconds go as a number, not a string (a stack config value is a string: read it as a number, e.g. config.requireNumber, or give the timestamp)`;
  // What a TypeScript program's invalid Date arrives as (src/programArgs/lobbyHistoryExport.ts).
  if (issue.input === INVALID_DATE)
    return `must be ${BOUND_FORMS}: the Date given is invalid (new Date could not read the text it was made from)`;
  if (typeof issue.input === "string") {
    const why = lookAlike(issue.input);
    if (why) return `must be ${BOUND_FORMS}: ${why}`;
  }
  return `must be ${BOUND_FORMS}`;
});

/**
 * What keeps a timestamp-shaped text from being RFC 3339, where the form reason alone would puzzle:
 * a time without seconds (ISO 8601 allows it, RFC 3339 does not), a leap second (RFC 3339 allows it, a
 * Date cannot hold it), or a day its month lacks (Date.parse would read 2026-02-29 as March 1st).
 */
function lookAlike(text: string): string | undefined {
  const noSeconds = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(Z|[+-]\d{2}:\d{2})$/i.exec(text);
  if (noSeconds) return `RFC 3339 needs the seconds (${noSeconds[1]}:00${noSeconds[2]})`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:60(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text))
    return "a leap second (:60) has no epoch milliseconds: give the second before it (:59) or after it";
  const day = /^(\d{4})-(\d{2})-(\d{2})T/i.exec(text);
  if (!day) return undefined;
  const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
  if (month < 1 || month > 12) return `there is no month ${day[2]}`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return date < 1 || date > days
    ? `there is no ${day[1]}-${day[2]}-${day[3]}: ${day[1]}-${day[2]} has ${days} days`
    : undefined;
}

/**
 * RFC 3339 in the form the schema reads: §5.6 allows a lower-case "t" and "z", which the schema (ISO
 * 8601's upper case) refuses. Anything else is returned as it is.
 */
function upperCaseRfc3339(value: unknown): unknown {
  return typeof value === "string" && /^\d{4}-\d{2}-\d{2}t|\dz$/.test(value) ? value.toUpperCase() : value;
}

/**
 * A span bound: an RFC 3339 string or integer epoch milliseconds (the resource class turns a `Date`
 * into its ISO string before it reaches the provider, since a `Date` does not survive serialization).
 */
const TimeInput = z.union([Uint64, BoundTimestamp], {
  error: "must be a Date, an RFC 3339 timestamp or integer epoch milliseconds",
});

/** The span of an export (checked on their own, then normalized to epoch milliseconds). */
export const ExportSpan = z.object({
  queryStart: TimeInput.describe(
    "Start of the span (exclusive): RFC 3339 or epoch ms, from 1970 on (the service takes unsigned epoch ms); stored as epoch ms.",
  ),
  queryEnd: TimeInput.describe(
    "End of the span (inclusive), after queryStart: RFC 3339 or epoch ms, from 1970 on; stored as epoch ms. A span ending after now (on the service's clock) exports the history so far, and is not exported again as it fills: export past spans.",
  ),
});

const Extras = z.strictObject({
  gameId: Uuid.describe("UUID of the game whose lobby history (every environment) is exported."),
  triggers: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Arbitrary values; a change to any of them exports again (e.g. `{ day: "2026-11-22" }`).'),
  summarize: z
    .boolean()
    .optional()
    .describe("Download the CSV once and record `rowCount`, `byteLength` and `sha256` (default false)."),
  renewMinutesBeforeExpiry: z
    .number({ error: "must be a number of minutes" })
    .int({ error: "must be a whole number of minutes" })
    .min(0, { error: "must be ≥ 0 (0: once the URL has expired)" })
    .max(59, { error: "must be ≤ 59 (the URL lives one hour)" })
    .optional()
    .describe(
      "Export again at the first `pulumi up` that runs less than this many minutes before `expiresAt`, a whole number from 0 to 59 (0: once the URL has expired; the URL lives one hour), so the `url` output stays usable: a replacement, which `pulumi preview` shows. Unset (the default), the URL is kept after it expires. Like every input, setting or changing it exports again at once. Each renewal is a new export job on the service.",
    ),
});

/** The export's inputs other than its span. */
export const ExportExtras = Extras;

/** What an export adds to its inputs (every input is an output too). */
export const ExportComputedOutputs = z.object({
  queryStart: z.number().int().describe("Start of the span (exclusive), epoch ms."),
  queryEnd: z.number().int().describe("End of the span (inclusive), epoch ms."),
  url: z
    .string()
    .describe(
      "Presigned URL of the CSV, valid for one hour: a secret (whoever has it can read the file). Deleting or replacing the export does not revoke it (the service has no such call): it works until `expiresAt`.",
    ),
  exportedAt: z.string().describe("When the export was made (RFC 3339)."),
  expiresAt: z.string().describe("When the URL stops working: one hour after `exportedAt` (RFC 3339)."),
  rowCount: z.number().int().optional().describe("Data rows in the CSV (header excluded), with `summarize`."),
  byteLength: z.number().int().optional().describe("Size of the CSV in bytes, with `summarize`."),
  sha256: z.string().optional().describe("SHA-256 of the CSV, hex, with `summarize`."),
});

/** Checked inputs of a LobbyHistoryExport: times normalized to epoch milliseconds. */
export type LobbyHistoryExportInputs = z.infer<typeof ExportExtras> &
  Pick<z.infer<typeof ExportComputedOutputs>, "queryStart" | "queryEnd">;

/** Outputs: the inputs echoed, plus the export's URL and times, and the CSV summary if asked. */
export type LobbyHistoryExportOutputs = LobbyHistoryExportInputs & z.infer<typeof ExportComputedOutputs>;

/** Every input property, from the schemas. */
export const EXPORT_INPUT_FIELDS = [...ExportExtras.keyof().options, ...ExportSpan.keyof().options];

/** Epoch milliseconds of a checked time input; non-times pass through for the schema to reject. */
export function toEpochMs(value: unknown): unknown {
  if (typeof value === "string" && value !== UNKNOWN && Rfc3339.safeParse(value).success)
    return Date.parse(value);
  return value;
}

/**
 * Numeric bounds that read as epoch seconds: as epoch milliseconds they are dates of 1970–1973, long before
 * any lobby history, while epoch seconds of this century fall there (`Math.floor(Date.now() / 1000)`).
 */
export const SECONDS_LOOKALIKE = { from: 1e9, below: 1e11 } as const;

/**
 * A failure for each numeric bound that reads as epoch seconds: the service exports a span of 1970 as an
 * empty file, and the mistake (a Unix timestamp where milliseconds go) would pass unseen.
 */
function boundsInSeconds(bounds: Record<"queryStart" | "queryEnd", unknown>): CheckFailure[] {
  return Object.entries(bounds).flatMap(([property, value]) =>
    typeof value === "number" && value >= SECONDS_LOOKALIKE.from && value < SECONDS_LOOKALIKE.below
      ? [
          {
            property,
            reason: `is epoch milliseconds, ${new Date(value).toISOString()} (given: ${value}): for epoch seconds give milliseconds (${value * 1000} is ${new Date(value * 1000).toISOString()})`,
          },
        ]
      : [],
  );
}

/** A failure for each RFC 3339 bound before the epoch, named as the time it is. */
function timesBefore1970(
  given: Record<"queryStart" | "queryEnd", unknown>,
  inputs: Record<string, unknown>,
): CheckFailure[] {
  return Object.entries(given).flatMap(([property, value]) => {
    const at = inputs[property];
    return typeof value === "string" && typeof at === "number" && at < 0
      ? [
          {
            property,
            reason: `must be 1970-01-01T00:00:00Z or later, the earliest time the service takes (given: ${value})`,
          },
        ]
      : [];
  });
}

/** Validates raw inputs; failures name camelCase properties; returns the normalized inputs. */
export function checkExportInputs(news: Record<string, unknown>): {
  inputs: Record<string, unknown>;
  failures: CheckFailure[];
} {
  const {
    gameId,
    queryStart: givenStart,
    queryEnd: givenEnd,
    triggers,
    summarize,
    renewMinutesBeforeExpiry,
    [SERIALIZED_PROVIDER_FIELD]: _provider,
    ...unknownKeys
  } = news;
  const [queryStart, queryEnd] = [upperCaseRfc3339(givenStart), upperCaseRfc3339(givenEnd)];
  const inputs: Record<string, unknown> = {
    ...news,
    queryStart: toEpochMs(queryStart),
    queryEnd: toEpochMs(queryEnd),
  };
  const failures = [
    ...checkWire(ExportSpan, { queryStart, queryEnd }, { queryStart, queryEnd }, [], "camelCase"),
    ...checkWire(
      Extras,
      { gameId, triggers, summarize, renewMinutesBeforeExpiry, ...unknownKeys },
      news,
      [],
      "camelCase",
    ),
  ];
  // RFC 3339 before 1970 is epoch ms below 0, which the wire check would name as a number ("must be ≥ 0").
  if (failures.length === 0) failures.push(...timesBefore1970({ queryStart, queryEnd }, inputs));
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
  if (failures.length === 0) failures.push(...boundsInSeconds({ queryStart, queryEnd }));
  // The service accepts any span and answers an empty file for one that does not move forward:
  // for a resource that is a mistake, named before any request.
  const [start, end] = [inputs.queryStart, inputs.queryEnd];
  if (failures.length === 0 && typeof start === "number" && typeof end === "number" && start >= end) {
    failures.push({ property: "queryEnd", reason: "must be after queryStart (the span would hold nothing)" });
  }
  return { inputs, failures };
}
