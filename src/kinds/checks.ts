import type { z } from "zod";
import { camelToSnake, isMapPath, type MapPaths, snakeToCamel } from "../api/case";
import { knownKeysAt, UNKNOWN_FIELD, unknownFieldReason } from "../api/validate";

/** The string the engine sends in place of a value not known until apply (preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A check failure as Pulumi reports it: the property at fault and why. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Dotted paths of every unknown value inside `value`. */
export function unknownPaths(value: unknown, prefix = ""): string[] {
  if (value === UNKNOWN) return [prefix];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    unknownPaths(inner, prefix ? `${prefix}.${key}` : key),
  );
}

export function containsUnknown(value: unknown): boolean {
  return unknownPaths(value).length > 0;
}

function within(path: string, root: string): boolean {
  return root === "" || path === root || path.startsWith(`${root}.`);
}

/**
 * camelCase property of a wire path, converted segment by segment: a user's map key (a tag such
 * as `app.build_id`) is kept whole, where converting the dotted string would split and rename it.
 */
function propertyOf(path: ReadonlyArray<PropertyKey>, mapPaths: MapPaths, keys: SchemaKeys): string {
  return segmentsOf(path, mapPaths, keys).join(".");
}

function segmentsOf(path: ReadonlyArray<PropertyKey>, mapPaths: MapPaths, keys: SchemaKeys): string[] {
  const out: string[] = [];
  for (const segment of path) {
    const text = String(segment);
    out.push(keys === "camelCase" || isMapPath(out, mapPaths) ? text : snakeToCamel(text));
  }
  return out;
}

/** Longest given string a check failure quotes: enough to spot a typo, not to echo a pasted blob. */
export const MAX_GIVEN_CHARS = 40;

/** The text that precedes the value a check failure quotes: faces that must hide it cut from here. */
export const GIVEN_PREFIX = " (given: ";

/**
 * `failure` without the quoted string it gives, when it gives one. For a face that cannot tell which inputs
 * were secret (the dynamic provider host receives secrets as plain values): a secret string is never quoted.
 */
export function withoutGivenString(failure: CheckFailure): CheckFailure {
  const at = failure.reason.lastIndexOf(`${GIVEN_PREFIX}"`);
  return at >= 0 ? { ...failure, reason: failure.reason.slice(0, at) } : failure;
}

/**
 * ` (given: -1)` or ` (given: "htp")` for the value the user gave at nested `segments`: the engine prints
 * a nested property's value as `{<nil>}` (it looks up top-level properties only), a top-level one as
 * itself. A string is quoted, cut at {@link MAX_GIVEN_CHARS}, except where a user's own values live (a
 * map's value such as an environment variable or a tag, an array's item such as an argument): those may
 * hold a secret, and are never quoted.
 */
function givenText(camelValue: unknown, segments: readonly string[], mapPaths: MapPaths): string {
  if (segments.length < 2) return "";
  let value: unknown = camelValue;
  let parentIsUserData = false;
  for (const [i, segment] of segments.entries()) {
    if (typeof value !== "object" || value === null) return "";
    parentIsUserData = Array.isArray(value) || isMapPath(segments.slice(0, i), mapPaths);
    value = (value as Record<string, unknown>)[segment];
  }
  if (typeof value === "number" || typeof value === "boolean") return `${GIVEN_PREFIX}${value})`;
  if (typeof value !== "string" || parentIsUserData) return "";
  const cut = value.length > MAX_GIVEN_CHARS ? `${value.slice(0, MAX_GIVEN_CHARS)}…` : value;
  return `${GIVEN_PREFIX}${JSON.stringify(cut)})`;
}

/**
 * How the schema given to {@link checkWire} names fields: `snake_case` (a wire schema: paths are
 * converted to camelCase) or `camelCase` (a schema of provider inputs: paths are the user's own
 * keys, so an unknown `_a` is named `_a`, not `A`).
 */
export type SchemaKeys = "snake_case" | "camelCase";

/**
 * `failures` with each unknown top-level property's reason naming the kind's inputs: its checks name the
 * fields of the part they check (a spec, its knobs), and only the kind knows them all.
 */
export function namingKnownInputs(failures: CheckFailure[], inputs: readonly string[]): CheckFailure[] {
  return failures.map((failure) =>
    failure.reason === UNKNOWN_FIELD && !failure.property.includes(".")
      ? { ...failure, reason: unknownFieldReason(inputs) }
      : failure,
  );
}

/** What a missing field takes, in words rather than the schema library's type names. */
const EXPECTED_WORDS: Record<string, string> = {
  object: "an object",
  record: "a map (`{}` for none)",
  map: "a map (`{}` for none)",
  array: "a list",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
};

/** The wire value at `path`, or undefined when a step is missing. */
function wireAt(value: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let at = value;
  for (const segment of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}

/** The reason of an issue: a missing field is "is required", not a type mismatch with `undefined`. */
function reasonOf(issue: z.core.$ZodIssue, wireValue: unknown): string {
  if (issue.code === "invalid_type" && wireAt(wireValue, issue.path) === undefined) {
    const expected = EXPECTED_WORDS[String(issue.expected)];
    return expected ? `is required: ${expected}` : "is required";
  }
  return issue.message;
}

/**
 * The reason of an unknown key inside an object at `path`, naming that object's fields as the user writes
 * them. At the top level the plain reason: the schema holds only part of a kind's inputs
 * ({@link namingKnownInputs} names them all).
 */
function unknownNestedReason(
  schema: z.ZodType,
  path: ReadonlyArray<PropertyKey>,
  mapPaths: MapPaths,
  keys: SchemaKeys,
): string {
  if (path.length === 0) return UNKNOWN_FIELD;
  const segments = segmentsOf(path, mapPaths, keys);
  const known = knownKeysAt(schema, path)?.map((key) =>
    keys === "camelCase" || isMapPath(segments, mapPaths) ? key : snakeToCamel(key),
  );
  return unknownFieldReason(known);
}

/**
 * Validates a wire-format value and turns its issues into check failures on camelCase properties.
 * Issues at or below a value that is unknown during preview are dropped: it is checked at apply.
 */
export function checkWire(
  schema: z.ZodType,
  wireValue: unknown,
  camelValue: unknown,
  mapPaths: MapPaths,
  keys: SchemaKeys = "snake_case",
): CheckFailure[] {
  const result = schema.safeParse(wireValue);
  if (result.success) return [];
  const unknowns = unknownPaths(camelValue);
  const failures = result.error.issues
    .flatMap((issue): CheckFailure[] =>
      // Each unknown key is a failure of its own, so the property names what to remove.
      // Each names the fields there are (in camelCase, as the user's keys are), so a misspelt one is
      // corrected without the reference: a Python user's `internal_prot` reaches here as written.
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => ({
            property: propertyOf([...issue.path, key], mapPaths, keys),
            reason: unknownNestedReason(schema, issue.path, mapPaths, keys),
          }))
        : [
            {
              property: propertyOf(issue.path, mapPaths, keys),
              reason: `${reasonOf(issue, wireValue)}${givenText(camelValue, segmentsOf(issue.path, mapPaths, keys), mapPaths)}`,
            },
          ],
    )
    .filter((failure) => !unknowns.some((u) => within(failure.property, u)));
  // Two checks can fail a value for one reason (zod's int check and min(0) both fail -(2 ** 63)): once is enough.
  return failures.filter(
    (failure, i) =>
      failures.findIndex((f) => f.property === failure.property && f.reason === failure.reason) === i,
  );
}

/**
 * Adds a failure for each key outside user maps that is not camelCase (e.g. `internal_port`) to
 * the failures of {@link checkWire}. The wire conversion leaves such a key as it is, so the API
 * would accept it while the provider, which reads `internalPort`, would not see it: the spec would
 * mean something other than it says. The wire check's own "unknown field" failure for the same key
 * (named in camelCase, which the user did not write) is dropped, and its list of the known fields kept:
 * a key that is no field in either spelling (a Python program's misspelt `internal_prot`, which its SDK
 * passes on as written) is told what the fields are, not only that they are camelCase.
 */
export function withStrayKeys(failures: CheckFailure[], value: unknown, mapPaths: MapPaths): CheckFailure[] {
  // Each stray key: where the user wrote it, the property the wire check names it by, and its camelCase.
  const stray: { property: string; alias: string; camel: string }[] = [];
  // `path` is as the user wrote it; `wire` is the same path after the wire conversion.
  const walk = (node: unknown, path: string[], wire: string[]) => {
    if (typeof node !== "object" || node === null) return;
    const userKeys = Array.isArray(node) || isMapPath(path, mapPaths);
    for (const [key, inner] of Object.entries(node)) {
      const here = [...path, key];
      const wireHere = [...wire, userKeys ? key : camelToSnake(key)];
      if (!userKeys && snakeToCamel(camelToSnake(key)) !== key) {
        stray.push({
          property: here.join("."),
          alias: propertyOf(wireHere, mapPaths, "snake_case"),
          camel: snakeToCamel(camelToSnake(key)),
        });
      }
      walk(inner, here, wireHere);
    }
  };
  walk(value, [], []);
  if (stray.length === 0) return failures;
  // Only a reason that lists the fields there are says more than the camelCase hint (a top-level one does not:
  // the kind lists its inputs, see namingKnownInputs).
  const unknownAt = new Map(
    failures.filter((f) => f.reason.startsWith(`${UNKNOWN_FIELD} (`)).map((f) => [f.property, f.reason]),
  );
  const aliases = new Set(stray.map((s) => s.alias));
  return [
    ...failures.filter((f) => !(f.reason.startsWith(UNKNOWN_FIELD) && aliases.has(f.property))),
    ...stray.map(({ property, alias, camel }) => ({
      property,
      reason: unknownAt.get(alias) ?? `${UNKNOWN_FIELD}: property names are camelCase (\`${camel}\`)`,
    })),
  ];
}
