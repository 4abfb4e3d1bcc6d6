import type { z } from "zod";
import { ERROR_CODES } from "../api/errors";
import { describeIssues, type FieldIssue } from "../api/issues";
import { toFieldIssues } from "../api/validate";
import { ServiceError } from "./http";

/** 400 naming every field at fault; a rule issue carrying an `apiCode` answers with that code. */
function invalid(defaultCode: string, what: string, issues: FieldIssue[]): ServiceError {
  const code = issues.find((i) => i.apiCode)?.apiCode ?? defaultCode;
  return new ServiceError(400, code, `Invalid ${what}: ${describeIssues(issues)}`, {
    issues: issues.map(({ path, message }) => ({ path, message })),
  });
}

/** Validates a request body with the shared wire schema: 400 `API_BAD_BODY` (or the rule's code). */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw invalid(ERROR_CODES.badBody, "request body", toFieldIssues(result.error, schema, value));
  return result.data;
}

/**
 * Validates query parameters (already converted to their typed form): 400
 * `API_BAD_QUERY_PARAMETER`. `rename` maps schema paths back to the parameter names the client sent.
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  value: unknown,
  rename: Record<string, string> = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toFieldIssues(result.error).map((issue) => {
    const [head, ...rest] = issue.path.split(".");
    const renamed = head !== undefined ? rename[head] : undefined;
    return renamed ? { ...issue, path: [renamed, ...rest].join(".") } : issue;
  });
  throw invalid(ERROR_CODES.badQueryParameter, "query parameter", issues);
}

/** 400 `API_BAD_QUERY_PARAMETER` for one named parameter. */
export function badQuery(name: string, message: string): ServiceError {
  return invalid(ERROR_CODES.badQueryParameter, "query parameter", [{ path: name, message }]);
}

/** 400 `API_BAD_BODY` for the body as a whole (not JSON). */
export function badBody(message: string): ServiceError {
  return new ServiceError(400, ERROR_CODES.badBody, message);
}

/** Parses `tags_json`: a URL-encoded JSON object of strings (values checked by the route's schema). */
export function parseTagsJson(raw: string | null): unknown {
  if (raw === null) return undefined;
  let tags: unknown;
  try {
    tags = JSON.parse(raw);
  } catch {
    throw badQuery("tags_json", 'must be a URL-encoded JSON object, e.g. {"mode":"ranked"}');
  }
  if (typeof tags !== "object" || tags === null || Array.isArray(tags)) {
    throw badQuery("tags_json", "must be a JSON object of string values");
  }
  return tags;
}

/** Parses a `true`/`false` query flag. */
export function parseBool(name: string, raw: string | null): boolean | undefined {
  if (raw === null) return undefined;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw badQuery(name, `must be true or false, got ${JSON.stringify(raw)}`);
}

/** Parses an integer query value; its range is the route schema's to check. */
export function parseIntParam(name: string, raw: string | null): number | undefined {
  if (raw === null) return undefined;
  if (!/^-?\d+$/.test(raw)) throw badQuery(name, `must be an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  // Hundreds of digits overflow to ±Infinity; clamp, so the range check names the allowed range.
  return Number.isFinite(value) ? value : Math.sign(value) * Number.MAX_VALUE;
}
