import type { z } from "zod";
import { GamehostValidationError } from "./errors";
import { type FieldIssue, formatPath } from "./issues";
import { MAX_KEPT_ISSUES } from "./textBounds";

/**
 * Parses `value` with `schema`, throwing a {@link GamehostValidationError} naming `where` and every
 * field at fault. Used for requests (strict schemas) and responses (tolerant schemas) alike.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
  textLength?: number,
): z.output<S> {
  // A large value is checked only up to its first problem in each list: a 15 MB answer of invalid items
  // has millions of issues, and listing them took minutes and gigabytes (issue 28 §4).
  const large = textLength !== undefined && textLength > FULL_CHECK_CHARS;
  const result = large ? schema.safeParse(value, STOP_AT_FIRST_PROBLEM) : schema.safeParse(value);
  if (!result.success) {
    const { issues, total } = keptFieldIssues(result.error, schema, value);
    throw new GamehostValidationError(where, issues, large ? { stoppedEarly: textLength } : { total });
  }
  return result.data;
}

/**
 * Above this size (of the JSON text) a value is checked up to its first problem only, so a failure costs
 * no more than a success; below it every field at fault is counted.
 */
export const FULL_CHECK_CHARS = 64 * 1024;

/**
 * zod's own "stop at the first problem" (what its `validate` uses): each list and object stops at its
 * first failed item. Not in zod's public `ParseContext` type, hence the cast; test/api/errorBounds.test.ts
 * holds its effect on a 15 MB answer.
 */
const STOP_AT_FIRST_PROBLEM = { abortEarly: true } as z.core.ParseContext<z.core.$ZodIssue>;

/**
 * The first {@link MAX_KEPT_ISSUES} field issues of a zod error, and how many there are in all: a huge
 * invalid answer has an issue per bad field, and the error keeps only what a person can act on.
 */
export function keptFieldIssues(
  error: z.ZodError,
  schema?: z.ZodType,
  value?: unknown,
): { issues: FieldIssue[]; total: number } {
  const issues: FieldIssue[] = [];
  let total = 0;
  for (const issue of error.issues) {
    const count = issue.code === "unrecognized_keys" ? issue.keys.length : 1;
    total += count;
    if (issues.length < MAX_KEPT_ISSUES)
      issues.push(...fieldIssuesOf(issue, schema, value).slice(0, MAX_KEPT_ISSUES - issues.length));
  }
  return { issues, total };
}

/** Flattens zod issues (including those of union branches) into field issues. */
export function toFieldIssues(error: z.ZodError, schema?: z.ZodType, value?: unknown): FieldIssue[] {
  return error.issues.flatMap((issue) => fieldIssuesOf(issue, schema, value));
}

function fieldIssuesOf(issue: z.core.$ZodIssue, schema?: z.ZodType, value?: unknown): FieldIssue[] {
  // Name each unknown key as a field of its own, so the path points at what to remove; with the schema,
  // say which fields there are, so a misspelt one can be corrected without the reference.
  if (issue.code === "unrecognized_keys") {
    const message = unknownFieldReason(schema && knownKeysAt(schema, issue.path, value));
    return issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message }));
  }
  const params = (issue as { params?: { apiCode?: unknown } }).params;
  const apiCode = typeof params?.apiCode === "string" ? params.apiCode : undefined;
  // A field left out (`groups[0].groupId` of an empty list) is missing, not malformed: a schema's own
  // message ("must be a UUID") alone read as if a wrong value had been given.
  const missing =
    value !== undefined && issue.code === "invalid_type" && valueAt(value, issue.path) === undefined;
  const message = !missing
    ? issue.message
    : issue.message.startsWith("Invalid input")
      ? "is required"
      : `is required: it ${issue.message}`;
  return [{ path: formatPath(issue.path), message, ...(apiCode ? { apiCode } : {}) }];
}

/** What is said of a key no field has; the start of the reason whether or not the fields are known. */
export const UNKNOWN_FIELD = "is not a known field";

/**
 * The reason given for a key no field has, naming the fields there are, so a misspelt one can be corrected
 * without the reference: the client's request checks and the kinds' input checks (src/kinds/checks.ts) say
 * it alike.
 */
export function unknownFieldReason(known: readonly string[] | undefined): string {
  return known?.length ? `${UNKNOWN_FIELD} (known: ${known.join(", ")})` : UNKNOWN_FIELD;
}

/** The wrappers whose value is checked by an inner schema: `def.innerType`, or a pipe's `def.in`. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/**
 * The keys of the object schema at `path` inside `schema`, or undefined when it cannot be told (a union; a
 * discriminated union is followed to the member the given `value` names by its discriminator, as an admin
 * mutation's `op`).
 */
export function knownKeysAt(
  schema: z.ZodType,
  path: ReadonlyArray<PropertyKey>,
  value?: unknown,
): string[] | undefined {
  let at = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  let index = 0;
  for (let guard = 0; guard < 100; guard++) {
    const inner = WRAPPERS.has(at.type)
      ? at.innerType
      : at.type === "pipe"
        ? pipeChecked(at)
        : at.type === "lazy"
          ? (at.getter as () => unknown)()
          : at.type === "union"
            ? discriminatedMember(at, valueAt(value, path.slice(0, index)))
            : undefined;
    if (inner === undefined) {
      if (index === path.length)
        return at.type === "object" ? Object.keys(at.shape as Record<string, unknown>) : undefined;
      const segment = path[index++];
      const next =
        at.type === "object"
          ? (at.shape as Record<PropertyKey, unknown>)[segment as PropertyKey]
          : at.type === "array"
            ? at.element
            : at.type === "record"
              ? at.valueType
              : undefined;
      if (next === undefined) return undefined;
      at = (next as z.ZodType)._zod.def as typeof at;
    } else {
      at = (inner as z.ZodType)._zod.def as typeof at;
    }
  }
  return undefined;
}

/** The member of a discriminated union that `value`'s discriminator names, or undefined (any other union). */
function discriminatedMember(union: Record<string, unknown>, value: unknown): unknown {
  const key = union.discriminator;
  if (typeof key !== "string" || typeof value !== "object" || value === null) return undefined;
  const tag = (value as Record<string, unknown>)[key];
  return (union.options as z.ZodType[]).find((option) => {
    const def = option._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
    const field = def.type === "object" ? (def.shape as Record<string, z.ZodType>)[key] : undefined;
    const values =
      field?._zod.def.type === "literal" ? (field._zod.def as unknown as { values: unknown[] }).values : [];
    return values.includes(tag);
  });
}

/**
 * The schema that checks a pipe's value: its input side, except for `z.preprocess` (a transform piped into
 * the schema, as `userRecord` is), whose output side checks what was given.
 */
function pipeChecked(pipe: Record<string, unknown>): unknown {
  const input = pipe.in as z.ZodType;
  return input._zod.def.type === "transform" ? pipe.out : input;
}

/** The value at `path` inside `value`, or undefined when a step is missing. */
function valueAt(value: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let at = value;
  for (const segment of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}
