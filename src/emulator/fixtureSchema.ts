// The zod schemas of an emulator fixture; fixture.ts parses with them, fixtureTypes.ts declares their types.
import { z } from "zod";
import { HEADER_CONTROL_CHARACTER } from "../api/config";
import { ACCESS_MODES, Bio, Bootstrap, CLUSTERS, PUBLICITIES, Publicity } from "../api/schemas/cloud";
import { DisplayName, NameId, Rfc3339, StringMap, Uint32, Uint64, Uuid } from "../api/schemas/common";
import { GAME_GUARD_PORTS, HOST_PORTS, type PortRange } from "./servers";

/**
 * A cloud timestamp: any RFC 3339 form in the fixture, served as the service writes them
 * (milliseconds and `Z`, e.g. `2024-08-16T05:35:01.123Z`).
 */
export const CloudTimestamp = Rfc3339.transform((ts) => new Date(ts).toISOString());

/**
 * A check that a value is one the service sends (docs/service-contract.md §3). The answer schemas take any
 * string there, so that a value the service adds later breaks no caller; the emulator's data must hold only
 * the values the service sends today, or it would answer what the service never does.
 */
function sentByTheService(values: readonly string[]) {
  const allowed = values.join(" or ");
  return { check: (value: string) => values.includes(value), error: `must be ${allowed}` };
}

const PUBLICITY = sentByTheService(PUBLICITIES);
const CLUSTER = sentByTheService(CLUSTERS);
const ACCESS = sentByTheService(ACCESS_MODES);

/** The bootstrap answer, with only the `cluster` and `access` values the service sends. */
const FixtureBootstrap = Bootstrap.superRefine((bootstrap, ctx) => {
  if (!CLUSTER.check(bootstrap.cluster))
    ctx.addIssue({ code: "custom", path: ["cluster"], message: CLUSTER.error });
  if (!ACCESS.check(bootstrap.access))
    ctx.addIssue({ code: "custom", path: ["access"], message: ACCESS.error });
});

/** A group's billing record; absent fields are omitted from answers (never null). */
export const FixtureBilling = z.strictObject({
  payment_failed_ts: CloudTimestamp.optional(),
  payment_method_attached_ts: CloudTimestamp.optional(),
  payment_method_valid_ts: CloudTimestamp.optional(),
  payment_succeeded_ts: CloudTimestamp.optional(),
});

/** Someone who can hold a user token. */
export const FixtureIdentity = z.strictObject({ id: Uuid, displayName: DisplayName });

/** A developer group: its members, and its billing record (wire shape, fields omitted when unset). */
export const FixtureGroup = z.strictObject({
  id: Uuid,
  displayName: DisplayName,
  /** Empty by default, as for every new group of the service (docs/service-contract.md §3). */
  bio: Bio.default(""),
  publicity: Publicity.refine(PUBLICITY.check, { error: PUBLICITY.error }),
  ownerIdentityId: Uuid,
  avatarUrl: z.string().optional(),
  isDeveloper: z.boolean().default(true),
  members: z.array(Uuid),
  billing: FixtureBilling.default({}),
});

/**
 * A bearer token. `user` tokens act as an identity; `cloud` tokens act for one game. `role` marks
 * the tokens the emulator hands to tests (`user`, `otherUser`, `expired`); `expiresAt` (epoch ms)
 * makes a token expired once the clock passes it.
 */
// A client sends the token in an `Authorization` header, which can carry no control character and would not
// keep a space at either end: a fixture token holding one could never be presented.
const TokenText = z
  .string()
  .min(1)
  .refine(
    (t) => !HEADER_CONTROL_CHARACTER.test(t),
    "must hold no control character (no HTTP header carries one)",
  )
  .refine((t) => t.trim() === t, "must not start or end with a space");

export const FixtureToken = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("user"),
    token: TokenText,
    identityId: Uuid,
    role: z.enum(["user", "otherUser", "expired"]).optional(),
    expiresAt: Uint64.optional(),
  }),
  z.strictObject({
    kind: z.literal("cloud"),
    token: TokenText,
    gameId: Uuid,
    role: z.enum(["expired"]).optional(),
    expiresAt: Uint64.optional(),
  }),
]);

/** A region lobbies run in (`available_regions` of a game). */
export const FixtureRegion = z.strictObject({
  id: Uuid,
  nameId: NameId,
  displayName: DisplayName,
  provider: z.string().min(1),
  providerDisplayName: DisplayName,
});

/** A game version; answers list versions oldest first. */
export const FixtureVersion = z.strictObject({
  id: Uuid,
  displayName: DisplayName,
  createTs: CloudTimestamp,
});

/** A build that servers of one environment may run. */
export const FixtureBuild = z.strictObject({
  id: Uuid,
  name: z.string().min(1),
  createdAt: CloudTimestamp,
  contentLength: Uint64,
  tags: StringMap.default({}),
});

/** An environment ("namespace" in the cloud API) with the version it runs and its builds. */
export const FixtureEnvironment = z.strictObject({
  id: Uuid,
  nameId: NameId,
  displayName: DisplayName,
  createTs: CloudTimestamp,
  versionId: Uuid,
  builds: z.array(FixtureBuild).default([]),
});

/** An inclusive range of public ports, `min` ≤ `max`. */
export const FixturePortRange = z
  .strictObject({ min: z.number().int().min(1).max(65_535), max: z.number().int().min(1).max(65_535) })
  .refine((r) => r.min <= r.max, { message: "min must not be above max", path: ["max"] });

/** A port range inside the service's `range`: a fixture narrows the public ports, never widens them. */
function within(range: PortRange) {
  return FixturePortRange.refine((r) => r.min >= range.min && r.max <= range.max, {
    message: `must lie within ${range.min}–${range.max}, the service's public ports of this routing`,
  });
}

/**
 * A datacenter of the game's cluster; host-routed ports get `nodeIp` as their public hostname.
 * `hostPorts` (default 26000–31999) and `gameGuardPorts` (default 20000–31999) narrow the public
 * ports placement draws from, e.g. to show what happens when a node runs out of them.
 */
export const FixtureDatacenter = z.strictObject({
  id: Uuid,
  slug: z.string().min(1),
  name: z.string().min(1),
  nodeIp: z.ipv4(),
  hostPorts: within(HOST_PORTS).optional(),
  gameGuardPorts: within(GAME_GUARD_PORTS).optional(),
});

/** A game: its developer group, regions, versions, environments and datacenters. */
export const FixtureGame = z.strictObject({
  id: Uuid,
  nameId: NameId,
  displayName: DisplayName,
  developerGroupId: Uuid,
  createTs: CloudTimestamp,
  /** Public URL of the game; default `{hub}/games/{nameId}`. */
  url: z.string().optional(),
  logoUrl: z.string().optional(),
  bannerUrl: z.string().optional(),
  totalPlayerCount: Uint32.default(0),
  regions: z.array(FixtureRegion).default([]),
  versions: z.array(FixtureVersion).default([]),
  environments: z.array(FixtureEnvironment).default([]),
  datacenters: z.array(FixtureDatacenter).default([]),
});

/** One matchmaker lobby; running while `stopTs` is absent. */
export const FixtureLobby = z.strictObject({
  id: Uuid,
  gameId: Uuid,
  environmentId: Uuid,
  regionId: Uuid,
  versionId: Uuid,
  tierName: z.string().min(1),
  lobbyGroupId: Uuid,
  lobbyGroupName: z.string().min(1),
  startTs: Uint64,
  stopTs: Uint64.optional(),
  /** Free text for humans reading the fixture (e.g. which export case this lobby covers). */
  note: z.string().optional(),
});

/**
 * Deterministic lobby generator, so a million lobbies need no huge JSON. Lobby `i` (0-based) starts
 * in the slot `(endTs - (i+1)·intervalMs, endTs - i·intervalMs]`, so lobbies come out newest first;
 * it lives for up to `maxDurationMs` and is still running if that reaches past `endTs`.
 */
export const FixtureLobbyGenerator = z.strictObject({
  gameId: Uuid,
  count: z.number().int().min(0).max(50_000_000),
  seed: z.number().int(),
  endTs: Uint64,
  intervalMs: z.number().int().min(1).default(60_000),
  maxDurationMs: z.number().int().min(1).default(3_600_000),
  tierNames: z.array(z.string().min(1)).min(1).default(["basic-1d1"]),
  lobbyGroupNames: z.array(z.string().min(1)).min(1).default(["default"]),
});

const FixtureShape = z.strictObject({
  /** Free text for humans; ignored. */
  $comment: z.string().optional(),
  /** Answer of `GET /cloud/bootstrap`, verbatim. */
  bootstrap: FixtureBootstrap,
  /** Domain of game-guard hostnames; default `bootstrap.domains.job`, else `job.localhost`. */
  jobDomain: z.string().optional(),
  /** `false` makes both billing routes answer `BILLING_NOT_ENABLED`. */
  billingEnabled: z.boolean().default(true),
  identities: z.array(FixtureIdentity),
  groups: z.array(FixtureGroup),
  tokens: z.array(FixtureToken),
  games: z.array(FixtureGame),
  lobbies: z.array(FixtureLobby).default([]),
  lobbyGenerators: z.array(FixtureLobbyGenerator).default([]),
});

type Ctx = z.core.$RefinementCtx<z.output<typeof FixtureShape>>;

/** Reports each entry whose `key` (`id` unless named) an earlier entry has: the issue is at the later one. */
function checkUnique(
  ctx: Ctx,
  ids: ReadonlyArray<{ id: string; path: PropertyKey[] }>,
  what: string,
  key = "id",
): void {
  const seen = new Set<string>();
  for (const { id, path } of ids) {
    if (seen.has(id)) ctx.addIssue({ code: "custom", path, message: `duplicate ${what} ${key} ${id}` });
    seen.add(id);
  }
}

/**
 * What the service keeps unique below the top-level lists: a game's name id (games are looked up by
 * it), environment ids across every game (the servers routes find an environment by its id alone, so a
 * copy would take it from the other game), and within a game its environments' name ids, datacenters'
 * ids and slugs, versions, regions and each environment's builds. The data sources pick the first of
 * two names, so a second one would be silently shadowed.
 */
function checkGamesUnique(f: z.output<typeof FixtureShape>, ctx: Ctx): void {
  type Keyed = { id: string; nameId?: string; slug?: string };
  const unique = (lists: Array<[readonly Keyed[], PropertyKey[]]>, what: string, key: keyof Keyed = "id") =>
    checkUnique(
      ctx,
      lists.flatMap(([list, path]) =>
        list.map((item, n) => ({ id: item[key] ?? "", path: [...path, n, key] })),
      ),
      what,
      key,
    );
  unique([[f.games, ["games"]]], "game", "nameId");
  unique(
    f.games.map((g, n) => [g.environments, ["games", n, "environments"]]),
    "environment",
  );
  for (const [n, g] of f.games.entries()) {
    const path = ["games", n];
    unique([[g.environments, [...path, "environments"]]], "environment", "nameId");
    unique([[g.datacenters, [...path, "datacenters"]]], "datacenter");
    unique([[g.datacenters, [...path, "datacenters"]]], "datacenter", "slug");
    unique([[g.versions, [...path, "versions"]]], "version");
    unique([[g.regions, [...path, "regions"]]], "region");
    unique([[g.regions, [...path, "regions"]]], "region", "nameId");
    for (const [k, e] of g.environments.entries())
      unique([[e.builds, [...path, "environments", k, "builds"]]], "build");
  }
  unique([[f.lobbies, ["lobbies"]]], "lobby");
}

/** Cross-references: every id a fixture entry points at must exist where it should. */
function checkReferences(f: z.output<typeof FixtureShape>, ctx: Ctx): void {
  const identities = new Set(f.identities.map((i) => i.id));
  const groups = new Set(f.groups.map((g) => g.id));
  const games = new Map(f.games.map((g) => [g.id, g]));
  const missing = (path: PropertyKey[], what: string, id: string) =>
    ctx.addIssue({ code: "custom", path, message: `unknown ${what} ${id}` });

  checkUnique(
    ctx,
    f.identities.map((i, n) => ({ id: i.id, path: ["identities", n, "id"] })),
    "identity",
  );
  checkUnique(
    ctx,
    f.groups.map((g, n) => ({ id: g.id, path: ["groups", n, "id"] })),
    "group",
  );
  checkUnique(
    ctx,
    f.games.map((g, n) => ({ id: g.id, path: ["games", n, "id"] })),
    "game",
  );
  checkUnique(
    ctx,
    f.tokens.map((t, n) => ({ id: t.token, path: ["tokens", n, "token"] })),
    "token",
  );
  checkGamesUnique(f, ctx);
  f.groups.forEach((g, n) => {
    if (!identities.has(g.ownerIdentityId))
      missing(["groups", n, "ownerIdentityId"], "identity", g.ownerIdentityId);
    g.members.forEach((m, k) => {
      if (!identities.has(m)) missing(["groups", n, "members", k], "identity", m);
    });
  });
  f.tokens.forEach((t, n) => {
    if (t.kind === "user" && !identities.has(t.identityId))
      missing(["tokens", n, "identityId"], "identity", t.identityId);
    if (t.kind === "cloud" && !games.has(t.gameId)) missing(["tokens", n, "gameId"], "game", t.gameId);
  });
  f.games.forEach((g, n) => {
    if (!groups.has(g.developerGroupId))
      missing(["games", n, "developerGroupId"], "group", g.developerGroupId);
    const versions = new Set(g.versions.map((v) => v.id));
    g.environments.forEach((e, k) => {
      if (!versions.has(e.versionId))
        missing(["games", n, "environments", k, "versionId"], "version of this game", e.versionId);
    });
  });
  /** The game an entry of `list` names, or undefined once reported missing. */
  const gameOf = (list: "lobbies" | "lobbyGenerators", n: number, gameId: string) => {
    const game = games.get(gameId);
    if (!game) missing([list, n, "gameId"], "game", gameId);
    return game;
  };
  f.lobbies.forEach((l, n) => {
    const game = gameOf("lobbies", n, l.gameId);
    if (!game) return;
    if (!game.environments.some((e) => e.id === l.environmentId))
      missing(["lobbies", n, "environmentId"], "environment of this game", l.environmentId);
    if (!game.regions.some((r) => r.id === l.regionId))
      missing(["lobbies", n, "regionId"], "region of this game", l.regionId);
    if (!game.versions.some((v) => v.id === l.versionId))
      missing(["lobbies", n, "versionId"], "version of this game", l.versionId);
    if (l.stopTs !== undefined && l.stopTs < l.startTs)
      ctx.addIssue({ code: "custom", path: ["lobbies", n, "stopTs"], message: "must not be before startTs" });
  });
  f.lobbyGenerators.forEach((gen, n) => {
    const game = gameOf("lobbyGenerators", n, gen.gameId);
    if (!game) return;
    if (game.environments.length === 0 || game.regions.length === 0 || game.versions.length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["lobbyGenerators", n, "gameId"],
        message: "the game needs at least one environment, region and version to generate lobbies",
      });
    }
  });
}

/** Schema of an emulator fixture: the whole world the emulator serves ({@link Fixture} once parsed). */
export const Fixture = FixtureShape.superRefine(checkReferences);
