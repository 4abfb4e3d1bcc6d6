import { z } from "zod";
import type { GroupBilling } from "../api/schemas/cloud";
import { Rfc3339, Uint32, Uuid } from "../api/schemas/common";
import type { EmulatorCore } from "./core";
import { CloudTimestamp } from "./fixture";
import { watchKeys } from "./routes/cloud";
import type { Game, Group } from "./world";

/** A billing patch: a timestamp sets a field, `null` removes it, an absent key leaves it. */
export type BillingPatch = { [K in keyof GroupBilling]?: string | null };

/** Changes to watched data; each bumps the watch index of exactly what it touches. */
export interface Mutations {
  setTotalPlayerCount(gameId: string, count: number): void;
  setGameDisplayName(gameId: string, displayName: string): void;
  setBilling(groupId: string, patch: BillingPatch): void;
  /** Turns billing on or off for the whole deployment (off: `BILLING_NOT_ENABLED`). */
  setBillingEnabled(enabled: boolean): void;
  addGroupMember(groupId: string, identityId: string): void;
  removeGroupMember(groupId: string, identityId: string): void;
}

const BILLING_FIELDS = [
  "payment_failed_ts",
  "payment_method_attached_ts",
  "payment_method_valid_ts",
  "payment_succeeded_ts",
] as const;

/** JSON body of `POST /__admin/mutate`: one mutation, named by `op`. */
export const MutationJson = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("setTotalPlayerCount"), gameId: Uuid, count: Uint32 }),
  z.strictObject({ op: z.literal("setGameDisplayName"), gameId: Uuid, displayName: z.string().min(1) }),
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

/** The mutations over an emulator's state. Unknown ids throw an `Error` naming them. */
export function mutationsOf(core: EmulatorCore): Mutations {
  const game = (id: string): Game => {
    const g = core.world.games.get(id);
    if (!g) throw new Error(`unknown game ${id}`);
    return g;
  };
  const group = (id: string): Group => {
    const g = core.world.groups.get(id);
    if (!g) throw new Error(`unknown group ${id}`);
    return g;
  };
  return {
    setTotalPlayerCount(gameId, count) {
      const parsed = Uint32.safeParse(count);
      if (!parsed.success) throw new Error(`total player count must be a uint32, got ${count}`);
      game(gameId).totalPlayerCount = parsed.data;
      core.watch.bump([watchKeys.game(gameId)]);
    },
    setGameDisplayName(gameId, displayName) {
      if (!displayName) throw new Error("display name must not be empty");
      game(gameId).displayName = displayName;
      core.watch.bump([watchKeys.game(gameId)]);
    },
    setBilling(groupId, patch) {
      const billing = group(groupId).billing;
      for (const field of BILLING_FIELDS) {
        if (!Object.hasOwn(patch, field)) continue;
        const value = patch[field];
        if (value === null || value === undefined) delete billing[field];
        else {
          const parsed = CloudTimestamp.safeParse(value);
          if (!parsed.success) throw new Error(`${field} must be an RFC 3339 timestamp`);
          billing[field] = parsed.data;
        }
      }
      core.watch.bump([watchKeys.billing(groupId)]);
    },
    setBillingEnabled(enabled) {
      core.fixture.billingEnabled = enabled;
      core.watch.bump(core.fixture.groups.map((g) => watchKeys.billing(g.id)));
    },
    addGroupMember(groupId, identityId) {
      const g = group(groupId);
      if (!core.fixture.identities.some((i) => i.id === identityId))
        throw new Error(`unknown identity ${identityId}`);
      if (!g.members.includes(identityId)) g.members.push(identityId);
      core.watch.bump([watchKeys.group(groupId), watchKeys.identity(identityId)]);
    },
    removeGroupMember(groupId, identityId) {
      const g = group(groupId);
      g.members = g.members.filter((m) => m !== identityId);
      core.watch.bump([watchKeys.group(groupId), watchKeys.identity(identityId)]);
    },
  };
}

/** Applies a mutation received as JSON. */
export function applyMutation(mutations: Mutations, m: MutationJson): void {
  switch (m.op) {
    case "setTotalPlayerCount":
      mutations.setTotalPlayerCount(m.gameId, m.count);
      return;
    case "setGameDisplayName":
      mutations.setGameDisplayName(m.gameId, m.displayName);
      return;
    case "setBilling":
      mutations.setBilling(m.groupId, m.patch as BillingPatch);
      return;
    case "setBillingEnabled":
      mutations.setBillingEnabled(m.enabled);
      return;
    case "addGroupMember":
      mutations.addGroupMember(m.groupId, m.identityId);
      return;
    case "removeGroupMember":
      mutations.removeGroupMember(m.groupId, m.identityId);
      return;
  }
}
