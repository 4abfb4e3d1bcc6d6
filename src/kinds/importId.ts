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
    // Three parts, some of them names (`space-race/prod/…`): say which, since the rule alone reads as met.
    const names = parts.length === 3 ? parts.filter((_, i) => !ids[i]?.success) : [];
    const notIds = names.length
      ? `; not a UUID: ${names.map((n) => JSON.stringify(n.slice(0, 64))).join(", ")} (getEnvironment gives the game's and environment's UUIDs)`
      : "";
    throw new GamehostValidationError(what, [{ path: "id", message: `${rule}${notIds}` }]);
  }
  return ids.map((r) => r.data as string) as [string, string, string];
}
