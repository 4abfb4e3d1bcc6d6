/**
 * How the Server kind lists servers (the plugin's `List`, which `pulumi do gamehost:index:Server list`
 * calls): the service's own listing of an environment, filtered by tag containment, destroyed servers on
 * request, newest first. Each one is answered by its import id, so `pulumi import` takes it as listed.
 */
import { z } from "zod";
import { parseWith, type Server, ServerScope, StringMap } from "../../api/schemas";
import type { KindListing, OperationContext } from "../kind";
import { FLEET_TAG } from "./tags";

/** The query of a listing: where to look and which servers to keep (camelCase, as the schema shows it). */
export const ServerListQuery = z
  .strictObject({
    gameId: ServerScope.shape.game_id,
    environmentId: ServerScope.shape.environment_id,
    tags: StringMap.optional().describe(
      "Only servers carrying every one of these tags (a server may carry more). Default: every server.",
    ),
    includeDestroyed: z
      .boolean()
      .optional()
      .describe("Also list destroyed servers (by default only live ones are listed)."),
    includeFleetServers: z
      .boolean()
      .optional()
      .describe(
        "Also list the servers of a `Fleet` (tagged `pulumi-gamehost/fleet`). By default they are left out: a fleet's server is imported with its fleet (`gamehost:index:Fleet`), and `pulumi import` refuses it as a Server.",
      ),
  })
  .describe("Which servers `pulumi do gamehost:index:Server list` lists.");

/** The import id of a server: `<gameId>/<environmentId>/<serverId>` (what the kind's `read` parses). */
export function importIdOf(gameId: string, environmentId: string, serverId: string): string {
  return `${gameId}/${environmentId}/${serverId}`;
}

/** The Server kind's listing. A page ends at a server; the next starts after it (the service's `cursor`). */
export const serverListing: KindListing = {
  inputs: ServerListQuery,
  async list(ctx: OperationContext, query, page) {
    const q = parseWith(ServerListQuery, query, "list inputs of gamehost:index:Server");
    const servers = await ctx.client().listServers(
      q.gameId,
      q.environmentId,
      {
        ...(q.tags !== undefined ? { tags: q.tags } : {}),
        ...(q.includeDestroyed ? { include_destroyed: true } : {}),
        ...(page.after !== undefined ? { cursor: page.after } : {}),
      },
      ctx.signal ? { signal: ctx.signal } : {},
    );
    // An id the list answers is one `pulumi import` takes as a Server: a fleet's server is not one (it has
    // an owner already), unless asked for as an inventory.
    const listed = q.includeFleetServers ? servers : servers.filter((s) => s.tags?.[FLEET_TAG] === undefined);
    const kept = page.limit > 0 ? pageOf(listed, page.limit) : listed;
    const last = kept.at(-1);
    return {
      items: kept.map((s) => ({ id: importIdOf(q.gameId, q.environmentId, s.id) })),
      ...(kept.length < listed.length && last ? { next: last.id } : {}),
    };
  },
};

/**
 * The first `limit` servers (newest first), cut where the next page can resume. The service's `cursor`
 * lists only servers created strictly before the cursor's millisecond (docs/service-contract.md §4), so a
 * page that ended inside a run of servers created in one millisecond would lose the rest of the run. A
 * page ends before such a run, or, when the run starts the page, after it: longer than `limit`, rather
 * than a page that never moves on.
 */
export function pageOf<S extends Pick<Server, "created_at">>(servers: readonly S[], limit: number): S[] {
  if (servers.length <= limit) return [...servers];
  const boundary = (servers[limit - 1] as S).created_at;
  if ((servers[limit] as S).created_at !== boundary) return servers.slice(0, limit);
  let start = limit - 1;
  while (start > 0 && (servers[start - 1] as S).created_at === boundary) start--;
  if (start > 0) return servers.slice(0, start);
  let end = limit;
  while (end < servers.length && (servers[end] as S).created_at === boundary) end++;
  return servers.slice(0, end);
}
