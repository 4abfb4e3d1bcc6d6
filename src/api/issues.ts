import type { z } from "zod";

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

/** Flattens zod issues (including those of union branches) into field issues. */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    // Name each unknown key as a field of its own, so the path points at what to remove.
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: formatPath([...issue.path, key]),
        message: "is not a known field",
      }));
    }
    const params = (issue as { params?: { apiCode?: unknown } }).params;
    const apiCode = typeof params?.apiCode === "string" ? params.apiCode : undefined;
    return [{ path: formatPath(issue.path), message: issue.message, ...(apiCode ? { apiCode } : {}) }];
  });
}

/** `a.b: msg; c: msg` — one line naming every field at fault. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}
