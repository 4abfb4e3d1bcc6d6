/**
 * fast-check arbitraries for lobby-history exports: valid provider specs (RFC 3339 with any offset,
 * or epoch ms) with the instants they stand for, and single mistakes in provider and wire form.
 */
import fc from "fast-check";
import { SECONDS_LOOKALIKE } from "../../src/kinds/lobbyHistoryExport/spec";
import { badUuid, notA, uuid } from "./arbitraries";

const DAY = 86_400_000;
/** Latest instant whose RFC 3339 form has a four-digit year at every offset. */
const MAX_MS = Date.UTC(9999, 11, 30);
/** Shape of an RFC 3339 date-time, to keep accidental matches out of "not a time" strings. */
const RFC3339_SHAPE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `ms` written as RFC 3339 at `offsetMinutes` from UTC (`Z` or `+00:00` for zero). */
function rfc3339(ms: number, offsetMinutes: number, withMillis: boolean, zulu: boolean): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString();
  const base = local.slice(0, withMillis ? 23 : 19);
  if (offsetMinutes === 0) return `${base}${zulu ? "Z" : "+00:00"}`;
  const abs = Math.abs(offsetMinutes);
  return `${base}${offsetMinutes > 0 ? "+" : "-"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A span bound as the user may write it, with the instant it means. */
interface TimeValue {
  value: number | string;
  ms: number;
}

const timeValue: fc.Arbitrary<TimeValue> = fc.oneof(
  // Not the numbers that read as epoch seconds: the check refuses them.
  fc
    .oneof(
      fc.integer({ min: 0, max: SECONDS_LOOKALIKE.from - 1 }),
      fc.integer({ min: SECONDS_LOOKALIKE.below, max: MAX_MS }),
    )
    .map((ms) => ({ value: ms, ms })),
  fc
    .tuple(
      fc.integer({ min: 2 * DAY, max: MAX_MS }),
      fc.integer({ min: -14 * 60, max: 14 * 60 }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([raw, offset, withMillis, zulu]) => {
      const ms = withMillis ? raw : Math.floor(raw / 1000) * 1000;
      return { value: rfc3339(ms, offset, withMillis, zulu), ms };
    }),
);

/** A valid LobbyHistoryExport spec and the instants of its span. */
export interface ExportSpecCase {
  news: Record<string, unknown>;
  startMs: number;
  endMs: number;
}

export function validExportSpec(): fc.Arbitrary<ExportSpecCase> {
  return fc
    .record(
      {
        gameId: uuid,
        span: fc.tuple(timeValue, timeValue).filter(([a, b]) => a.ms !== b.ms),
        summarize: fc.boolean(),
        triggers: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), {
          maxKeys: 2,
          noNullPrototype: true,
        }),
      },
      { requiredKeys: ["gameId", "span"] },
    )
    .map(({ span, ...rest }) => {
      const [start, end] = span[0].ms < span[1].ms ? span : [span[1], span[0]];
      return {
        news: { ...rest, queryStart: start.value, queryEnd: end.value },
        startMs: start.ms,
        endMs: end.ms,
      };
    });
}

/** Neither an RFC 3339 timestamp of 1970 or later nor a non-negative safe integer. */
export const badTime: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ max: -1 }),
  fc.double().filter((n) => !Number.isInteger(n)),
  fc.double({ min: 2 ** 53, max: 1e300, noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constant({ seconds: 5 }),
  fc.string({ maxLength: 30 }).filter((s) => !RFC3339_SHAPE.test(s)),
  fc.constantFrom(
    "2024-01-01",
    "2024-01-01T00:00:00",
    "2024/01/01T00:00:00Z",
    "1969-12-31T23:59:59Z",
    "1969-12-31T23:59:59.999+00:00",
    "+010000-01-01T00:00:00Z",
    "5",
    "",
    "now",
  ),
  fc.integer({ min: -62_000_000_000_000, max: -1 }).map((ms) => new Date(ms).toISOString()),
);

const EXPORT_KEYS = ["gameId", "queryStart", "queryEnd", "triggers", "summarize", "__provider"];

/** One mistake in provider inputs, and the property that must be named. */
export interface ExportMistake {
  kind: string;
  property: string;
  apply(news: Record<string, unknown>): Record<string, unknown>;
}

const setTo =
  (property: string, value: unknown) =>
  (news: Record<string, unknown>): Record<string, unknown> => ({ ...news, [property]: value });

export function providerExportMutation(): fc.Arbitrary<ExportMistake> {
  const bound = fc.constantFrom("queryStart", "queryEnd");
  return fc.oneof(
    fc
      .oneof(badUuid, notA("string"))
      .map((v) => ({ kind: "bad gameId", property: "gameId", apply: setTo("gameId", v) })),
    fc
      .tuple(bound, badTime)
      .map(([property, v]) => ({ kind: "bad time", property, apply: setTo(property, v) })),
    bound.map((property) => ({
      kind: "missing time",
      property,
      apply: (news: Record<string, unknown>) => {
        const { [property]: _drop, ...rest } = news;
        return rest;
      },
    })),
    fc.constantFrom("reversed", "empty").map((how) => ({
      kind: `span ${how}`,
      property: "queryEnd",
      apply: (news: Record<string, unknown>) =>
        how === "reversed"
          ? { ...news, queryStart: news.queryEnd, queryEnd: news.queryStart }
          : { ...news, queryEnd: news.queryStart },
    })),
    notA("boolean").map((v) => ({
      kind: "bad summarize",
      property: "summarize",
      apply: setTo("summarize", v),
    })),
    notA("object").map((v) => ({ kind: "bad triggers", property: "triggers", apply: setTo("triggers", v) })),
    fc
      .tuple(
        fc
          .string({ minLength: 1, maxLength: 10 })
          .filter((k) => !EXPORT_KEYS.includes(k) && k !== "__proto__"),
        fc.jsonValue({ maxDepth: 1 }),
      )
      .map(([key, v]) => ({ kind: "unknown key", property: key, apply: setTo(key, v) })),
  );
}

/** A wire export body with one mistake, and the field the answer must name. */
export interface WireExportMistake {
  body: Record<string, unknown>;
  expect: string;
}

/**
 * Export bodies with one mistake. The client sends only what the wire type allows (uint64 bounds);
 * the service reads any integers and checks no range (docs/service-contract.md §6), so a negative bound or a
 * backward span is a mistake only on the client side.
 */
export function exportMutation(side: "client" | "service"): fc.Arbitrary<WireExportMistake> {
  const span = fc
    .tuple(fc.maxSafeNat(), fc.maxSafeNat())
    .filter(([a, b]) => a !== b)
    .map(([a, b]) => ({ query_start: Math.min(a, b), query_end: Math.max(a, b) }));
  const field = fc.constantFrom("query_start", "query_end");
  const notAnInteger = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
    notA("number"),
  );
  const badMs =
    side === "client"
      ? fc.oneof(fc.integer({ max: -1 }), fc.double({ min: 2 ** 53, max: 1e300, noNaN: true }), notAnInteger)
      : notAnInteger;
  const mistakes: fc.Arbitrary<WireExportMistake>[] = [
    fc.tuple(span, field, badMs).map(([body, name, v]) => ({ body: { ...body, [name]: v }, expect: name })),
    fc.tuple(span, field).map(([body, name]) => {
      const { [name]: _drop, ...rest } = body;
      return { body: rest, expect: name };
    }),
  ];
  if (side === "client") {
    // Unknown fields: the client names them; the service ignores them.
    mistakes.push(
      fc
        .tuple(
          span,
          fc
            .string({ minLength: 1, maxLength: 10 })
            .filter((k) => !["query_start", "query_end", "__proto__"].includes(k)),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .map(([body, key, v]) => ({ body: { ...body, [key]: v }, expect: key })),
    );
  }
  return fc.oneof(...mistakes);
}
