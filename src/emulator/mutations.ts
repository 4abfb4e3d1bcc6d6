import { randomUUID } from "node:crypto";
import { z } from "zod";
import { describeIssues } from "../api/issues";
import { DisplayName, NameId, Rfc3339, Uint32, Uuid } from "../api/schemas/common";
import { toFieldIssues } from "../api/validate";
import type { EmulatorCore } from "./core";
import { CloudTimestamp } from "./fixtureSchema";
import type { BillingPatch, Mutations, NewEnvironment, NewVersion } from "./mutationTypes";
import { watchKeys } from "./watch";
import type { Environment, Game, Group } from "./world";

export type { BillingPatch, Mutations, NewEnvironment, NewVersion } from "./mutationTypes";

/** Schema of {@link NewEnvironment}. */
export const NewEnvironmentSchema = z.strictObject({
  id: Uuid.optional(),
  nameId: NameId,
  displayName: DisplayName,
  versionId: Uuid,
});

/** Schema of {@link NewVersion}. */
export const NewVersionSchema = z.strictObject({ id: Uuid.optional(), displayName: DisplayName });

const BILLING_FIELDS = [
  "payment_failed_ts",
  "payment_method_attached_ts",
  "payment_method_valid_ts",
  "payment_succeeded_ts",
] as const;

/** An image URL as the fixture takes it. */
const ImageUrl = z.string().min(1);

/** JSON body of `POST /__admin/mutate`: one mutation, named by `op`, with the arguments of its method. */
export const MutationJson = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("createEnvironment"), gameId: Uuid, environment: NewEnvironmentSchema }),
  z.strictObject({ op: z.literal("publishVersion"), gameId: Uuid, version: NewVersionSchema }),
  z.strictObject({ op: z.literal("setGameLogo"), gameId: Uuid, logoUrl: ImageUrl }),
  z.strictObject({ op: z.literal("setGameBanner"), gameId: Uuid, bannerUrl: ImageUrl }),
  z.strictObject({
    op: z.literal("setEnvironmentVersion"),
    gameId: Uuid,
    environmentId: Uuid,
    versionId: Uuid,
  }),
  z.strictObject({ op: z.literal("setTotalPlayerCount"), gameId: Uuid, count: Uint32 }),
  z.strictObject({ op: z.literal("setGameDisplayName"), gameId: Uuid, displayName: DisplayName }),
  z.strictObject({
    op: z.literal("setBilling"),
    groupId: Uuid,
    patch: z.strictObject(Object.fromEntries(BILLING_FIELDS.map((f) => [f, Rfc3339.nullable().optional()]))),
  }),
  z.strictObject({ op: z.literal("setBillingEnabled"), enabled: z.boolean() }),
  z.strictObject({ op: z.literal("addGroupMember"), groupId: Uuid, identityId: Uuid }),
  z.strictObject({ op: z.literal("removeGroupMember"), groupId: Uuid, identityId: Uuid }),
]);
/** A parsed admin mutation. */
export type MutationJson = z.infer<typeof MutationJson>;

/** Parses an argument of a mutation method with its schema; an `Error` naming each field at fault. */
function argument<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`invalid ${what}: ${describeIssues(toFieldIssues(parsed.error))}`);
  return parsed.data;
}

/** The mutations over an emulator's state. Unknown ids and invalid values throw an `Error` naming them. */
export function mutationsOf(core: EmulatorCore): Mutations {
  const game = (id: string): Game => {
    const g = core.world.games.get(argument(Uuid, id, "game id"));
    if (!g) throw new Error(`unknown game ${id}`);
    return g;
  };
  const group = (id: string): Group => {
    const g = core.world.groups.get(argument(Uuid, id, "group id"));
    if (!g) throw new Error(`unknown group ${id}`);
    return g;
  };
  const versionOf = (g: Game, versionId: string): string => {
    const id = argument(Uuid, versionId, "version id");
    if (!g.versions.some((v) => v.id === id)) throw new Error(`unknown version ${versionId} of game ${g.id}`);
    return id;
  };
  const now = () => new Date(core.now()).toISOString();
  /** A game update: seen by the next answer, and it wakes the game's watchers. */
  const updated = (g: Game) => core.changed([watchKeys.game(g.id)]);
  return {
    createEnvironment(gameId, environment) {
      const g = game(gameId);
      const spec = argument(NewEnvironmentSchema, environment, "environment");
      const id = spec.id ?? randomUUID();
      if (core.world.environments.has(id)) throw new Error(`environment ${id} exists already`);
      if (g.environments.some((e) => e.nameId === spec.nameId))
        throw new Error(`game ${g.id} has an environment named ${spec.nameId} already`);
      const created: Environment = {
        id,
        nameId: spec.nameId,
        displayName: spec.displayName,
        createTs: now(),
        versionId: versionOf(g, spec.versionId),
        builds: [],
      };
      core.world.addEnvironment(g, created);
      updated(g);
      return id;
    },
    publishVersion(gameId, version) {
      const g = game(gameId);
      const spec = argument(NewVersionSchema, version, "version");
      const id = spec.id ?? randomUUID();
      if (g.versions.some((v) => v.id === id)) throw new Error(`version ${id} exists already`);
      g.versions.push({ id, displayName: spec.displayName, createTs: now() });
      updated(g);
      return id;
    },
    setGameLogo(gameId, logoUrl) {
      const g = game(gameId);
      g.logoUrl = argument(ImageUrl, logoUrl, "logo URL");
      updated(g);
    },
    setGameBanner(gameId, bannerUrl) {
      const g = game(gameId);
      g.bannerUrl = argument(ImageUrl, bannerUrl, "banner URL");
      updated(g);
    },
    setEnvironmentVersion(gameId, environmentId, versionId) {
      const g = game(gameId);
      const environment = core.world.environmentOf(g.id, argument(Uuid, environmentId, "environment id"));
      if (!environment) throw new Error(`unknown environment ${environmentId} of game ${g.id}`);
      environment.versionId = versionOf(g, versionId);
      updated(g);
    },
    setTotalPlayerCount(gameId, count) {
      const g = game(gameId);
      g.totalPlayerCount = argument(Uint32, count, "total player count");
      core.changed();
    },
    setGameDisplayName(gameId, displayName) {
      const g = game(gameId);
      g.displayName = argument(DisplayName, displayName, "display name");
      core.changed();
    },
    setBilling(groupId, patch) {
      const billing = group(groupId).billing;
      const next = { ...billing };
      for (const field of BILLING_FIELDS) {
        if (!Object.hasOwn(patch, field)) continue;
        const value = patch[field];
        if (value === null || value === undefined) delete next[field];
        else next[field] = argument(CloudTimestamp, value, field);
      }
      // All or nothing: one bad field leaves the record as it was.
      for (const field of BILLING_FIELDS) {
        if (next[field] === undefined) delete billing[field];
        else billing[field] = next[field];
      }
      core.changed();
    },
    setBillingEnabled(enabled) {
      core.fixture.billingEnabled = argument(z.boolean(), enabled, "enabled");
      core.changed();
    },
    addGroupMember(groupId, identityId) {
      const g = group(groupId);
      const id = argument(Uuid, identityId, "identity id");
      if (!core.fixture.identities.some((i) => i.id === id))
        throw new Error(`unknown identity ${identityId}`);
      if (!g.members.includes(id)) g.members.push(id);
      core.changed();
    },
    removeGroupMember(groupId, identityId) {
      const g = group(groupId);
      const id = argument(Uuid, identityId, "identity id");
      g.members = g.members.filter((m) => m !== id);
      core.changed();
    },
  };
}

/** Applies a mutation received as JSON; answers the id of what it created, if anything. */
export function applyMutation(mutations: Mutations, m: MutationJson): { id?: string } {
  switch (m.op) {
    case "createEnvironment":
      return { id: mutations.createEnvironment(m.gameId, m.environment) };
    case "publishVersion":
      return { id: mutations.publishVersion(m.gameId, m.version) };
    case "setGameLogo":
      mutations.setGameLogo(m.gameId, m.logoUrl);
      return {};
    case "setGameBanner":
      mutations.setGameBanner(m.gameId, m.bannerUrl);
      return {};
    case "setEnvironmentVersion":
      mutations.setEnvironmentVersion(m.gameId, m.environmentId, m.versionId);
      return {};
    case "setTotalPlayerCount":
      mutations.setTotalPlayerCount(m.gameId, m.count);
      return {};
    case "setGameDisplayName":
      mutations.setGameDisplayName(m.gameId, m.displayName);
      return {};
    case "setBilling":
      mutations.setBilling(m.groupId, m.patch as BillingPatch);
      return {};
    case "setBillingEnabled":
      mutations.setBillingEnabled(m.enabled);
      return {};
    case "addGroupMember":
      mutations.addGroupMember(m.groupId, m.identityId);
      return {};
    case "removeGroupMember":
      mutations.removeGroupMember(m.groupId, m.identityId);
      return {};
  }
}
