import type { Fixture, FixtureEnvironment, FixtureGame, FixtureGroup, FixtureToken } from "./fixtureTypes";

/** A fixture game (mutable: mutations change it in place). */
export type Game = FixtureGame;
/** A fixture group. */
export type Group = FixtureGroup;
/** A fixture environment. */
export type Environment = FixtureEnvironment;
/** A fixture token. */
export type Token = FixtureToken;

/** Who a request acts as, once its token checks out. */
export type Principal =
  | { kind: "user"; identityId: string; token: string }
  | { kind: "cloud"; gameId: string; token: string };

/** Lookup tables over a fixture. The fixture objects stay the single source of (mutable) data. */
export class World {
  readonly games = new Map<string, Game>();
  readonly groups = new Map<string, Group>();
  readonly tokens = new Map<string, Token>();
  /** environment id → its game and itself. */
  readonly environments = new Map<string, { game: Game; environment: Environment }>();

  constructor(readonly fixture: Fixture) {
    for (const game of fixture.games) {
      this.games.set(game.id, game);
      for (const environment of game.environments)
        this.environments.set(environment.id, { game, environment });
    }
    for (const group of fixture.groups) this.groups.set(group.id, group);
    for (const token of fixture.tokens) this.tokens.set(token.token, token);
  }

  isMember(identityId: string, groupId: string): boolean {
    return this.groups.get(groupId)?.members.includes(identityId) ?? false;
  }

  /** Groups the identity belongs to, by display name. */
  groupsOf(identityId: string): Group[] {
    return this.fixture.groups
      .filter((g) => g.members.includes(identityId))
      .sort((a, b) => a.displayName.localeCompare(b.displayName));
  }

  /** Games developed by any of the groups, by display name. */
  gamesOfGroups(groupIds: ReadonlySet<string>): Game[] {
    return this.fixture.games
      .filter((g) => groupIds.has(g.developerGroupId))
      .sort((a, b) => a.displayName.localeCompare(b.displayName));
  }

  /** Adds a new environment to a game (a mutation: the fixture objects stay the data). */
  addEnvironment(game: Game, environment: Environment): void {
    game.environments.push(environment);
    this.environments.set(environment.id, { game, environment });
  }

  /** The environment if it belongs to the game. */
  environmentOf(gameId: string, environmentId: string): Environment | undefined {
    const hit = this.environments.get(environmentId);
    return hit && hit.game.id === gameId ? hit.environment : undefined;
  }
}
