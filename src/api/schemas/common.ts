import { z } from "zod";

/*
 * Two kinds of schema live here and in the files beside it:
 * - request rules: what the service accepts, checked before anything is sent (and by the emulator
 *   when a request arrives). They carry the service's constraints: UUID forms, ranges, enums.
 * - answer shapes: what a response must look like to be used. They check types and required fields
 *   only: a constraint on an answer (a pattern, a length, a closed enum) would turn a harmless
 *   difference in the service's data into an exception in every caller.
 */

// ---------------------------------------------------------------------------------------------
// Request rules

const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIMPLE = /^[0-9a-f]{32}$/i;

/**
 * The canonical form (lowercase, hyphenated) of a UUID written in any form the service's parser
 * reads — hyphenated or 32 hex digits, any case, optionally in braces or as `urn:uuid:…` — or
 * `undefined` when it is not a UUID.
 */
export function canonicalUuid(text: string): string | undefined {
  let body = text;
  if (body.length === 38 && body.startsWith("{") && body.endsWith("}")) body = body.slice(1, -1);
  else if (body.length === 45 && body.slice(0, 9).toLowerCase() === "urn:uuid:") body = body.slice(9);
  if (HYPHENATED.test(body)) return body.toLowerCase();
  if (SIMPLE.test(body)) {
    const h = body.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return undefined;
}

/** What a UUID field accepts, in the words of every error about one. */
export const UUID_RULE = "must be a UUID (e.g. 3f2b8a4e-5c1d-4e6f-9a7b-0c1d2e3f4a5b)";

/** A UUID in any form the service parses; the parsed value is its canonical form. */
export const Uuid = z
  .string({ error: UUID_RULE })
  .refine((text) => canonicalUuid(text) !== undefined, {
    // A pasted id keeps its surrounding spaces or newline, which no message shows.
    error: (issue) =>
      typeof issue.input === "string" && canonicalUuid(issue.input.trim()) !== undefined
        ? `${UUID_RULE}: remove the whitespace around it`
        : UUID_RULE,
  })
  .overwrite((text) => canonicalUuid(text) ?? text);

/**
 * A `watch_index` query value: the decimal string of an earlier answer's `watch.index` (a millisecond
 * timestamp plus one). Sixteen digits keep it an exact JavaScript number.
 */
export const WatchIndex = z
  .string()
  .regex(/^\d{1,16}$/, { error: "must be the watch.index of an earlier answer (a decimal string)" });

export const UINT32_MAX = 4_294_967_295;

/** Unsigned 32-bit integer. */
export const Uint32 = z
  .number()
  .int({ error: "must be an integer" })
  .min(0, { error: "must be ≥ 0" })
  .max(UINT32_MAX, { error: `must be ≤ ${UINT32_MAX}` });

/**
 * Unsigned 64-bit integer. JSON numbers above 2^53 lose precision in JavaScript, so the safe
 * integer range is the part of uint64 this package can represent exactly.
 */
export const Uint64 = z
  .number()
  // zod's int check also fails an integer past the safe range (2 ** 63), as too big: say the range then,
  // not "must be an integer". That check is the upper bound (a .max would say it a second time).
  .int({
    error: (issue) =>
      issue.code === "too_big"
        ? `must be ≤ ${Number.MAX_SAFE_INTEGER}`
        : issue.code === "too_small"
          ? "must be ≥ 0"
          : "must be an integer",
  })
  .min(0, { error: "must be ≥ 0" });

/** An RFC 3339 timestamp with an offset, e.g. `2024-08-16T05:35:01.123Z`, failing with `error`. */
export const rfc3339With = (error: NonNullable<z.core.$ZodISODateTimeParams["error"]>) =>
  z.iso.datetime({ offset: true, error });

/** RFC 3339 timestamp with an offset, e.g. `2024-08-16T05:35:01.123Z`. */
export const Rfc3339 = rfc3339With("must be an RFC 3339 timestamp");

/** Short human-readable identifier: no special characters. */
export const NameId = z.string().min(1);

/** A resource's readable display name. */
export const DisplayName = z.string().min(1);

/**
 * A record whose own `__proto__` key is an error. Zod skips that key (assigning it would replace
 * the result's prototype), so without this a map entry would vanish silently and its value would
 * go unchecked. Only JSON-parsed input can carry such a key.
 */
export function userRecord<K extends z.core.$ZodRecordKey, V extends z.core.SomeType>(
  key: K,
  value: V,
  params?: z.core.$ZodRecordParams,
) {
  return z.preprocess(
    (input, ctx) => {
      if (typeof input === "object" && input !== null && Object.hasOwn(input, "__proto__")) {
        ctx.addIssue({ code: "custom", path: ["__proto__"], message: "cannot be used as a key", input });
      }
      return input;
    },
    z.record(key, value, params),
  );
}

/** String-to-string map (tags, environment variables). */
export const StringMap = userRecord(z.string(), z.string({ error: "must be a string" }));

/**
 * How a request schema treats keys it does not know: the client `reject`s them (a misspelt field is
 * a mistake worth naming); the service `ignore`s them (a newer client must keep working).
 */
export type UnknownKeys = "reject" | "ignore";

/** An object schema with the given treatment of unknown keys. */
export function requestObject<S extends z.core.$ZodLooseShape>(shape: S, unknownKeys: UnknownKeys) {
  return unknownKeys === "reject" ? z.strictObject(shape) : z.object(shape);
}

// ---------------------------------------------------------------------------------------------
// Answer shapes

/**
 * An enumeration in an answer: the known values type it, any other string is accepted. The known values
 * ride along as metadata (`openEnum`), so the wire declarations generated from the schemas type them too.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(known: T) {
  return z.string().meta({ openEnum: [...known] }) as unknown as z.ZodType<T[number] | (string & {}), string>;
}

/** Integer in an answer (counts, epoch milliseconds). */
export const AnswerInt = z.number().int();

/** Version marker of watchable data (docs/service-contract.md §5). */
export const Watch = z
  .object({
    index: z.string().describe("Version of the data: pass it as `watch_index` to wait for the next one."),
  })
  .meta({ id: "Watch", description: "Version marker of watchable data." });
export type Watch = z.infer<typeof Watch>;

/** The error body every non-200 response carries. */
export const ErrorBody = z.object({
  code: z.string(),
  message: z.string(),
  ray_id: z.string().optional(),
  documentation: z.string().optional(),
  metadata: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** `{}`: what the service answers when there is nothing to say (e.g. DELETE). */
export const EmptyResponse = z.object({});
