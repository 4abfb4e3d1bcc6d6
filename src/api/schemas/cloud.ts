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
export const PaymentIntent = z.enum(PAYMENT_INTENTS).meta({
  id: "PaymentIntent",
  description:
    "`general` (manage billing, view invoices) or `payment_method_update` (add or replace a card).",
});
export type PaymentIntent = z.infer<typeof PaymentIntent>;

/** Longest group bio, in characters (docs/service-contract.md §3). */
export const BIO_MAX_LENGTH = 200;
/** Most newlines a group bio may hold (docs/service-contract.md §3). */
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

export const Bootstrap = z
  .object({
    access: Access.describe("`public`, or `private`: only admins may create groups."),
    captcha: z
      .object({
        challenge: z
          .object({ site_key: z.string().describe("Public site key of the challenge.") })
          .meta({ id: "BootstrapCaptchaChallenge" })
          .optional()
          .describe("The captcha challenge, when one is configured."),
      })
      .meta({ id: "BootstrapCaptcha", description: "Captcha settings of the deployment." }),
    cluster: Cluster.describe(
      "Kind of cluster the backend runs: `enterprise` (hosted) or `oss` (self-hosted).",
    ),
    domains: z
      .object({
        cdn: z.string().describe("Domain of the content delivery network."),
        job: z.string().describe("Domain game-guard hostnames end with."),
        main: z.string().describe("Main domain of the platform."),
        extension: z.string().optional().describe("Domain of extensions, when configured."),
      })
      .meta({
        id: "BootstrapDomains",
        description:
          "Domains hosting parts of the platform; absent unless main, cdn and job are all configured.",
      })
      .optional(),
    login_methods: z
      .object({
        access_token: z.boolean().describe("Whether access-token login is enabled."),
        email: z.boolean().describe("Whether email login is enabled."),
      })
      .meta({ id: "BootstrapLoginMethods", description: "Login methods the deployment offers." }),
    origins: z
      .object({ hub: z.string().describe("Origin of the hub (web console), used to build URLs.") })
      .meta({ id: "BootstrapOrigins", description: "Origins used to build URLs." }),
  })
  .describe("What a client needs to know to use the cloud API of this deployment.");
export type Bootstrap = z.infer<typeof Bootstrap>;

export const External = z
  .object({ profile: z.string().describe("Link to the group's profile page.") })
  .meta({ id: "GroupExternal", description: "External links of a group." });

export const GroupHandle = z
  .object({
    avatar_url: z.string().optional().describe("URL of the group's avatar image."),
    display_name: z.string().describe("The group's display name."),
    external: External,
    group_id: z.string().describe("UUID of the group."),
    is_developer: z.boolean().optional().describe("Whether the group is a developer group."),
  })
  .meta({ id: "GroupHandle", description: "A developer group, as a game names it." });
export type GroupHandle = z.infer<typeof GroupHandle>;

export const GroupSummary = z
  .object({
    avatar_url: z.string().optional().describe("URL of the group's avatar image."),
    bio: z.string().describe("Free text about the group; empty by default."),
    display_name: z.string().describe("The group's display name."),
    external: External,
    group_id: z.string().describe("UUID of the group."),
    is_current_identity_member: z.boolean().describe("Whether the caller is a member of the group."),
    member_count: AnswerInt.describe("Number of members."),
    owner_identity_id: z.string().describe("UUID of the group's owner."),
    publicity: Publicity.describe("`open` or `closed`."),
  })
  .meta({ id: "GroupSummary", description: "A group the caller belongs to." });
export type GroupSummary = z.infer<typeof GroupSummary>;

export const GameSummary = z
  .object({
    banner_url: z.string().optional().describe("URL of the game's banner image."),
    developer: GroupHandle,
    display_name: z.string().describe("The game's display name."),
    game_id: z.string().describe("UUID of the game."),
    logo_url: z.string().optional().describe("URL of the game's logo image."),
    name_id: z.string().describe("The game's name id: a short identifier without special characters."),
    total_player_count: AnswerInt.describe("Players in the game's lobbies right now."),
    url: z.string().describe("The game's public URL."),
  })
  .meta({ id: "GameSummary", description: "A game of one of the caller's groups." });
export type GameSummary = z.infer<typeof GameSummary>;

export const RegionSummary = z
  .object({
    provider: z.string().describe("Server provider of the region."),
    provider_display_name: z.string().describe("Display name of the provider."),
    region_display_name: z.string().describe("Display name of the region."),
    region_id: z.string().describe("UUID of the region."),
    region_name_id: z.string().describe("Name id of the region, e.g. `us-east`."),
  })
  .meta({ id: "RegionSummary", description: "A region the game's lobbies can run in." });
export type RegionSummary = z.infer<typeof RegionSummary>;

export const NamespaceSummary = z
  .object({
    create_ts: z.string().describe("When the environment was created (RFC 3339)."),
    display_name: z.string().describe("Display name of the environment."),
    name_id: z.string().describe("Name id of the environment, e.g. `prod`."),
    namespace_id: z.string().describe("UUID of the environment: the `environmentId` of servers."),
    version_id: z.string().describe("UUID of the game version the environment runs."),
  })
  .meta({ id: "NamespaceSummary", description: "An environment (namespace) of the game." });
export type NamespaceSummary = z.infer<typeof NamespaceSummary>;

export const VersionSummary = z
  .object({
    create_ts: z.string().describe("When the version was published (RFC 3339)."),
    display_name: z.string().describe("Display name of the version."),
    version_id: z.string().describe("UUID of the version."),
  })
  .meta({ id: "VersionSummary", description: "A published version of the game." });
export type VersionSummary = z.infer<typeof VersionSummary>;

export const Game = z
  .object({
    available_regions: z.array(RegionSummary).describe("Regions the game's lobbies can run in."),
    banner_url: z.string().optional().describe("URL of the game's banner image."),
    create_ts: z.string().describe("When the game was created (RFC 3339)."),
    developer_group_id: z.string().describe("UUID of the group that develops the game."),
    display_name: z.string().describe("The game's display name."),
    game_id: z.string().describe("UUID of the game."),
    logo_url: z.string().optional().describe("URL of the game's logo image."),
    name_id: z.string().describe("The game's name id."),
    namespaces: z.array(NamespaceSummary).describe("The game's environments, by display name."),
    total_player_count: AnswerInt.describe("Players in the game's lobbies right now."),
    versions: z.array(VersionSummary).describe("The game's versions, oldest first."),
  })
  .meta({ id: "Game", description: "A game with its regions, environments and versions." });
export type Game = z.infer<typeof Game>;

export const ListGamesResponse = z.object({
  games: z.array(GameSummary).describe("The games of every group the caller belongs to."),
  groups: z.array(GroupSummary).describe("The caller's groups (none for a game-scoped cloud token)."),
  watch: Watch,
});
export type ListGamesResponse = z.infer<typeof ListGamesResponse>;

export const GetGameResponse = z.object({ game: Game, watch: Watch });
export type GetGameResponse = z.infer<typeof GetGameResponse>;

export const GroupBilling = z
  .object({
    payment_failed_ts: z
      .string()
      .optional()
      .describe("When the last payment failed (RFC 3339); absent if none did."),
    payment_method_attached_ts: z
      .string()
      .optional()
      .describe("When a payment method was attached (RFC 3339); absent: no payment method."),
    payment_method_valid_ts: z
      .string()
      .optional()
      .describe("When the payment method was validated (RFC 3339); absent while attached: it is invalid."),
    payment_succeeded_ts: z.string().optional().describe("When the last payment succeeded (RFC 3339)."),
  })
  .meta({
    id: "GroupBilling",
    description: "A group's billing record: each timestamp absent until it happened.",
  });
export type GroupBilling = z.infer<typeof GroupBilling>;

export const GetGroupBillingResponse = z.object({ group: GroupBilling, watch: Watch });
export type GetGroupBillingResponse = z.infer<typeof GetGroupBillingResponse>;

/** Body of a payment portal session request, by treatment of unknown keys. */
export const createPaymentPortalSessionRequest = (unknownKeys: UnknownKeys) =>
  requestObject({ intent: PaymentIntent }, unknownKeys);
export const CreatePaymentPortalSessionRequest = createPaymentPortalSessionRequest("reject");
export type CreatePaymentPortalSessionRequest = z.infer<typeof CreatePaymentPortalSessionRequest>;

export const CreatePaymentPortalSessionResponse = z.object({
  payment_session_url: z.string().describe("Short-lived, personal URL of the payment portal: a secret."),
});
export type CreatePaymentPortalSessionResponse = z.infer<typeof CreatePaymentPortalSessionResponse>;
