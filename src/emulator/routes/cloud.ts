import { randomBytes } from "node:crypto";
import { ERROR_CODES } from "../../api/errors";
import type { GameSummary, Game as GameWire, GroupHandle, GroupSummary } from "../../api/schemas/cloud";
import { createPaymentPortalSessionRequest } from "../../api/schemas/cloud";
import { authorizeGame, authorizeGroup } from "../auth";
import type { EmulatorCore, Handler } from "../core";
import { hubOf } from "../fixture";
import { ok, ServiceError } from "../http";
import { byUtf8 } from "../stringOrder";
import { parseBody } from "../validation";
import { watchKeys } from "../watch";
import type { Game, Group } from "../world";

const profileOf = (core: EmulatorCore, groupId: string) => `${hubOf(core.fixture)}/groups/${groupId}`;

function groupHandle(core: EmulatorCore, group: Group): GroupHandle {
  return {
    ...(group.avatarUrl !== undefined ? { avatar_url: group.avatarUrl } : {}),
    display_name: group.displayName,
    external: { profile: profileOf(core, group.id) },
    group_id: group.id,
    is_developer: group.isDeveloper,
  };
}

/**
 * Fields the seed dropped but the service still sends, because its own published clients require
 * them (docs/service-contract.md §7). Our answer schemas ignore them; the emulator must send them all the same.
 */
const DEPRECATED = {
  groupSummary: { is_developer: true },
  regionSummary: { universal_region: "unknown" },
} as const;

function groupSummary(
  core: EmulatorCore,
  group: Group,
  identityId: string,
): GroupSummary & typeof DEPRECATED.groupSummary {
  return {
    ...(group.avatarUrl !== undefined ? { avatar_url: group.avatarUrl } : {}),
    bio: group.bio,
    display_name: group.displayName,
    external: { profile: profileOf(core, group.id) },
    group_id: group.id,
    ...DEPRECATED.groupSummary,
    is_current_identity_member: group.members.includes(identityId),
    member_count: group.members.length,
    owner_identity_id: group.ownerIdentityId,
    publicity: group.publicity,
  };
}

function gameSummary(core: EmulatorCore, game: Game): GameSummary {
  const group = core.world.groups.get(game.developerGroupId) as Group;
  return {
    ...(game.bannerUrl !== undefined ? { banner_url: game.bannerUrl } : {}),
    developer: groupHandle(core, group),
    display_name: game.displayName,
    game_id: game.id,
    ...(game.logoUrl !== undefined ? { logo_url: game.logoUrl } : {}),
    name_id: game.nameId,
    total_player_count: game.totalPlayerCount,
    url: game.url ?? `${hubOf(core.fixture)}/games/${game.nameId}`,
  };
}

function fullGame(game: Game): GameWire {
  return {
    available_regions: game.regions.map((r) => ({
      provider: r.provider,
      provider_display_name: r.providerDisplayName,
      region_display_name: r.displayName,
      region_id: r.id,
      region_name_id: r.nameId,
      ...DEPRECATED.regionSummary,
    })),
    ...(game.bannerUrl !== undefined ? { banner_url: game.bannerUrl } : {}),
    create_ts: game.createTs,
    developer_group_id: game.developerGroupId,
    display_name: game.displayName,
    game_id: game.id,
    ...(game.logoUrl !== undefined ? { logo_url: game.logoUrl } : {}),
    name_id: game.nameId,
    namespaces: [...game.environments]
      .sort((a, b) => byUtf8(a.displayName, b.displayName))
      .map((e) => ({
        create_ts: e.createTs,
        display_name: e.displayName,
        name_id: e.nameId,
        namespace_id: e.id,
        version_id: e.versionId,
      })),
    total_player_count: game.totalPlayerCount,
    versions: [...game.versions]
      .sort((a, b) => Date.parse(a.createTs) - Date.parse(b.createTs))
      .map((v) => ({ create_ts: v.createTs, display_name: v.displayName, version_id: v.id })),
  };
}

/** `GET /cloud/bootstrap`: no token needed, but a token that is sent is checked. */
export const getBootstrap: Handler = (core, ctx) => {
  core.principal(ctx, true);
  return ok(core.fixture.bootstrap);
};

/** `GET /cloud/games`: the identity's groups and their games, or the cloud token's one game. */
export const listGames: Handler = (core, ctx) => {
  const principal = core.principal(ctx);
  // Read before what the token may do is decided, as a body is (docs/service-contract.md §1).
  const since = core.watchIndexOf(ctx);
  if (principal.kind === "cloud") {
    if (since !== undefined) {
      throw new ServiceError(403, ERROR_CODES.forbidden, "Cloud token cannot watch `/games`.");
    }
    const game = core.world.games.get(principal.gameId) as Game;
    return core.watchable(ctx, undefined, {
      cacheKey: `games:cloud:${game.id}`,
      keys: () => [watchKeys.game(game.id)],
      render: () => ({ games: [gameSummary(core, game)], groups: [] }),
    });
  }
  const { identityId } = principal;
  return core.watchable(ctx, since, {
    cacheKey: `games:user:${identityId}`,
    // Updates of any game of the identity's groups wake it; joining a group does not, but the
    // next answer lists the group and its games, and from then on their updates wake it too.
    keys: () => {
      const groups = core.world.groupsOf(identityId);
      return core.world.gamesOfGroups(new Set(groups.map((g) => g.id))).map((g) => watchKeys.game(g.id));
    },
    render: () => {
      const groups = core.world.groupsOf(identityId);
      const games = core.world.gamesOfGroups(new Set(groups.map((g) => g.id)));
      return {
        games: games.map((g) => gameSummary(core, g)),
        groups: groups.map((g) => groupSummary(core, g, identityId)),
      };
    },
  });
};

/** `GET /cloud/games/{game_id}`: namespaces by display name, versions oldest first. */
export const getGame: Handler = (core, ctx) => {
  const gameId = ctx.params.game as string;
  authorizeGame(core.world, core.principal(ctx), gameId);
  const since = core.watchIndexOf(ctx);
  const game = core.world.games.get(gameId);
  if (!game) throw new ServiceError(400, ERROR_CODES.gameNotFound, `Game ${gameId} was not found.`);
  return core.watchable(ctx, since, {
    cacheKey: `game:${gameId}`,
    keys: () => [watchKeys.game(gameId)],
    render: () => ({ game: fullGame(game) }),
  });
};

function requireBillingEnabled(core: EmulatorCore): void {
  if (!core.fixture.billingEnabled) {
    throw new ServiceError(400, ERROR_CODES.billingNotEnabled, "Billing is not enabled on this deployment.");
  }
}

/** `GET /cloud/groups/{group_id}/billing`: the group's billing timestamps (unset ones omitted). */
export const getGroupBilling: Handler = (core, ctx) => {
  const groupId = ctx.params.group as string;
  authorizeGroup(core.world, core.principal(ctx), groupId);
  const since = core.watchIndexOf(ctx);
  requireBillingEnabled(core);
  const group = core.world.groups.get(groupId) as Group;
  return core.watchable(ctx, since, {
    cacheKey: `billing:${groupId}`,
    // Billing changes are no game update: a watch of them is held to its timeout, then answered.
    keys: () => [],
    render: () => ({ group: { ...group.billing } }),
  });
};

/** The portal-session body as the service reads it: unknown fields ignored (docs/service-contract.md §1). */
const PaymentPortalSessionAsServed = createPaymentPortalSessionRequest("ignore");

/** `POST /cloud/groups/{group_id}/billing/payment-portal-session`: a short-lived personal URL. */
export const createPaymentPortalSession: Handler = async (core, ctx) => {
  const groupId = ctx.params.group as string;
  // The service's order (docs/service-contract.md §1): the token is valid, the body, then what the token may do.
  const principal = core.principal(ctx);
  const body = parseBody(PaymentPortalSessionAsServed, await ctx.json());
  authorizeGroup(core.world, principal, groupId);
  requireBillingEnabled(core);
  const session = randomBytes(24).toString("base64url");
  return ok({
    payment_session_url: `${hubOf(core.fixture)}/billing/portal/${session}?group=${groupId}&intent=${body.intent}`,
  });
};
