/**
 * Every data source, written once: its arguments (checked with zod, described for the package
 * schema), what it reads, and its result in camelCase. The program-side functions (`cloud.ts`) and the
 * plugin's `Invoke` both run these.
 */
import { z } from "zod";
import { type Camelize, toCamelKeys } from "../api/case";
import type { GamehostClient, RequestOptions } from "../api/client";
import { GamehostError } from "../api/errors";
import {
  Bootstrap,
  Build,
  CreatePaymentPortalSessionResponse,
  Datacenter,
  GetGameResponse,
  GetGroupBillingResponse,
  ListGamesResponse,
  NamespaceSummary,
  PaymentIntent,
  StringMap,
  Uuid,
} from "../api/schemas";

/** One data source. */
export interface FunctionDefinition<A, R> {
  /** Function name: `gamehost:index:<name>` in the plugin, `<name>` / `<name>Output` in TypeScript. */
  readonly name: string;
  readonly description: string;
  /** Arguments, camelCase, with descriptions. */
  readonly args: z.ZodType<A>;
  /** The result's shape (wire names, snake_case: results are its camelCase form), with descriptions. */
  readonly result: z.ZodType;
  /** Whether the result is a secret (the plugin wraps it; the Output form marks it). */
  readonly secret: boolean;
  /** Whether a token is needed (bootstrap answers without one). */
  readonly needsToken: boolean;
  run(client: GamehostClient, args: A, o?: RequestOptions): Promise<R>;
}

const define = <A, R>(definition: FunctionDefinition<A, R>) => definition;

/** Arguments of a data source that takes none. */
const NoArgs: z.ZodType<Record<string, never>> = z.strictObject({});

const Scope = {
  gameId: Uuid.describe("UUID of the game."),
  environmentId: Uuid.describe("UUID of the environment (a namespace's `namespaceId`; see getEnvironment)."),
};

/** A filter that matched nothing: say what there is, so the fix is one edit away. */
function noMatch(
  what: string,
  wanted: string,
  where: string,
  available: readonly string[],
  why = "",
): GamehostError {
  const have = available.length > 0 ? available.join(", ") : "none";
  return new GamehostError(`No ${what} ${wanted} in ${where} (available: ${have})${why}.`);
}

export const getBootstrap: FunctionDefinition<Record<string, never>, Camelize<Bootstrap>> = define({
  name: "getBootstrap",
  description:
    "Reads what a client needs to know about the deployment (`GET /cloud/bootstrap`; no token needed).",
  args: NoArgs,
  result: Bootstrap,
  secret: false,
  needsToken: false,
  async run(client, _args, o): Promise<Camelize<Bootstrap>> {
    return toCamelKeys(await client.getBootstrap(o));
  },
});

export const getGames: FunctionDefinition<Record<string, never>, Camelize<ListGamesResponse>> = define({
  name: "getGames",
  description:
    "Lists the games of every group the caller belongs to, and those groups (a game-scoped cloud token: its one game).",
  args: NoArgs,
  result: ListGamesResponse,
  secret: false,
  needsToken: true,
  async run(client, _args, o): Promise<Camelize<ListGamesResponse>> {
    return toCamelKeys(await client.listGames(o));
  },
});

export const getGame: FunctionDefinition<{ gameId: string }, Camelize<GetGameResponse>> = define({
  name: "getGame",
  description: "Reads one game with its regions, environments (namespaces) and versions.",
  args: z.strictObject({ gameId: Scope.gameId }),
  result: GetGameResponse,
  secret: false,
  needsToken: true,
  async run(client, args, o): Promise<Camelize<GetGameResponse>> {
    return toCamelKeys(await client.getGame(args.gameId, o));
  },
});

/** The result of {@link getEnvironment}: the ids a Server needs, from names a person knows. */
export const EnvironmentResult = z
  .object({
    game_id: z.string().describe("UUID of the game: a Server's `gameId`."),
    game_name_id: z.string().describe("Name id of the game."),
    game_display_name: z.string().describe("Display name of the game."),
    environment: NamespaceSummary.describe(
      "The environment; its `namespaceId` is a Server's `environmentId` (also given as `environmentId`).",
    ),
    environment_id: z.string().describe("UUID of the environment: a Server's `environmentId`."),
  })
  .describe("A game's environment, found by names.");

export const getEnvironment: FunctionDefinition<
  { game: string; environment: string },
  Camelize<z.infer<typeof EnvironmentResult>>
> = define({
  name: "getEnvironment",
  description:
    "Finds a game (by name id or UUID) among the caller's games and one of its environments by name id (e.g. `prod`): the ids a Server needs, without pasting UUIDs.",
  args: z.strictObject({
    game: z.string().min(1).describe("The game's name id (e.g. `space-race`) or UUID."),
    environment: z.string().min(1).describe("The environment's name id, e.g. `prod`."),
  }),
  result: EnvironmentResult,
  secret: false,
  needsToken: true,
  async run(client, args, o): Promise<Camelize<z.infer<typeof EnvironmentResult>>> {
    const { games, groups } = await client.listGames(o);
    const wantedId = Uuid.safeParse(args.game);
    const summary = games.find((g) =>
      wantedId.success ? g.game_id === wantedId.data : g.name_id === args.game,
    );
    if (!summary) {
      throw noMatch(
        "game",
        JSON.stringify(args.game),
        "the caller's games",
        games.map((g) => g.name_id),
        // A game's cloud token is answered its one game and no groups (service contract §7): the game named
        // may well exist, out of this token's sight.
        groups.length === 0 && games.length === 1
          ? ": a game's cloud token sees its own game only; look another up with a group member's user token"
          : "",
      );
    }
    const { game } = await client.getGame(summary.game_id, o);
    const environment = game.namespaces.find((n) => n.name_id === args.environment);
    if (!environment) {
      throw noMatch(
        "environment",
        JSON.stringify(args.environment),
        `game ${game.name_id}`,
        game.namespaces.map((n) => n.name_id),
      );
    }
    return toCamelKeys({
      game_id: game.game_id,
      game_name_id: game.name_id,
      game_display_name: game.display_name,
      environment,
      environment_id: environment.namespace_id,
    });
  },
});

export const DatacentersResult = z.object({
  datacenters: z.array(Datacenter).describe("The matching datacenters, by slug."),
});

export const getDatacenters: FunctionDefinition<
  { gameId: string; environmentId: string; slug?: string | undefined; name?: string | undefined },
  Camelize<z.infer<typeof DatacentersResult>>
> = define({
  name: "getDatacenters",
  description:
    "Lists the datacenters a game's servers can run in, optionally one by slug or name (an error names the slugs, or the names, there are when none matches).",
  args: z.strictObject({
    ...Scope,
    slug: z.string().min(1).optional().describe("Only the datacenter with this slug, e.g. `us-east-atl`."),
    name: z.string().min(1).optional().describe("Only the datacenter with this display name."),
  }),
  result: DatacentersResult,
  secret: false,
  needsToken: true,
  async run(client, args, o): Promise<Camelize<z.infer<typeof DatacentersResult>>> {
    const all = await client.listDatacenters(args.gameId, args.environmentId, o);
    const datacenters = all.filter(
      (d) =>
        (args.slug === undefined || d.slug === args.slug) &&
        (args.name === undefined || d.name === args.name),
    );
    if (datacenters.length === 0 && (args.slug !== undefined || args.name !== undefined)) {
      const wanted = [
        args.slug && `slug ${JSON.stringify(args.slug)}`,
        args.name && `name ${JSON.stringify(args.name)}`,
      ]
        .filter(Boolean)
        .join(" and ");
      // What was looked up by is what is listed: a display name is corrected from the names, not the slugs.
      const byNameOnly = args.name !== undefined && args.slug === undefined;
      throw noMatch(
        "datacenter with",
        wanted,
        `game ${args.gameId}`,
        all.map((d) => (byNameOnly ? JSON.stringify(d.name) : d.slug)),
      );
    }
    return toCamelKeys({ datacenters });
  },
});

export const BuildsResult = z.object({
  builds: z.array(Build).describe("The matching builds, newest first."),
});

export const getBuilds: FunctionDefinition<
  { gameId: string; environmentId: string; tags?: Record<string, string> | undefined },
  Camelize<z.infer<typeof BuildsResult>>
> = define({
  name: "getBuilds",
  description:
    "Lists the builds of an environment, newest first, optionally those carrying every given tag (an error when tags match none).",
  args: z.strictObject({
    ...Scope,
    tags: StringMap.optional().describe(
      'Only builds carrying every one of these tags, e.g. `{ channel: "stable" }`.',
    ),
  }),
  result: BuildsResult,
  secret: false,
  needsToken: true,
  async run(client, args, o): Promise<Camelize<z.infer<typeof BuildsResult>>> {
    const answered = await client.listBuilds(
      args.gameId,
      args.environmentId,
      args.tags !== undefined ? { tags: args.tags } : {},
      o,
    );
    // The service contract gives the list no order, and `builds[0]` is the newest by this promise: sorted
    // here (stably: builds of one instant keep the service's order).
    const builds = [...answered].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    if (builds.length === 0 && args.tags !== undefined && Object.keys(args.tags).length > 0) {
      throw new GamehostError(
        `No build of environment ${args.environmentId} carries the tags ${JSON.stringify(args.tags)}: check the tags, or upload a build with them.`,
      );
    }
    return toCamelKeys({ builds });
  },
});

/**
 * A group's routes take the user token of a member only (service contract §2), and getGames lists no groups
 * for a game's cloud token (§7): `getGamesOutput().groups[0].groupId` is then undefined.
 */
const GROUP_ID_DESCRIPTION =
  "UUID of the group (`getGames` lists the caller's groups; none for a game's cloud token). The token must be the user token of a member of the group: no cloud token is entitled to a group's routes.";

export const getGroupBilling: FunctionDefinition<
  { groupId: string },
  Camelize<GetGroupBillingResponse>
> = define({
  name: "getGroupBilling",
  description: 'Reads a group\'s billing record (marked "coming soon" by the service).',
  args: z.strictObject({ groupId: Uuid.describe(GROUP_ID_DESCRIPTION) }),
  result: GetGroupBillingResponse,
  secret: false,
  needsToken: true,
  async run(client, args, o): Promise<Camelize<GetGroupBillingResponse>> {
    return toCamelKeys(await client.getGroupBilling(args.groupId, o));
  },
});

export const PaymentPortalResult = z.object({
  url: CreatePaymentPortalSessionResponse.shape.payment_session_url,
});

export const createPaymentPortalSession: FunctionDefinition<
  { groupId: string; intent: PaymentIntent },
  { url: string }
> = define({
  name: "createPaymentPortalSession",
  description: "Opens a payment portal session for a group. The URL is personal and short-lived: a secret.",
  args: z.strictObject({
    groupId: Uuid.describe(GROUP_ID_DESCRIPTION),
    intent: PaymentIntent,
  }),
  result: PaymentPortalResult,
  secret: true,
  needsToken: true,
  async run(client, args, o): Promise<{ url: string }> {
    const session = await client.createPaymentPortalSession(args.groupId, { intent: args.intent }, o);
    return { url: session.payment_session_url };
  },
});

/** Every data source, by name. */
export const FUNCTIONS = {
  getBootstrap,
  getGames,
  getGame,
  getEnvironment,
  getDatacenters,
  getBuilds,
  getGroupBilling,
  createPaymentPortalSession,
} as const;
