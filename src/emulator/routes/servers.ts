import { randomUUID } from "node:crypto";
import { ERROR_CODES } from "../../api/errors";
import {
  CreateServerRequestAsServed,
  DeleteServerQuery,
  ListBuildsQuery,
  ListServersQuery,
} from "../../api/schemas/servers";
import { authorizeGame } from "../auth";
import type { EmulatorCore, Handler, RequestContext } from "../core";
import { ok, okNow, ServiceError } from "../http";
import { newestFirst, newServer, type ServerRecord, tagsContain } from "../servers";
import { byUtf8 } from "../stringOrder";
import { parseBody, parseBool, parseIntParam, parseQuery, parseTagsJson } from "../validation";
import type { Environment, Game, Principal } from "../world";

/**
 * The last checks of every servers route. The service's order (docs/service-contract.md §1, §2) is: the token
 * is valid (`core.principal`), then the route's own body or query, then — here — the game and the
 * environment exist (both 400), and only then may the caller use them: a cloud token of another
 * game is 403 `API_FORBIDDEN` (so an unknown environment is `GAME_ENVIRONMENT_NOT_FOUND` even for
 * such a token), a user outside the game's group 403 `GROUP_NOT_MEMBER`.
 */
function scope(
  core: EmulatorCore,
  ctx: RequestContext,
  principal: Principal,
): { game: Game; environment: Environment } {
  const gameId = ctx.params.game as string;
  const environmentId = ctx.params.env as string;
  const game = core.world.games.get(gameId);
  if (!game) throw new ServiceError(400, ERROR_CODES.gameNotFound, `Game ${gameId} was not found.`);
  const environment = core.world.environmentOf(gameId, environmentId);
  if (!environment) {
    throw new ServiceError(
      400,
      ERROR_CODES.environmentNotFound,
      `Environment ${environmentId} was not found in game ${gameId}.`,
    );
  }
  authorizeGame(core.world, principal, gameId, "forbidden");
  return { game, environment };
}

/** A server of this environment, else 400 `SERVERS_SERVER_NOT_FOUND` (also for another environment's id). */
function findServer(core: EmulatorCore, environmentId: string, serverId: string): ServerRecord {
  const record = core.servers.get(serverId);
  if (!record || record.server.environment !== environmentId) {
    throw new ServiceError(
      400,
      ERROR_CODES.serverNotFound,
      `Server ${serverId} was not found in this environment.`,
    );
  }
  return record;
}

/** `POST …/servers`: validated, accepted at once, placed after the placement delay. */
export const createServer: Handler = async (core, ctx) => {
  const principal = core.principal(ctx);
  const body = parseBody(CreateServerRequestAsServed, await ctx.json());
  const { game, environment } = scope(core, ctx, principal);
  const datacenter = game.datacenters.find((d) => d.id === body.datacenter);
  if (!datacenter) {
    throw new ServiceError(
      400,
      ERROR_CODES.datacenterNotFound,
      `Datacenter ${body.datacenter} is not a datacenter of this game's cluster.`,
    );
  }
  const build = environment.builds.find((b) => b.id === body.runtime.build);
  if (!build) {
    throw new ServiceError(
      400,
      ERROR_CODES.buildNotFound,
      `Build ${body.runtime.build} was not found in environment ${environment.id}.`,
    );
  }
  const server = newServer(randomUUID(), environment.id, body, core.now());
  // The world's own id strings, not copies from this request: every stored server shares them.
  server.datacenter = datacenter.id;
  server.runtime.build = build.id;
  // Serialized now: placement may change the live object before the state is on disk.
  const reply = okNow({ server });
  await core.addServer(server, game.id);
  return reply;
};

/** `GET …/servers/{server_id}`: destroyed servers are still returned. */
export const getServer: Handler = (core, ctx) => {
  const { environment } = scope(core, ctx, core.principal(ctx));
  return okNow({ server: findServer(core, environment.id, ctx.params.server as string).server });
};

/** `DELETE …/servers/{server_id}`: `destroyed_at` at once; idempotent on a destroyed server. */
export const deleteServer: Handler = async (core, ctx) => {
  const principal = core.principal(ctx);
  const query = parseQuery(DeleteServerQuery, {
    override_kill_timeout: parseIntParam("override_kill_timeout", ctx.query.get("override_kill_timeout")),
  });
  const { environment } = scope(core, ctx, principal);
  const record = findServer(core, environment.id, ctx.params.server as string);
  await core.destroyServer(record, query.override_kill_timeout);
  return ok({});
};

/** `GET …/servers`: tag containment, newest first, destroyed only on request, `cursor` = strictly older. */
export const listServers: Handler = (core, ctx) => {
  const principal = core.principal(ctx);
  const cursorRaw = ctx.query.get("cursor");
  const query = parseQuery(
    ListServersQuery,
    {
      tags: parseTagsJson(ctx.query.get("tags_json")),
      include_destroyed: parseBool("include_destroyed", ctx.query.get("include_destroyed")),
      cursor: cursorRaw ?? undefined,
    },
    { tags: "tags_json" },
  );
  const { environment } = scope(core, ctx, principal);
  const inEnvironment = [...core.servers.values()].filter((r) => r.server.environment === environment.id);
  // Any server's id, of another environment too: the service compares with that server's age wherever it
  // is. An unknown cursor matches nothing older, as the service's "older than" query does. Older means
  // created in an earlier millisecond: a server created in the cursor's own millisecond is not older,
  // whichever was created first (the service compares creation times; docs/service-contract.md §4).
  const cursor = query.cursor === undefined ? undefined : core.servers.get(query.cursor);
  const servers = inEnvironment
    .filter((r) => query.include_destroyed === true || r.server.destroyed_at === undefined)
    .filter((r) => tagsContain(r.server.tags, query.tags))
    .filter(
      (r) =>
        query.cursor === undefined ||
        (cursor !== undefined && r.server.created_at < cursor.server.created_at),
    )
    .sort(newestFirst)
    .map((r) => r.server);
  return okNow({ servers });
};

/** `GET …/datacenters`: the game's datacenters by slug. */
export const listDatacenters: Handler = (core, ctx) => {
  const { game } = scope(core, ctx, core.principal(ctx));
  const datacenters = [...game.datacenters]
    .sort((a, b) => byUtf8(a.slug, b.slug))
    .map((d) => ({ id: d.id, slug: d.slug, name: d.name }));
  return ok({ datacenters });
};

/** `GET …/builds`: the environment's builds, newest first, filtered by `tags_json`. */
export const listBuilds: Handler = (core, ctx) => {
  const principal = core.principal(ctx);
  const query = parseQuery(
    ListBuildsQuery,
    { tags: parseTagsJson(ctx.query.get("tags_json")) },
    { tags: "tags_json" },
  );
  const { environment } = scope(core, ctx, principal);
  const builds = environment.builds
    .filter((b) => tagsContain(b.tags, query.tags))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    .map((b) => ({
      id: b.id,
      name: b.name,
      created_at: b.createdAt,
      content_length: b.contentLength,
      tags: { ...b.tags },
    }));
  return ok({ builds });
};
