import { GamehostValidationError } from "../api/errors";
import { Uuid } from "../api/schemas";

/**
 * The three UUIDs of an import id `<gameId>/<environmentId>/<id>` (Server and Fleet ids are scoped so: their GET
 * and list paths need the game and environment), canonical. Anything else is a validation error of `what` on
 * `id` that states `rule`, the kind's own wording with an example.
 */
export function scopedImportId(id: string, what: string, rule: string): [string, string, string] {
  const parts = id.split("/");
  const ids = parts.map((p) => Uuid.safeParse(p));
  if (parts.length !== 3 || ids.some((r) => !r.success)) {
    throw new GamehostValidationError(what, [{ path: "id", message: rule }]);
  }
  return ids.map((r) => r.data as string) as [string, string, string];
}
