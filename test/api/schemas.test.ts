import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { FieldIssue } from "../../src/api/issues";
import {
  Bootstrap,
  Build,
  CreatePaymentPortalSessionRequest,
  CreatePaymentPortalSessionResponse,
  CreateServerRequest,
  canonicalUuid,
  Datacenter,
  DeleteServerQuery,
  ErrorBody,
  ExportLobbyHistoryRequest,
  ExportLobbyHistoryResponse,
  Game,
  GameSummary,
  GetGameResponse,
  GetGroupBillingResponse,
  GroupBilling,
  GroupHandle,
  GroupSummary,
  ListBuildsQuery,
  ListGamesResponse,
  ListServersQuery,
  NamespaceSummary,
  RegionSummary,
  Server,
  ServerResponse,
  UUID_RULE,
  VersionSummary,
  WatchIndex,
} from "../../src/api/schemas";
import { toFieldIssues } from "../../src/api/validate";

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const TS = "2024-08-16T05:35:01.123Z";

const groupHandle = {
  display_name: "Dev Group",
  external: { profile: "https://hub.example.gg/groups/x" },
  group_id: ID(1),
  avatar_url: "https://cdn.example.gg/a.png",
  is_developer: true,
};
const groupSummary = {
  bio: "line one\nline two",
  display_name: "Dev Group",
  external: { profile: "https://hub.example.gg/groups/x" },
  group_id: ID(1),
  is_current_identity_member: true,
  member_count: 3,
  owner_identity_id: ID(2),
  publicity: "open",
  avatar_url: "https://cdn.example.gg/a.png",
};
const gameSummary = {
  developer: groupHandle,
  display_name: "My Game",
  game_id: ID(3),
  name_id: "my-game",
  total_player_count: 12,
  url: "https://hub.example.gg/games/my-game",
  banner_url: "b",
  logo_url: "l",
};
const region = {
  provider: "linode",
  provider_display_name: "Linode",
  region_display_name: "Frankfurt",
  region_id: ID(4),
  region_name_id: "fra",
};
const namespace = {
  create_ts: TS,
  display_name: "Prod",
  name_id: "prod",
  namespace_id: ID(5),
  version_id: ID(6),
};
const version = { create_ts: TS, display_name: "v1", version_id: ID(6) };
const game = {
  available_regions: [region],
  create_ts: TS,
  developer_group_id: ID(1),
  display_name: "My Game",
  game_id: ID(3),
  name_id: "my-game",
  namespaces: [namespace],
  total_player_count: 12,
  versions: [version],
  banner_url: "b",
  logo_url: "l",
};
const bootstrap = {
  cluster: "enterprise",
  access: "public",
  domains: { main: "example.gg", cdn: "example.game", job: "example.run", extension: "x" },
  origins: { hub: "https://hub.example.gg" },
  captcha: { challenge: { site_key: "k" } },
  login_methods: { access_token: false, email: true },
};
const billing = {
  payment_failed_ts: TS,
  payment_method_attached_ts: TS,
  payment_method_valid_ts: TS,
  payment_succeeded_ts: TS,
};
const server = {
  created_at: 1_723_786_501_123,
  datacenter: ID(7),
  destroyed_at: 1_723_786_601_123,
  environment: ID(5),
  id: ID(8),
  lifecycle: { kill_timeout: 0 },
  network: {
    mode: "bridge",
    ports: {
      game: {
        internal_port: 7777,
        protocol: "udp",
        public_hostname: "h",
        public_port: 20001,
        routing: { game_guard: {} },
      },
    },
  },
  resources: { cpu: 1000, memory: 1024 },
  runtime: { arguments: ["--x"], build: ID(9), environment: { A: "1" } },
  started_at: 1_723_786_502_000,
  tags: { owner: "me" },
};
const createServer = {
  datacenter: ID(7),
  lifecycle: { kill_timeout: 5000 },
  network: { mode: "host", ports: { game: { internal_port: 7777, protocol: "udp", routing: { host: {} } } } },
  resources: { cpu: 1000, memory: 1024 },
  runtime: { arguments: ["--x"], build: ID(9), environment: { A: "1" } },
  tags: { owner: "me" },
};
const build = { id: ID(9), name: "b1", created_at: TS, content_length: 1234, tags: { current: "true" } };

interface Case {
  name: string;
  schema: z.ZodType;
  sample: Record<string, unknown>;
  /** Dotted paths the seed marks required. */
  required: string[];
  /** Dotted paths the seed marks optional. */
  optional: string[];
  /** Requests are strict (unknown keys fail); responses tolerant. */
  kind: "request" | "response";
}

const cases: Case[] = [
  {
    name: "Bootstrap",
    schema: Bootstrap,
    sample: bootstrap,
    kind: "response",
    required: [
      "access",
      "captcha",
      "cluster",
      "login_methods",
      "login_methods.access_token",
      "login_methods.email",
      "origins",
      "origins.hub",
      "captcha.challenge.site_key",
      "domains.cdn",
      "domains.job",
      "domains.main",
    ],
    optional: ["domains", "domains.extension", "captcha.challenge"],
  },
  {
    name: "GroupHandle",
    schema: GroupHandle,
    sample: groupHandle,
    kind: "response",
    required: ["display_name", "external", "external.profile", "group_id"],
    optional: ["avatar_url", "is_developer"],
  },
  {
    name: "GroupSummary",
    schema: GroupSummary,
    sample: groupSummary,
    kind: "response",
    required: [
      "bio",
      "display_name",
      "external",
      "external.profile",
      "group_id",
      "is_current_identity_member",
      "member_count",
      "owner_identity_id",
      "publicity",
    ],
    optional: ["avatar_url"],
  },
  {
    name: "GameSummary",
    schema: GameSummary,
    sample: gameSummary,
    kind: "response",
    required: ["developer", "display_name", "game_id", "name_id", "total_player_count", "url"],
    optional: ["banner_url", "logo_url"],
  },
  {
    name: "RegionSummary",
    schema: RegionSummary,
    sample: region,
    kind: "response",
    required: ["provider", "provider_display_name", "region_display_name", "region_id", "region_name_id"],
    optional: [],
  },
  {
    name: "NamespaceSummary",
    schema: NamespaceSummary,
    sample: namespace,
    kind: "response",
    required: ["create_ts", "display_name", "name_id", "namespace_id", "version_id"],
    optional: [],
  },
  {
    name: "VersionSummary",
    schema: VersionSummary,
    sample: version,
    kind: "response",
    required: ["create_ts", "display_name", "version_id"],
    optional: [],
  },
  {
    name: "Game",
    schema: Game,
    sample: game,
    kind: "response",
    required: [
      "available_regions",
      "create_ts",
      "developer_group_id",
      "display_name",
      "game_id",
      "name_id",
      "namespaces",
      "total_player_count",
      "versions",
    ],
    optional: ["banner_url", "logo_url"],
  },
  {
    name: "ListGamesResponse",
    schema: ListGamesResponse,
    sample: { games: [gameSummary], groups: [groupSummary], watch: { index: "1723786501124" } },
    kind: "response",
    required: ["games", "groups", "watch", "watch.index"],
    optional: [],
  },
  {
    name: "GetGameResponse",
    schema: GetGameResponse,
    sample: { game, watch: { index: "1723786501124" } },
    kind: "response",
    required: ["game", "watch", "watch.index", "game.game_id"],
    optional: [],
  },
  {
    name: "GroupBilling",
    schema: GroupBilling,
    sample: billing,
    kind: "response",
    required: [],
    optional: [
      "payment_failed_ts",
      "payment_method_attached_ts",
      "payment_method_valid_ts",
      "payment_succeeded_ts",
    ],
  },
  {
    name: "GetGroupBillingResponse",
    schema: GetGroupBillingResponse,
    sample: { group: billing, watch: { index: "1" } },
    kind: "response",
    required: ["group", "watch", "watch.index"],
    optional: [],
  },
  {
    name: "CreatePaymentPortalSessionRequest",
    schema: CreatePaymentPortalSessionRequest,
    sample: { intent: "general" },
    kind: "request",
    required: ["intent"],
    optional: [],
  },
  {
    name: "CreatePaymentPortalSessionResponse",
    schema: CreatePaymentPortalSessionResponse,
    sample: { payment_session_url: "https://pay.example/s" },
    kind: "response",
    required: ["payment_session_url"],
    optional: [],
  },
  {
    name: "Server",
    schema: Server,
    sample: server,
    kind: "response",
    required: [
      "created_at",
      "datacenter",
      "environment",
      "id",
      "lifecycle",
      "network",
      "network.ports",
      "network.ports.game.protocol",
      "network.ports.game.routing",
      "resources",
      "resources.cpu",
      "resources.memory",
      "runtime",
      "runtime.build",
      "tags",
    ],
    optional: [
      "destroyed_at",
      "started_at",
      "lifecycle.kill_timeout",
      "network.mode",
      "network.ports.game.internal_port",
      "network.ports.game.public_hostname",
      "network.ports.game.public_port",
      "network.ports.game.routing.game_guard",
      "runtime.arguments",
      "runtime.environment",
    ],
  },
  {
    name: "ServerResponse",
    schema: ServerResponse,
    sample: { server },
    kind: "response",
    required: ["server", "server.id"],
    optional: [],
  },
  {
    name: "CreateServerRequest",
    schema: CreateServerRequest,
    sample: createServer,
    kind: "request",
    required: [
      "datacenter",
      "network",
      "network.ports",
      "network.ports.game.protocol",
      "resources",
      "resources.cpu",
      "resources.memory",
      "runtime",
      "runtime.build",
      "tags",
    ],
    optional: [
      "lifecycle",
      "lifecycle.kill_timeout",
      "network.mode",
      "network.ports.game.internal_port",
      "network.ports.game.routing",
      "runtime.arguments",
      "runtime.environment",
    ],
  },
  {
    name: "ExportLobbyHistoryRequest",
    schema: ExportLobbyHistoryRequest,
    sample: { query_start: 1000, query_end: 2000 },
    kind: "request",
    required: ["query_start", "query_end"],
    optional: [],
  },
  {
    name: "ExportLobbyHistoryResponse",
    schema: ExportLobbyHistoryResponse,
    sample: { url: "https://s3.example/export.csv?sig=1" },
    kind: "response",
    required: ["url"],
    optional: [],
  },
  {
    name: "Datacenter",
    schema: Datacenter,
    sample: { id: ID(7), slug: "fra", name: "Frankfurt" },
    kind: "response",
    required: ["id", "slug", "name"],
    optional: [],
  },
  {
    name: "Build",
    schema: Build,
    sample: build,
    kind: "response",
    required: ["id", "name", "created_at", "content_length", "tags"],
    optional: [],
  },
  {
    name: "ErrorBody",
    schema: ErrorBody,
    sample: { code: "API_FORBIDDEN", message: "no", ray_id: ID(10), documentation: "d", metadata: { a: 1 } },
    kind: "response",
    required: ["code", "message"],
    optional: ["ray_id", "documentation", "metadata"],
  },
  {
    name: "ListServersQuery",
    schema: ListServersQuery,
    sample: { tags: { a: "b" }, include_destroyed: true, cursor: ID(8) },
    kind: "request",
    required: [],
    optional: ["tags", "include_destroyed", "cursor"],
  },
  {
    name: "DeleteServerQuery",
    schema: DeleteServerQuery,
    sample: { override_kill_timeout: 0 },
    kind: "request",
    required: [],
    optional: ["override_kill_timeout"],
  },
  {
    name: "ListBuildsQuery",
    schema: ListBuildsQuery,
    sample: { tags: { a: "b" } },
    kind: "request",
    required: [],
    optional: ["tags"],
  },
];

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Returns a copy of `value` with `path` removed (or replaced by `replacement`). */
function edit(value: Record<string, unknown>, path: string, replacement?: unknown): Record<string, unknown> {
  const copy = clone(value);
  const keys = path.split(".");
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (!(last in node)) throw new Error(`sample has no ${path}`);
  if (replacement === undefined) delete node[last];
  else node[last] = replacement;
  return copy;
}

function issuesOf(schema: z.ZodType, value: unknown): FieldIssue[] {
  const result = schema.safeParse(value);
  return result.success ? [] : toFieldIssues(result.error);
}

describe.each(cases)("$name", ({ schema, sample, required, optional, kind }) => {
  it("accepts the valid sample", () => {
    expect(issuesOf(schema, sample)).toEqual([]);
  });

  it.each(required)("fails naming %s when it is missing", (path) => {
    const issues = issuesOf(schema, edit(sample, path));
    expect(issues.map((i) => i.path)).toContain(path);
  });

  if (optional.length > 0) {
    it.each(optional)("accepts the sample without optional %s", (path) => {
      expect(issuesOf(schema, edit(sample, path))).toEqual([]);
    });
  }

  if (kind === "response") {
    it("tolerates unknown fields", () => {
      expect(issuesOf(schema, { ...clone(sample), added_later: { x: 1 } })).toEqual([]);
    });
  } else {
    it("rejects an unknown key, naming it", () => {
      const issues = issuesOf(schema, { ...clone(sample), surprise: 1 });
      expect(issues).toContainEqual({ path: "surprise", message: "is not a known field" });
    });
  }
});

describe("request rules", () => {
  it.each([
    ["CreateServerRequest", "network.mode", "overlay", CreateServerRequest, createServer],
    ["CreateServerRequest", "network.ports.game.protocol", "QUIC", CreateServerRequest, createServer],
    [
      "CreatePaymentPortalSessionRequest",
      "intent",
      "refund",
      CreatePaymentPortalSessionRequest,
      { intent: "general" },
    ],
  ] as const)("%s: rejects an unknown value of %s (%s)", (_name, path, bad, schema, sample) => {
    const issues = issuesOf(schema, edit(sample as Record<string, unknown>, path, bad));
    expect(issues.map((i) => i.path)).toEqual([path]);
  });

  it.each(["http", "https", "tcp", "tcp_tls", "udp"])(
    "accepts port protocol %s with game guard",
    (protocol) => {
      const body = edit(createServer, "network.ports.game", { protocol, routing: { game_guard: {} } });
      expect(issuesOf(CreateServerRequest, body)).toEqual([]);
    },
  );

  it.each(["payment_method_update", "general"])("accepts intent %s", (intent) => {
    expect(issuesOf(CreatePaymentPortalSessionRequest, { intent })).toEqual([]);
  });

  it.each([
    ["lifecycle.kill_timeout", 7_200_000, CreateServerRequest, createServer],
    ["lifecycle.kill_timeout", -1, CreateServerRequest, createServer],
    ["resources.cpu", 0, CreateServerRequest, createServer],
    ["resources.memory", 2.5, CreateServerRequest, createServer],
    ["network.ports.game.internal_port", 70_000, CreateServerRequest, createServer],
    ["datacenter", "not-a-uuid", CreateServerRequest, createServer],
    ["datacenter", "00000000-0000-4000-8000-00000000000", CreateServerRequest, createServer],
    ["runtime.build", "", CreateServerRequest, createServer],
    ["tags", { n: 1 }, CreateServerRequest, createServer],
    ["override_kill_timeout", 7_200_000, DeleteServerQuery, { override_kill_timeout: 0 }],
    ["query_start", -1, ExportLobbyHistoryRequest, { query_start: 1, query_end: 2 }],
    ["query_end", 1.5, ExportLobbyHistoryRequest, { query_start: 1, query_end: 2 }],
  ] as const)("%#: rejects %s = %j", (path, bad, schema, sample) => {
    const issues = issuesOf(schema, edit(sample as Record<string, unknown>, path, bad));
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((i) => i.path.startsWith(path))).toBe(true);
  });

  it("accepts kill timeouts just inside the bounds", () => {
    for (const kill_timeout of [0, 7_199_999]) {
      expect(issuesOf(CreateServerRequest, edit(createServer, "lifecycle", { kill_timeout }))).toEqual([]);
    }
  });

  it("reads a UUID in every form the service parses and sends its canonical form", () => {
    const canonical = "3f2b8a4e-5c1d-4e6f-9a7b-0c1d2e3f4a5b";
    for (const form of [
      canonical,
      canonical.toUpperCase(),
      canonical.replaceAll("-", ""),
      `{${canonical}}`,
      `urn:uuid:${canonical}`,
    ]) {
      expect(canonicalUuid(form), form).toBe(canonical);
      const parsed = CreateServerRequest.parse(edit(createServer, "datacenter", form));
      expect(parsed.datacenter, form).toBe(canonical);
    }
    for (const bad of ["", "3f2b8a4e", `${canonical}0`, `{${canonical}`, canonical.replace("a", "g")]) {
      expect(canonicalUuid(bad), bad).toBeUndefined();
    }
  });

  it("says a UUID pasted with whitespace around it has it, which no message can show", () => {
    const canonical = "3f2b8a4e-5c1d-4e6f-9a7b-0c1d2e3f4a5b";
    for (const pasted of [` ${canonical}`, `${canonical}\n`, `\t${canonical} `]) {
      expect(issuesOf(CreateServerRequest, edit(createServer, "datacenter", pasted))).toEqual([
        { path: "datacenter", message: `${UUID_RULE}: remove the whitespace around it` },
      ]);
    }
    expect(issuesOf(CreateServerRequest, edit(createServer, "datacenter", " abc "))).toEqual([
      { path: "datacenter", message: UUID_RULE },
    ]);
  });

  it("leaves the span of an export to the caller: the service checks no range", () => {
    expect(issuesOf(ExportLobbyHistoryRequest, { query_start: 2000, query_end: 2000 })).toEqual([]);
    expect(issuesOf(ExportLobbyHistoryRequest, { query_start: 3000, query_end: 2000 })).toEqual([]);
  });

  it("checks a watch_index the way an earlier watch.index looks", () => {
    expect(WatchIndex.safeParse("1723786501124").success).toBe(true);
    for (const bad of ["", "abc", "-1", "1.5", "12345678901234567"]) {
      expect(WatchIndex.safeParse(bad).success, bad).toBe(false);
    }
  });
});

/**
 * Paths inside a schema where a value is constrained beyond its type: a string with a check (pattern,
 * length, format), an enum or a literal. Answers must have none of these (docs/service-contract.md §3: the seed's
 * bio pattern is garbled; a new enum value must not break every caller).
 */
function constraintsIn(schema: z.core.$ZodType, path = ""): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const at = path || "(root)";
  switch (def.type) {
    case "string":
      return (def.checks as unknown[] | undefined)?.length ? [`${at}: string check`] : [];
    case "enum":
    case "literal":
      return [`${at}: ${def.type}`];
    case "object": {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      return Object.entries(shape).flatMap(([key, inner]) =>
        constraintsIn(inner, path ? `${path}.${key}` : key),
      );
    }
    case "array":
      return constraintsIn(def.element as z.core.$ZodType, `${path}[]`);
    case "record":
      return constraintsIn(def.valueType as z.core.$ZodType, `${path}.*`);
    case "optional":
    case "nullable":
      return constraintsIn(def.innerType as z.core.$ZodType, path);
    default:
      return [];
  }
}

describe("answers are checked for shape only", () => {
  const answers = cases.filter((c) => c.kind === "response");

  it.each(answers.map((c) => [c.name, c.schema] as const))(
    "%s constrains no value beyond its type",
    (_n, schema) => {
      expect(constraintsIn(schema)).toEqual([]);
    },
  );

  it("finds the constraints of a request schema (the check above can fail)", () => {
    expect(constraintsIn(CreateServerRequest)).toEqual(
      expect.arrayContaining(["datacenter: string check", "network.mode: enum"]),
    );
  });

  it.each([
    ["the default bio of a new group", GroupSummary, groupSummary, "bio", ""],
    ["a bio of five lines with empty ones", GroupSummary, groupSummary, "bio", "a\n\n\n\nb\n"],
    ["a bio longer than 200 characters", GroupSummary, groupSummary, "bio", "x".repeat(500)],
    ["a publicity added later", GroupSummary, groupSummary, "publicity", "invite_only"],
    ["a cluster added later", Bootstrap, bootstrap, "cluster", "cloud"],
    ["an access mode added later", Bootstrap, bootstrap, "access", "secret"],
    ["a network mode added later", Server, server, "network.mode", "overlay"],
    ["a protocol added later", Server, server, "network.ports.game.protocol", "quic"],
    ["an id in upper case", GroupSummary, groupSummary, "group_id", "00000000-0000-4000-8000-00000000000A"],
    ["an empty display name", Game, game, "display_name", ""],
    ["a timestamp in another format", Game, game, "create_ts", "2024-08-16 05:35:01"],
    [
      "a watch index that is not decimal",
      ListGamesResponse,
      { games: [], groups: [], watch: { index: "1" } },
      "watch.index",
      "abc",
    ],
  ] as const)("accepts %s", (_what, schema, sample, path, value) => {
    expect(issuesOf(schema, edit(sample as Record<string, unknown>, path, value))).toEqual([]);
  });

  it.each([
    ["total_player_count", "12", GameSummary, gameSummary],
    ["total_player_count", 1.5, GameSummary, gameSummary],
    ["bio", null, GroupSummary, groupSummary],
    ["created_at", "1723786501123", Server, server],
    ["content_length", "big", Build, build],
    ["watch.index", 1, ListGamesResponse, { games: [], groups: [], watch: { index: "1" } }],
  ] as const)("%#: rejects a value of the wrong type at %s (%j)", (path, bad, schema, sample) => {
    const issues = issuesOf(schema, edit(sample as Record<string, unknown>, path, bad));
    expect(issues.map((i) => i.path)).toEqual([path]);
  });
});

describe("service codes and strictness", () => {
  it("carries the service code of routing rules", () => {
    const both = edit(createServer, "network.ports.game.routing", { host: {}, game_guard: {} });
    expect(issuesOf(CreateServerRequest, both)).toEqual([
      expect.objectContaining({
        path: "network.ports.game.routing",
        apiCode: "SERVERS_MUST_SPECIFY_ROUTING_TYPE",
      }),
    ]);
    const hostHttp = edit(createServer, "network.ports.game", { protocol: "http", routing: { host: {} } });
    expect(issuesOf(CreateServerRequest, hostHttp)).toEqual([
      expect.objectContaining({
        path: "network.ports.game.protocol",
        apiCode: "SERVERS_UNSUPPORTED_HOST_PROTOCOL",
      }),
    ]);
  });

  it("rejects unknown keys nested in a strict request, naming the full path", () => {
    const body = edit(createServer, "runtime", { build: ID(9), image: "x" });
    expect(issuesOf(CreateServerRequest, body)).toContainEqual({
      path: "runtime.image",
      message: "is not a known field",
    });
  });
});
