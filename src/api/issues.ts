// Kept free of zod: the public error types use these, and a program's type check must not reach zod.

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

/** `a.b: msg; c: msg` — one line naming every field at fault. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}
