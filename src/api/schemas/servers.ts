import { z } from "zod";
import { AnswerInt, openEnum, requestObject, StringMap, type UnknownKeys, Uuid, userRecord } from "./common";

/** Network modes: `bridge` (the default) or `host`. */
export const NETWORK_MODES = ["bridge", "host"] as const;
/** Port protocols the service knows. */
export const PORT_PROTOCOLS = ["http", "https", "tcp", "tcp_tls", "udp"] as const;

/** `bridge` (the default) or `host` networking. */
export const NetworkMode = z
  .enum(NETWORK_MODES)
  .meta({ id: "NetworkMode", description: "`bridge` (the default) or `host` networking." });
export type NetworkMode = z.infer<typeof NetworkMode>;

/** Port protocols the service knows. */
export const PortProtocol = z
  .enum(PORT_PROTOCOLS)
  .meta({ id: "PortProtocol", description: "`http`, `https`, `tcp`, `tcp_tls` or `udp`." });
export type PortProtocol = z.infer<typeof PortProtocol>;

/** Protocols that `host` routing accepts; the rest need game-guard routing. */
export const HOST_ROUTING_PROTOCOLS: readonly PortProtocol[] = ["tcp", "udp"];

/** Exclusive upper bound of kill timeouts, in ms (two hours). */
export const KILL_TIMEOUT_LIMIT_MS = 7_200_000;

/** Milliseconds to wait between SIGTERM and SIGKILL: 0 ≤ x < 7 200 000. */
export const KillTimeoutMs = z
  .number()
  .int({ error: "must be an integer number of milliseconds" })
  .min(0, { error: "must be ≥ 0" })
  .lt(KILL_TIMEOUT_LIMIT_MS, { error: `must be < ${KILL_TIMEOUT_LIMIT_MS} (two hours)` });

/** Positive integer: CPU millicores (1000 = one core) or memory megabytes. */
export const PositiveInt = z
  .number()
  .int({ error: "must be a positive integer" })
  .positive({ error: "must be a positive integer" })
  .max(2_147_483_647, { error: "must be ≤ 2147483647" });

/** Port number inside the server. */
export const PortNumber = z.number().int({ error: "must be an integer" }).min(1).max(65_535);

/**
 * Service error codes carried by schema issues, so the emulator answers a rule violation with the
 * code the real service uses and every other layer can still read the message and path.
 */
export const RULE_CODES = {
  routing: "SERVERS_MUST_SPECIFY_ROUTING_TYPE",
  hostProtocol: "SERVERS_UNSUPPORTED_HOST_PROTOCOL",
} as const;

/**
 * Most ports one server may declare. The service documents no limit (docs/service-contract.md names none);
 * without one a single create could claim all 12 000 game-guard ports of a datacenter. 64 is far
 * above what a game server uses and still leaves room for hundreds of servers per datacenter. The
 * emulator refuses more (400 `API_BAD_BODY`) and the provider's checks refuse it before any request.
 */
export const MAX_PORTS_PER_SERVER = 64;

const PORT_NAME_RULE =
  "port names must be lowercase letters, digits and '-', 1 to 63 characters, starting and ending with a letter or digit";

/** Port names are map keys; the service uses them in hostnames, so keep them DNS-label safe. */
export const PortName = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
  error: PORT_NAME_RULE,
});

/** The request schemas of server creation, built for one treatment of unknown keys. */
function createServerSchemas(unknownKeys: UnknownKeys) {
  const object = <S extends z.core.$ZodLooseShape>(shape: S) => requestObject(shape, unknownKeys);
  const routingKind = object({})
    .meta({ id: "RoutingKind", description: "An empty object: which field holds it selects the routing." })
    .optional();
  const routing = object({
    game_guard: routingKind.describe(
      "Route through the platform's game-guard proxy (any protocol). Pass `{}`.",
    ),
    host: routingKind.describe(
      "Expose the port on the node's own address (`tcp` and `udp` only). Pass `{}`.",
    ),
  }).meta({
    id: "PortRouting",
    description:
      "How the port is reached from outside: exactly one of gameGuard or host; omitted means game guard.",
  });
  const port = object({
    internal_port: PortNumber.optional().describe(
      "Port the game process listens on inside the server (1–65535); required for game-guard ports.",
    ),
    protocol: PortProtocol.describe("`http`, `https`, `tcp`, `tcp_tls` or `udp`."),
    routing: routing.optional(),
  })
    .meta({ id: "ServerPortSpec", description: "One named port of the server." })
    .superRefine((p, ctx) => {
      if (p.routing === undefined) return;
      const kinds = [p.routing.game_guard, p.routing.host].filter((r) => r !== undefined).length;
      if (kinds !== 1) {
        ctx.addIssue({
          code: "custom",
          path: ["routing"],
          message: "must set exactly one of game_guard or host",
          params: { apiCode: RULE_CODES.routing },
        });
      } else if (p.routing.host !== undefined && !HOST_ROUTING_PROTOCOLS.includes(p.protocol)) {
        ctx.addIssue({
          code: "custom",
          path: ["protocol"],
          message: `host routing supports only ${HOST_ROUTING_PROTOCOLS.join(" and ")}, not ${p.protocol}`,
          params: { apiCode: RULE_CODES.hostProtocol },
        });
      }
    });
  const body = object({
    datacenter: Uuid.describe("UUID of a datacenter of the game's cluster (see getDatacenters)."),
    lifecycle: object({
      kill_timeout: KillTimeoutMs.optional().describe(
        "Milliseconds between SIGTERM and SIGKILL when the server is stopped, 0 ≤ x < 7 200 000 (default 0).",
      ),
    })
      .optional()
      .describe("Shutdown behaviour."),
    network: object({
      mode: NetworkMode.optional().describe("`bridge` (default) or `host` networking."),
      // A bad key is reported as the record's `invalid_key`, whose default message names no rule.
      ports: userRecord(PortName, port, {
        error: (issue) => (issue.code === "invalid_key" ? PORT_NAME_RULE : undefined),
      })
        .refine((ports) => Object.keys(ports).length <= MAX_PORTS_PER_SERVER, {
          error: (issue) =>
            `must have at most ${MAX_PORTS_PER_SERVER} ports, got ${Object.keys(issue.input as object).length}`,
        })
        .describe(
          `Ports by name: lowercase letters, digits and \`-\`, 1 to 63 characters, starting and ending with a letter or digit; at most ${MAX_PORTS_PER_SERVER} ports.`,
        ),
    }).describe("Networking: mode and named ports."),
    resources: object({
      cpu: PositiveInt.describe(
        "CPU in millicores, a whole number from 1 to 2147483647: 1000 is one core, 125 an eighth.",
      ),
      memory: PositiveInt.describe("Memory in megabytes, a whole number from 1 to 2147483647."),
    }).describe("CPU and memory, both positive integers."),
    runtime: object({
      arguments: z.array(z.string()).optional().describe("Command-line arguments (default none)."),
      build: Uuid.describe("UUID of the build to run (see getBuilds)."),
      environment: StringMap.optional().describe("Environment variables (default none)."),
    }).describe("What runs: the build, its arguments and environment variables."),
    tags: StringMap.describe(
      "String-to-string labels; servers can be listed by tag. The keys `pulumi-gamehost/idempotency-key`, `pulumi-gamehost/fleet` and `pulumi-gamehost/fleet-slot` are reserved (the provider sets them).",
    ),
  });
  return { routing, port, body };
}

const clientSchemas = createServerSchemas("reject");

/** A port's routing: exactly one of `game_guard` or `host`; omitted routing means game guard. */
export const PortRouting = clientSchemas.routing;
export type PortRouting = z.infer<typeof PortRouting>;

/** One port of a create body. */
export const CreatePort = clientSchemas.port;
export type CreatePort = z.infer<typeof CreatePort>;

/** Body of `POST /games/{game_id}/environments/{environment_id}/servers`, validated strictly. */
export const CreateServerRequest = clientSchemas.body;
export type CreateServerRequest = z.infer<typeof CreateServerRequest>;

/** The create body as the service reads it: the same rules, unknown fields ignored (docs/service-contract.md §1). */
export const CreateServerRequestAsServed = createServerSchemas("ignore").body;

/**
 * What the service fills in when a create body leaves it out, and echoes on every answer
 * (docs/service-contract.md §4): bridge networking, no arguments, no environment, a kill timeout of 0, and
 * game-guard routing for a port without one. One table for the emulator and the provider's diffs.
 */
export const SERVER_DEFAULTS = {
  networkMode: "bridge",
  arguments: [] as readonly string[],
  environment: {} as Readonly<Record<string, string>>,
  killTimeoutMs: 0,
  routing: "game_guard",
} as const;

/** The routing kind of a port: `host`, or game guard when it names no other (the default). */
export function routingOf(port: {
  routing?: { host?: object | undefined } | undefined;
}): "host" | "game_guard" {
  return port.routing?.host !== undefined ? "host" : "game_guard";
}

/**
 * Whether a port keeps its server from ever starting: a game-guard port without `internal_port` is
 * accepted by the API, but the server then never gets `started_at` and is destroyed (docs/service-contract.md
 * §4). The emulator places such servers that way; the Server checks refuse them before any request.
 */
export function portNeverStarts(port: {
  internal_port?: number | undefined;
  routing?: { host?: object | undefined } | undefined;
}): boolean {
  return routingOf(port) === "game_guard" && port.internal_port === undefined;
}

/** Path parameters of every servers route. */
export const ServerScope = z.strictObject({
  game_id: Uuid.describe("UUID of the game the server belongs to."),
  environment_id: Uuid.describe(
    "UUID of the game environment (a namespace's `namespaceId`; see getEnvironment).",
  ),
});
export type ServerScope = z.infer<typeof ServerScope>;

/** Query of `DELETE …/servers/{server_id}`. */
export const DeleteServerQuery = z.strictObject({ override_kill_timeout: KillTimeoutMs.optional() });
export type DeleteServerQuery = z.infer<typeof DeleteServerQuery>;

/** Query of `GET …/servers`: tag containment, destroyed servers, and servers older than `cursor`. */
export const ListServersQuery = z.strictObject({
  tags: StringMap.optional(),
  include_destroyed: z.boolean().optional(),
  cursor: Uuid.optional(),
});
export type ListServersQuery = z.infer<typeof ListServersQuery>;

const AnswerRoutingKind = z.object({}).meta({ id: "RoutingKind" });

export const ServerPort = z
  .object({
    internal_port: AnswerInt.optional().describe("Port the game process listens on inside the server."),
    protocol: openEnum(PORT_PROTOCOLS).describe("`http`, `https`, `tcp`, `tcp_tls` or `udp`."),
    public_hostname: z
      .string()
      .optional()
      .describe("Public hostname of the port; set once the server is placed."),
    public_port: AnswerInt.optional().describe("Public port number; set once the server is placed."),
    // Named as the request's routing (same fields), so the package schema has one PortRouting type.
    routing: z
      .object({ game_guard: AnswerRoutingKind.optional(), host: AnswerRoutingKind.optional() })
      .meta({ id: "PortRouting", description: "`gameGuard: {}` or `host: {}`." }),
  })
  .meta({ id: "ServerPort", description: "A port of a server as the service reports it." });
export type ServerPort = z.infer<typeof ServerPort>;

/** A dynamic server as the service returns it. Timestamps are epoch milliseconds. */
export const Server = z.object({
  created_at: AnswerInt,
  datacenter: z.string(),
  destroyed_at: AnswerInt.optional(),
  environment: z.string(),
  id: z.string(),
  lifecycle: z.object({ kill_timeout: AnswerInt.optional() }),
  network: z.object({ mode: openEnum(NETWORK_MODES).optional(), ports: z.record(z.string(), ServerPort) }),
  resources: z.object({ cpu: AnswerInt, memory: AnswerInt }),
  runtime: z.object({
    arguments: z.array(z.string()).optional(),
    build: z.string(),
    environment: z.record(z.string(), z.string()).optional(),
  }),
  started_at: AnswerInt.optional(),
  tags: z.record(z.string(), z.string()),
});
export type Server = z.infer<typeof Server>;

export const ServerResponse = z.object({ server: Server });
export type ServerResponse = z.infer<typeof ServerResponse>;

export const ListServersResponse = z.object({ servers: z.array(Server) });
export type ListServersResponse = z.infer<typeof ListServersResponse>;

export const Datacenter = z
  .object({
    id: z.string().describe("UUID of the datacenter: a Server's `datacenter`."),
    slug: z.string().describe("Short name of the datacenter, e.g. `us-east-atl`."),
    name: z.string().describe("Display name of the datacenter."),
  })
  .meta({ id: "Datacenter", description: "A datacenter of the game's cluster." });
export type Datacenter = z.infer<typeof Datacenter>;
export const ListDatacentersResponse = z.object({ datacenters: z.array(Datacenter) });
export type ListDatacentersResponse = z.infer<typeof ListDatacentersResponse>;

export const Build = z
  .object({
    id: z.string().describe("UUID of the build: a Server's `runtime.build`."),
    name: z.string().describe("Name of the build."),
    created_at: z.string().describe("When the build was uploaded (RFC 3339)."),
    content_length: AnswerInt.describe("Size of the build in bytes."),
    tags: z.record(z.string(), z.string()).describe("The build's tags."),
  })
  .meta({ id: "Build", description: "A build servers of the environment can run." });
export type Build = z.infer<typeof Build>;
export const ListBuildsResponse = z.object({ builds: z.array(Build) });
export type ListBuildsResponse = z.infer<typeof ListBuildsResponse>;

export const ListBuildsQuery = z.strictObject({ tags: StringMap.optional() });
export type ListBuildsQuery = z.infer<typeof ListBuildsQuery>;
