import type { z } from "zod";
import { GamehostValidationError } from "./errors";
import { toFieldIssues } from "./issues";

/**
 * Parses `value` with `schema`, throwing a {@link GamehostValidationError} naming `where` and every
 * field at fault. Used for requests (strict schemas) and responses (tolerant schemas) alike.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new GamehostValidationError(where, toFieldIssues(result.error));
  return result.data;
}
