import { z } from "zod";
import { AnswerInt, openEnum, requestObject, type UnknownKeys, Watch } from "./common";

/** Deployment kinds of the backend. */
export const CLUSTERS = ["enterprise", "oss"] as const;
/** `private`: only admins may create groups. */
export const ACCESS_MODES = ["public", "private"] as const;
/** Publicities of a group. */
export const PUBLICITIES = ["open", "closed"] as const;
/** What a payment portal session is for. */
export const PAYMENT_INTENTS = ["general", "payment_method_update"] as const;

/** Deployment kind of the backend. */
export const Cluster = openEnum(CLUSTERS);
/** Who may create groups. */
export const Access = openEnum(ACCESS_MODES);
/** Publicity of a group. */
export const Publicity = openEnum(PUBLICITIES);
/** What a payment portal session is for (a request value: only the known ones are sent). */
export const PaymentIntent = z.enum(PAYMENT_INTENTS);
export type PaymentIntent = z.infer<typeof PaymentIntent>;

/** Longest group bio, in characters (service-facts §3). */
export const BIO_MAX_LENGTH = 200;
/** Most newlines a group bio may hold (service-facts §3). */
export const BIO_MAX_NEWLINES = 5;

/**
 * The service's rule for a group bio when one is set: free text of at most 200 characters and at most
 * five newlines; empty is the default of every new group. (The seed's pattern is garbled.) A rule
 * for data the emulator serves; answers are not checked against it.
 */
export const Bio = z
  .string()
  .max(BIO_MAX_LENGTH, { error: `must be at most ${BIO_MAX_LENGTH} characters` })
  .refine((bio) => bio.split("\n").length - 1 <= BIO_MAX_NEWLINES, {
    error: `must have at most ${BIO_MAX_NEWLINES} newlines`,
  });

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
  display_name: z.string(),
  external: External,
  group_id: z.string(),
  is_developer: z.boolean().optional(),
});
export type GroupHandle = z.infer<typeof GroupHandle>;

export const GroupSummary = z.object({
  avatar_url: z.string().optional(),
  bio: z.string(),
  display_name: z.string(),
  external: External,
  group_id: z.string(),
  is_current_identity_member: z.boolean(),
  member_count: AnswerInt,
  owner_identity_id: z.string(),
  publicity: Publicity,
});
export type GroupSummary = z.infer<typeof GroupSummary>;

export const GameSummary = z.object({
  banner_url: z.string().optional(),
  developer: GroupHandle,
  display_name: z.string(),
  game_id: z.string(),
  logo_url: z.string().optional(),
  name_id: z.string(),
  total_player_count: AnswerInt,
  url: z.string(),
});
export type GameSummary = z.infer<typeof GameSummary>;

export const RegionSummary = z.object({
  provider: z.string(),
  provider_display_name: z.string(),
  region_display_name: z.string(),
  region_id: z.string(),
  region_name_id: z.string(),
});
export type RegionSummary = z.infer<typeof RegionSummary>;

export const NamespaceSummary = z.object({
  create_ts: z.string(),
  display_name: z.string(),
  name_id: z.string(),
  namespace_id: z.string(),
  version_id: z.string(),
});
export type NamespaceSummary = z.infer<typeof NamespaceSummary>;

export const VersionSummary = z.object({
  create_ts: z.string(),
  display_name: z.string(),
  version_id: z.string(),
});
export type VersionSummary = z.infer<typeof VersionSummary>;

export const Game = z.object({
  available_regions: z.array(RegionSummary),
  banner_url: z.string().optional(),
  create_ts: z.string(),
  developer_group_id: z.string(),
  display_name: z.string(),
  game_id: z.string(),
  logo_url: z.string().optional(),
  name_id: z.string(),
  namespaces: z.array(NamespaceSummary),
  total_player_count: AnswerInt,
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
  payment_failed_ts: z.string().optional(),
  payment_method_attached_ts: z.string().optional(),
  payment_method_valid_ts: z.string().optional(),
  payment_succeeded_ts: z.string().optional(),
});
export type GroupBilling = z.infer<typeof GroupBilling>;

export const GetGroupBillingResponse = z.object({ group: GroupBilling, watch: Watch });
export type GetGroupBillingResponse = z.infer<typeof GetGroupBillingResponse>;

/** Body of a payment portal session request, by treatment of unknown keys. */
export const createPaymentPortalSessionRequest = (unknownKeys: UnknownKeys) =>
  requestObject({ intent: PaymentIntent }, unknownKeys);
export const CreatePaymentPortalSessionRequest = createPaymentPortalSessionRequest("reject");
export type CreatePaymentPortalSessionRequest = z.infer<typeof CreatePaymentPortalSessionRequest>;

export const CreatePaymentPortalSessionResponse = z.object({ payment_session_url: z.string() });
export type CreatePaymentPortalSessionResponse = z.infer<typeof CreatePaymentPortalSessionResponse>;
