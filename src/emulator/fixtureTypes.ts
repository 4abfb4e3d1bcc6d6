// The fixture's shape as plain declarations, so that `pulumi-gamehost/emulator` declares its API without
// zod's typings (which the older Pulumi template, without `esModuleInterop`, cannot read). The schemas are
// in fixtureSchema.ts; test/emulator/publicTypes.test.ts holds each type equal to its schema's output (or
// input) type.
import type { Bootstrap, GroupBilling, GroupSummary } from "../api/generated/wire";

/** A group's billing record; absent fields are omitted from answers (never null). */
export type FixtureBilling = GroupBilling;

/** Someone who can hold a user token. */
export interface FixtureIdentity {
  id: string;
  displayName: string;
}

/** A developer group: its members, and its billing record (wire shape, fields omitted when unset). */
export interface FixtureGroup {
  id: string;
  displayName: string;
  bio: string;
  publicity: GroupSummary["publicity"];
  ownerIdentityId: string;
  avatarUrl?: string | undefined;
  isDeveloper: boolean;
  members: string[];
  billing: FixtureBilling;
}

/**
 * A bearer token. `user` tokens act as an identity; `cloud` tokens act for one game. `role` marks
 * the tokens the emulator hands to tests (`user`, `otherUser`, `expired`); `expiresAt` (epoch ms)
 * makes a token expired once the clock passes it.
 */
export type FixtureToken =
  | {
      kind: "user";
      token: string;
      identityId: string;
      role?: "user" | "otherUser" | "expired" | undefined;
      expiresAt?: number | undefined;
    }
  | {
      kind: "cloud";
      token: string;
      gameId: string;
      role?: "expired" | undefined;
      expiresAt?: number | undefined;
    };

/** A region lobbies run in (`available_regions` of a game). */
export interface FixtureRegion {
  id: string;
  nameId: string;
  displayName: string;
  provider: string;
  providerDisplayName: string;
}

/** A game version; answers list versions oldest first. */
export interface FixtureVersion {
  id: string;
  displayName: string;
  /** RFC 3339; served with milliseconds and `Z`. */
  createTs: string;
}

/** A build that servers of one environment may run. */
export interface FixtureBuild {
  id: string;
  name: string;
  createdAt: string;
  contentLength: number;
  tags: Record<string, string>;
}

/** An environment ("namespace" in the cloud API) with the version it runs and its builds. */
export interface FixtureEnvironment {
  id: string;
  nameId: string;
  displayName: string;
  createTs: string;
  versionId: string;
  builds: FixtureBuild[];
}

/** An inclusive range of public ports, `min` ≤ `max`. */
export interface FixturePortRange {
  min: number;
  max: number;
}

/**
 * A datacenter of the game's cluster; host-routed ports get `nodeIp` as their public hostname.
 * `hostPorts` (default 26000–31999) and `gameGuardPorts` (default 20000–31999) narrow the public
 * ports placement draws from.
 */
export interface FixtureDatacenter {
  id: string;
  slug: string;
  name: string;
  nodeIp: string;
  hostPorts?: FixturePortRange | undefined;
  gameGuardPorts?: FixturePortRange | undefined;
}

/** A game: its developer group, regions, versions, environments and datacenters. */
export interface FixtureGame {
  id: string;
  nameId: string;
  displayName: string;
  developerGroupId: string;
  createTs: string;
  /** Public URL of the game; default `{hub}/games/{nameId}`. */
  url?: string | undefined;
  logoUrl?: string | undefined;
  bannerUrl?: string | undefined;
  totalPlayerCount: number;
  regions: FixtureRegion[];
  versions: FixtureVersion[];
  environments: FixtureEnvironment[];
  datacenters: FixtureDatacenter[];
}

/** One matchmaker lobby; running while `stopTs` is absent. */
export interface FixtureLobby {
  id: string;
  gameId: string;
  environmentId: string;
  regionId: string;
  versionId: string;
  tierName: string;
  lobbyGroupId: string;
  lobbyGroupName: string;
  startTs: number;
  stopTs?: number | undefined;
  /** Free text for humans reading the fixture (e.g. which export case this lobby covers). */
  note?: string | undefined;
}

/**
 * Deterministic lobby generator, so a million lobbies need no huge JSON. Lobby `i` (0-based) starts
 * in the slot `(endTs - (i+1)·intervalMs, endTs - i·intervalMs]`, so lobbies come out newest first;
 * it lives for up to `maxDurationMs` and is still running if that reaches past `endTs`.
 */
export interface FixtureLobbyGenerator {
  gameId: string;
  count: number;
  seed: number;
  endTs: number;
  intervalMs: number;
  maxDurationMs: number;
  tierNames: string[];
  lobbyGroupNames: string[];
}

/** A parsed fixture (defaults applied): the whole world the emulator serves. */
export interface Fixture {
  /** Free text for humans; ignored. */
  $comment?: string | undefined;
  /** Answer of `GET /cloud/bootstrap`, verbatim. */
  bootstrap: Bootstrap;
  /** Domain of game-guard hostnames; default `bootstrap.domains.job`, else `job.localhost`. */
  jobDomain?: string | undefined;
  /** `false` makes both billing routes answer `BILLING_NOT_ENABLED`. */
  billingEnabled: boolean;
  identities: FixtureIdentity[];
  groups: FixtureGroup[];
  tokens: FixtureToken[];
  games: FixtureGame[];
  lobbies: FixtureLobby[];
  lobbyGenerators: FixtureLobbyGenerator[];
}

/** `T` with the keys `K` (those with a default) optional, as a fixture is written. */
type Defaulted<T, K extends keyof T> = Omit<T, K> & { [P in K]?: T[P] | undefined };

/** A group as written in a fixture: `isDeveloper` defaults to true, `billing` to `{}`, `bio` to `""`. */
export type FixtureGroupInput = Defaulted<FixtureGroup, "isDeveloper" | "billing" | "bio">;

/** A build as written in a fixture: `tags` defaults to `{}`. */
export type FixtureBuildInput = Defaulted<FixtureBuild, "tags">;

/** An environment as written in a fixture: `builds` defaults to `[]`. */
export type FixtureEnvironmentInput = Omit<FixtureEnvironment, "builds"> & {
  builds?: FixtureBuildInput[] | undefined;
};

/** A game as written in a fixture: the player count defaults to 0, the lists to `[]`. */
export type FixtureGameInput = Defaulted<
  Omit<FixtureGame, "environments">,
  "totalPlayerCount" | "regions" | "versions" | "datacenters"
> & { environments?: FixtureEnvironmentInput[] | undefined };

/** A lobby generator as written in a fixture (defaults: one-minute slots, one-hour lobbies, one tier and group). */
export type FixtureLobbyGeneratorInput = Defaulted<
  FixtureLobbyGenerator,
  "intervalMs" | "maxDurationMs" | "tierNames" | "lobbyGroupNames"
>;

/** A fixture as written in JSON: the fields with a default may be left out. */
export type FixtureInput = Defaulted<
  Omit<Fixture, "groups" | "games" | "lobbyGenerators">,
  "billingEnabled" | "lobbies"
> & {
  groups: FixtureGroupInput[];
  games: FixtureGameInput[];
  lobbyGenerators?: FixtureLobbyGeneratorInput[] | undefined;
};
