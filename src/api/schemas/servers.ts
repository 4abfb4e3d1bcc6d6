import { z } from "zod";
import { EpochMs, Rfc3339, StringMap, Uint64, Uuid, userRecord } from "./common";

/** `bridge` (the default) or `host` networking. */
export const NetworkMode = z.enum(["bridge", "host"]);
export type NetworkMode = z.infer<typeof NetworkMode>;

/** Port protocols the service knows. */
export const PortProtocol = z.enum(["http", "https", "tcp", "tcp_tls", "udp"]);
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

const EmptyObject = z.strictObject({});

/** A port's routing: exactly one of `game_guard` or `host`; omitted routing means game guard. */
export const PortRouting = z.strictObject({
  game_guard: EmptyObject.optional(),
  host: EmptyObject.optional(),
});
export type PortRouting = z.infer<typeof PortRouting>;

export const CreatePort = z
  .strictObject({
    internal_port: PortNumber.optional(),
    protocol: PortProtocol,
    routing: PortRouting.optional(),
  })
  .superRefine((port, ctx) => {
    if (port.routing === undefined) return;
    const kinds = [port.routing.game_guard, port.routing.host].filter((r) => r !== undefined).length;
    if (kinds !== 1) {
      ctx.addIssue({
        code: "custom",
        path: ["routing"],
        message: "must set exactly one of game_guard or host",
        params: { apiCode: RULE_CODES.routing },
      });
    } else if (port.routing.host !== undefined && !HOST_ROUTING_PROTOCOLS.includes(port.protocol)) {
      ctx.addIssue({
        code: "custom",
        path: ["protocol"],
        message: `host routing supports only ${HOST_ROUTING_PROTOCOLS.join(" and ")}, not ${port.protocol}`,
        params: { apiCode: RULE_CODES.hostProtocol },
      });
    }
  });
export type CreatePort = z.infer<typeof CreatePort>;

const PORT_NAME_RULE = "port names must be lowercase letters, digits and '-', 1 to 63 characters";

/** Port names are map keys; the service uses them in hostnames, so keep them DNS-label safe. */
export const PortName = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
  error: PORT_NAME_RULE,
});

/** Body of `POST /games/{game_id}/environments/{environment_id}/servers`, validated strictly. */
export const CreateServerRequest = z.strictObject({
  datacenter: Uuid,
  lifecycle: z.strictObject({ kill_timeout: KillTimeoutMs.optional() }).optional(),
  network: z.strictObject({
    mode: NetworkMode.optional(),
    // A bad key is reported as the record's `invalid_key`, whose default message names no rule.
    ports: userRecord(PortName, CreatePort, {
      error: (issue) => (issue.code === "invalid_key" ? PORT_NAME_RULE : undefined),
    }),
  }),
  resources: z.strictObject({ cpu: PositiveInt, memory: PositiveInt }),
  runtime: z.strictObject({
    arguments: z.array(z.string()).optional(),
    build: Uuid,
    environment: StringMap.optional(),
  }),
  tags: StringMap,
});
export type CreateServerRequest = z.infer<typeof CreateServerRequest>;

/** Path parameters of every servers route. */
export const ServerScope = z.strictObject({ game_id: Uuid, environment_id: Uuid });
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

export const ServerPort = z.object({
  internal_port: z.number().int().optional(),
  protocol: PortProtocol,
  public_hostname: z.string().optional(),
  public_port: z.number().int().optional(),
  routing: z.object({ game_guard: z.object({}).optional(), host: z.object({}).optional() }),
});
export type ServerPort = z.infer<typeof ServerPort>;

/** A dynamic server as the service returns it. Timestamps are epoch milliseconds. */
export const Server = z.object({
  created_at: EpochMs,
  datacenter: Uuid,
  destroyed_at: EpochMs.optional(),
  environment: Uuid,
  id: Uuid,
  lifecycle: z.object({ kill_timeout: z.number().int().optional() }),
  network: z.object({ mode: NetworkMode.optional(), ports: z.record(z.string(), ServerPort) }),
  resources: z.object({ cpu: z.number().int(), memory: z.number().int() }),
  runtime: z.object({
    arguments: z.array(z.string()).optional(),
    build: Uuid,
    environment: z.record(z.string(), z.string()).optional(),
  }),
  started_at: EpochMs.optional(),
  tags: z.record(z.string(), z.string()),
});
export type Server = z.infer<typeof Server>;

export const ServerResponse = z.object({ server: Server });
export type ServerResponse = z.infer<typeof ServerResponse>;

export const ListServersResponse = z.object({ servers: z.array(Server) });
export type ListServersResponse = z.infer<typeof ListServersResponse>;

export const Datacenter = z.object({ id: Uuid, slug: z.string(), name: z.string() });
export type Datacenter = z.infer<typeof Datacenter>;
export const ListDatacentersResponse = z.object({ datacenters: z.array(Datacenter) });
export type ListDatacentersResponse = z.infer<typeof ListDatacentersResponse>;

export const Build = z.object({
  id: Uuid,
  name: z.string(),
  created_at: Rfc3339,
  content_length: Uint64,
  tags: z.record(z.string(), z.string()),
});
export type Build = z.infer<typeof Build>;
export const ListBuildsResponse = z.object({ builds: z.array(Build) });
export type ListBuildsResponse = z.infer<typeof ListBuildsResponse>;

export const ListBuildsQuery = z.strictObject({ tags: StringMap.optional() });
export type ListBuildsQuery = z.infer<typeof ListBuildsQuery>;
