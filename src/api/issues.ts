// Kept free of zod: the public error types use these, and a program's type check must not reach zod.
import { boundField, formatCount, MAX_LISTED_ISSUES } from "./textBounds";

/** One validation failure: a dotted field path and what is wrong with it. */
export interface FieldIssue {
  /** Dotted path of the field, e.g. `network.ports.game.protocol`; empty for the whole value. */
  path: string;
  /** What is wrong and what is allowed. */
  message: string;
  /** Service error code this rule maps to, when it is not the generic `API_BAD_BODY`. */
  apiCode?: string;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((segment) => String(segment)).join(".");
}

/**
 * `a.b: msg; c: msg` — one line naming the fields at fault: the first few, each within a field's bound,
 * then how many more (`; …and 1,997 more`). `total` counts issues left out of `issues` as well.
 */
export function describeIssues(issues: readonly FieldIssue[], total = issues.length): string {
  const listed = issues.slice(0, MAX_LISTED_ISSUES);
  const text = listed
    .map((i) => (i.path ? `${boundField(i.path)}: ${boundField(i.message)}` : boundField(i.message)))
    .join("; ");
  const more = Math.max(total, issues.length) - listed.length;
  return more > 0 ? `${text}; …and ${formatCount(more)} more` : text;
}
