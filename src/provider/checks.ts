import type { z } from "zod";
import { camelPath, type MapPaths } from "../api/case";
import { type FieldIssue, toFieldIssues } from "../api/issues";

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
 * Validates a wire-format value and turns its issues into check failures on camelCase properties.
 * Issues at or below a value that is unknown during preview are dropped: it is checked at apply.
 */
export function checkWire(
  schema: z.ZodType,
  wireValue: unknown,
  camelValue: unknown,
  mapPaths: MapPaths,
): CheckFailure[] {
  const result = schema.safeParse(wireValue);
  if (result.success) return [];
  const unknowns = unknownPaths(camelValue);
  return toFieldIssues(result.error)
    .map((issue: FieldIssue) => ({ property: camelPath(issue.path, mapPaths), reason: issue.message }))
    .filter((failure) => !unknowns.some((u) => within(failure.property, u)));
}
