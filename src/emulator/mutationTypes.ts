// What `pulumi-gamehost/emulator` declares about mutations, without zod (see fixtureTypes.ts for why); the
// implementation and the admin route's JSON schema are in mutations.ts.
import type { GroupBilling } from "../api/generated/wire";

/** A billing patch: a timestamp sets a field, `null` removes it, an absent key leaves it. */
export type BillingPatch = { [K in keyof GroupBilling]?: string | null };

/** An environment to create (see {@link Mutations.createEnvironment}); `id` defaults to a fresh UUID. */
export interface NewEnvironment {
  id?: string | undefined;
  nameId: string;
  displayName: string;
  /** The version it runs: one of the game's. */
  versionId: string;
}

/** A version to publish (see {@link Mutations.publishVersion}); `id` defaults to a fresh UUID. */
export interface NewVersion {
  id?: string | undefined;
  displayName: string;
}

/**
 * Changes to the data the emulator serves. Every change shows at the next answer. Only game
 * updates wake held watches (docs/service-contract.md §5): an environment created, a version published, a
 * logo or banner uploaded, an environment's version set. The others (player counts, display names,
 * group membership, billing) wake nothing; a held watch shows them when it times out.
 */
export interface Mutations {
  /** Game update: a new environment of the game; answers its id. */
  createEnvironment(gameId: string, environment: NewEnvironment): string;
  /** Game update: a new version of the game, created now; answers its id. */
  publishVersion(gameId: string, version: NewVersion): string;
  /** Game update: a logo uploaded (its URL). */
  setGameLogo(gameId: string, logoUrl: string): void;
  /** Game update: a banner uploaded (its URL). */
  setGameBanner(gameId: string, bannerUrl: string): void;
  /** Game update: the version an environment runs. */
  setEnvironmentVersion(gameId: string, environmentId: string, versionId: string): void;
  /** Wakes no watch. */
  setTotalPlayerCount(gameId: string, count: number): void;
  /** Wakes no watch. */
  setGameDisplayName(gameId: string, displayName: string): void;
  /** Wakes no watch. */
  setBilling(groupId: string, patch: BillingPatch): void;
  /** Turns billing on or off for the whole deployment (off: `BILLING_NOT_ENABLED`). Wakes no watch. */
  setBillingEnabled(enabled: boolean): void;
  /** Wakes no watch. */
  addGroupMember(groupId: string, identityId: string): void;
  /** Wakes no watch. */
  removeGroupMember(groupId: string, identityId: string): void;
}
