import { z } from "zod";
import { DisplayName, NameId, Rfc3339, Uint32, Uuid, Watch } from "./common";

/** Deployment kind of the backend. */
export const Cluster = z.enum(["enterprise", "oss"]);
/** `private`: only admins may create groups. */
export const Access = z.enum(["public", "private"]);
/** Publicity of a group. */
export const Publicity = z.enum(["open", "closed"]);
/** What a payment portal session is for. */
export const PaymentIntent = z.enum(["general", "payment_method_update"]);
export type PaymentIntent = z.infer<typeof PaymentIntent>;

/**
 * Group bio: one to five lines, none empty except a lone newline. The seed's pattern lost its
 * braces; service-facts §3 restores `{1,5}`.
 */
export const BIO_PATTERN = /^(?:[^\n\r]+\n?|\n){1,5}$/;
export const Bio = z.string().regex(BIO_PATTERN, { error: "must be 1 to 5 non-empty lines" });

export const Bootstrap = z.object({
  access: Access,
  captcha: z.object({ challenge: z.object({ site_key: z.string() }).optional() }),
  cluster: Cluster,
  domains: z
    .object({ cdn: z.string(), job: z.string(), main: z.string(), extension: z.string().optional() })
    .optional(),
  login_methods: z.object({ access_token: z.boolean(), email: z.boolean() }),
  origins: z.object({ hub: z.string() }),
});
export type Bootstrap = z.infer<typeof Bootstrap>;

export const External = z.object({ profile: z.string() });

export const GroupHandle = z.object({
  avatar_url: z.string().optional(),
  display_name: DisplayName,
  external: External,
  group_id: Uuid,
  is_developer: z.boolean().optional(),
});
export type GroupHandle = z.infer<typeof GroupHandle>;

export const GroupSummary = z.object({
  avatar_url: z.string().optional(),
  bio: Bio,
  display_name: DisplayName,
  external: External,
  group_id: Uuid,
  is_current_identity_member: z.boolean(),
  member_count: Uint32,
  owner_identity_id: Uuid,
  publicity: Publicity,
});
export type GroupSummary = z.infer<typeof GroupSummary>;

export const GameSummary = z.object({
  banner_url: z.string().optional(),
  developer: GroupHandle,
  display_name: DisplayName,
  game_id: Uuid,
  logo_url: z.string().optional(),
  name_id: NameId,
  total_player_count: Uint32,
  url: z.string(),
});
export type GameSummary = z.infer<typeof GameSummary>;

export const RegionSummary = z.object({
  provider: z.string(),
  provider_display_name: DisplayName,
  region_display_name: DisplayName,
  region_id: Uuid,
  region_name_id: NameId,
});
export type RegionSummary = z.infer<typeof RegionSummary>;

export const NamespaceSummary = z.object({
  create_ts: Rfc3339,
  display_name: DisplayName,
  name_id: NameId,
  namespace_id: Uuid,
  version_id: Uuid,
});
export type NamespaceSummary = z.infer<typeof NamespaceSummary>;

export const VersionSummary = z.object({
  create_ts: Rfc3339,
  display_name: DisplayName,
  version_id: Uuid,
});
export type VersionSummary = z.infer<typeof VersionSummary>;

export const Game = z.object({
  available_regions: z.array(RegionSummary),
  banner_url: z.string().optional(),
  create_ts: Rfc3339,
  developer_group_id: Uuid,
  display_name: DisplayName,
  game_id: Uuid,
  logo_url: z.string().optional(),
  name_id: NameId,
  namespaces: z.array(NamespaceSummary),
  total_player_count: Uint32,
  versions: z.array(VersionSummary),
});
export type Game = z.infer<typeof Game>;

export const ListGamesResponse = z.object({
  games: z.array(GameSummary),
  groups: z.array(GroupSummary),
  watch: Watch,
});
export type ListGamesResponse = z.infer<typeof ListGamesResponse>;

export const GetGameResponse = z.object({ game: Game, watch: Watch });
export type GetGameResponse = z.infer<typeof GetGameResponse>;

export const GroupBilling = z.object({
  payment_failed_ts: Rfc3339.optional(),
  payment_method_attached_ts: Rfc3339.optional(),
  payment_method_valid_ts: Rfc3339.optional(),
  payment_succeeded_ts: Rfc3339.optional(),
});
export type GroupBilling = z.infer<typeof GroupBilling>;

export const GetGroupBillingResponse = z.object({ group: GroupBilling, watch: Watch });
export type GetGroupBillingResponse = z.infer<typeof GetGroupBillingResponse>;

export const CreatePaymentPortalSessionRequest = z.strictObject({ intent: PaymentIntent });
export type CreatePaymentPortalSessionRequest = z.infer<typeof CreatePaymentPortalSessionRequest>;

export const CreatePaymentPortalSessionResponse = z.object({ payment_session_url: z.string() });
export type CreatePaymentPortalSessionResponse = z.infer<typeof CreatePaymentPortalSessionResponse>;
