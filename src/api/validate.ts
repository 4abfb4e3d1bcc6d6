import type { z } from "zod";
import { GamehostValidationError } from "./errors";
import { type FieldIssue, formatPath } from "./issues";

/**
 * Parses `value` with `schema`, throwing a {@link GamehostValidationError} naming `where` and every
 * field at fault. Used for requests (strict schemas) and responses (tolerant schemas) alike.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new GamehostValidationError(where, toFieldIssues(result.error));
  return result.data;
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
