import { ERROR_CODES } from "../api/errors";
import { ServiceError } from "./http";
import type { Principal, World } from "./world";

const BEARER = /^Bearer ([^\s]+)$/;

/** The bearer token of an `Authorization` header; anything else counts as no token. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header.trim())?.[1] : undefined;
}

/** 401 `API_UNAUTHORIZED`: no bearer token where the route needs one. */
export const missingToken = (): ServiceError =>
  new ServiceError(
    401,
    ERROR_CODES.unauthorized,
    "Missing or malformed Authorization header: expected `Bearer <token>`.",
  );

/**
 * Resolves the token of a request: missing → 401 `API_UNAUTHORIZED` (or `undefined` when the route
 * takes no token), unknown → 400 `TOKEN_INVALID`, expired → 401 `CLAIMS_ENTITLEMENT_EXPIRED`.
 */
export function authenticate(
  world: World,
  header: string | undefined,
  now: number,
  optional = false,
): Principal | undefined {
  const token = bearerToken(header);
  if (token === undefined) {
    if (optional) return undefined;
    throw missingToken();
  }
  const entry = world.tokens.get(token);
  if (!entry) throw new ServiceError(400, ERROR_CODES.tokenInvalid, "The token is invalid.");
  if (entry.role === "expired" || (entry.expiresAt !== undefined && entry.expiresAt <= now)) {
    throw new ServiceError(401, ERROR_CODES.entitlementExpired, "The token has expired.");
  }
  return entry.kind === "user"
    ? { kind: "user", identityId: entry.identityId, token }
    : { kind: "cloud", gameId: entry.gameId, token };
}

/**
 * How a route family refuses a cloud token of another game: the cloud routes say the token lacks
 * the entitlement (401 `CLAIMS_MISSING_ENTITLEMENT`); the servers routes, which check the
 * environment first, say it is forbidden (403 `API_FORBIDDEN`) (docs/service-contract.md §2).
 */
export type OtherGameToken = "unentitled" | "forbidden";

/**
 * Access to a game: a cloud token of that game, or a user in its developer group. An unknown game
 * passes here so the request can fail later, in order, with 400 `GAME_NOT_FOUND`.
 */
export function authorizeGame(
  world: World,
  principal: Principal,
  gameId: string,
  otherGameToken: OtherGameToken = "unentitled",
): void {
  if (principal.kind === "cloud") {
    if (principal.gameId === gameId) return;
    if (otherGameToken === "forbidden") {
      throw new ServiceError(403, ERROR_CODES.forbidden, "Cloud token cannot write to this game.");
    }
    throw new ServiceError(401, ERROR_CODES.missingEntitlement, "The token is not entitled to this game.");
  }
  const game = world.games.get(gameId);
  if (game && !world.isMember(principal.identityId, game.developerGroupId)) {
    throw new ServiceError(
      403,
      ERROR_CODES.groupNotMember,
      "The identity is not a member of the game's group.",
    );
  }
}

/** Billing is per group and user-only: cloud tokens lack the entitlement; non-members are refused. */
export function authorizeGroup(world: World, principal: Principal, groupId: string): string {
  if (principal.kind === "cloud") {
    throw new ServiceError(
      401,
      ERROR_CODES.missingEntitlement,
      "A cloud token is not entitled to group routes.",
    );
  }
  if (!world.isMember(principal.identityId, groupId)) {
    throw new ServiceError(403, ERROR_CODES.groupNotMember, "The identity is not a member of the group.");
  }
  return principal.identityId;
}
