import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { type Camelize, type MapPaths, snakeToCamel, toCamelKeys, toSnakeKeys } from "../../api/case";
import {
  CreateServerRequest,
  KillTimeoutMs,
  portNeverStarts,
  routingOf,
  SERVER_DEFAULTS,
  type Server,
  type ServerPort,
  ServerPort as ServerPortSchema,
  ServerScope,
  Uuid,
} from "../../api/schemas";
import { type CheckFailure, checkWire, UNKNOWN, withStrayKeys } from "../checks";
import { omit, pick, SERIALIZED_PROVIDER_FIELD } from "../fields";
import type { CheckContext } from "../kind";

import { FLEET_TAGS, IDEMPOTENCY_TAG } from "./tags";

export { IDEMPOTENCY_TAG };

/** Where a server's environment variables are: values its owner may have made secrets. */
export const ENVIRONMENT_PATH = ["runtime", "environment"] as const;
/** camelCase paths whose object values are maps keyed by user data. */
export const SERVER_MAP_PATHS: MapPaths = [["tags"], ENVIRONMENT_PATH, ["network", "ports"]];

/** The create body in camelCase: the wire schema, renamed. */
export type ServerSpecBody = Camelize<CreateServerRequest>;

/** Checked inputs of a Server, as the provider stores them: its scope, create body and knobs, from their schemas. */
export type ServerInputs = Camelize<ServerScope> &
  ServerSpecBody &
  z.infer<typeof ServerKnobs> & {
    /**
     * Written by earlier builds (the resource's name among all stacks, which salted a key derived from
     * the spec); still found in their state, dropped by `check`.
     */
    resourceScope?: string;
    /** Value of {@link IDEMPOTENCY_TAG}: random, chosen by `check` for each server to be created. */
    idempotencyKey: string;
  };

/** A port of a running server, camelCase. */
export type ServerPortOutput = Camelize<ServerPort>;

/** Everything the provider returns from create/update/read. */
export type ServerOutputs = ServerInputs & {
  serverId: string;
  createdAt: number;
  startedAt?: number;
  destroyedAt?: number;
  ports: Record<string, ServerPortOutput>;
  endpoints: Record<string, string>;
};

export const DEFAULT_READY_TIMEOUT_SECONDS = 300;

/** Provider-only inputs: how the provider waits, deletes and adopts; none is sent to the service. */
export const ServerKnobs = z.strictObject({
  waitForReady: z
    .boolean()
    .optional()
    .describe(
      "Provider-only (a change calls no API): wait until the server is placed and every port has a public address (default true).",
    ),
  readyTimeoutSeconds: z
    .number()
    .int({ error: "must be a whole number of seconds" })
    .positive({ error: "must be > 0" })
    .max(86_400, { error: "must be ≤ 86400 (one day)" })
    .optional()
    .describe(
      "Provider-only: how long to wait for readiness, in whole seconds from 1 to 86400 (one day; default 300). With the plugin, a shorter `customTimeouts.create` ends the wait sooner (the dynamic provider host ignores customTimeouts).",
    ),
  destroyKillTimeout: KillTimeoutMs.optional().describe(
    "Provider-only: kill timeout sent as `override_kill_timeout` when the server is deleted: milliseconds between SIGTERM and SIGKILL, 0 ≤ x < 7 200 000 (unset: the server's own `lifecycle.killTimeout`).",
  ),
  adoptServerId: Uuid.optional().describe(
    "Provider-only: take over this existing server (UUID) instead of creating one; its spec must match the declared one. The way to bring a server under a dynamic resource, which cannot be imported (with the plugin, `pulumi import` works too).",
  ),
});

/** Fields of the server spec (its scope and create body, from their schemas): any change replaces the server. */
export const SPEC_FIELDS: readonly string[] = [
  ...ServerScope.keyof().options,
  ...CreateServerRequest.keyof().options,
].map(snakeToCamel);

/** Provider-only knobs (from their schema): a change is an update that calls no API; adopting is not one. */
export const KNOB_FIELDS = ServerKnobs.keyof().exclude(["adoptServerId"]).options;

/** What the service and the provider add to a Server's inputs (every input is an output too). */
export const ServerComputedOutputs = z.object({
  serverId: z.string().describe("The server's UUID (also the resource id)."),
  createdAt: z.number().int().describe("When the server was created, epoch ms."),
  startedAt: z
    .number()
    .int()
    .optional()
    .describe("When the server became connectable, epoch ms; unset until it is placed."),
  destroyedAt: z.number().int().optional().describe("When the server was destroyed, epoch ms."),
  ports: z
    .record(z.string(), ServerPortSchema)
    .describe("Ports as the service reports them, with `publicHostname` and `publicPort` once placed."),
  endpoints: z
    .record(z.string(), z.string())
    .describe("Port name → `host:port`, for every port with a public address."),
  idempotencyKey: z
    .string()
    .describe(
      "Random key chosen for this server when it was to be created (a replacement gets a new one), put on it as the reserved tag `pulumi-gamehost/idempotency-key`: a create whose answer was lost finds its server by it.",
    ),
});

/** Fields the provider keeps in a Server's inputs beside what the user declares (never sent as such). */
export const INTERNAL_FIELDS = ["resourceScope", "idempotencyKey", SERIALIZED_PROVIDER_FIELD] as const;

/** The scope's fields in camelCase (the create's path, not its body), from their schema. */
const SCOPE_FIELDS = ServerScope.keyof().options.map(snakeToCamel) as ("gameId" | "environmentId")[];

/** Every provider-only knob, adopting included, from its schema. */
const ALL_KNOB_FIELDS = ServerKnobs.keyof().options;

/** Computed outputs that are not inputs too (`idempotencyKey` is both): what {@link ServerInputs} lack. */
export const OUTPUT_ONLY_FIELDS = ServerComputedOutputs.keyof().options.filter(
  (field): field is Exclude<typeof field, (typeof INTERNAL_FIELDS)[number]> =>
    !(INTERNAL_FIELDS as readonly string[]).includes(field),
);

/** The create body (snake_case) of checked inputs, without the reserved tag: all but scope, knobs and internals. */
export function wireBody(inputs: Partial<ServerInputs>): unknown {
  const body = omit(inputs as Record<string, unknown>, [
    ...SCOPE_FIELDS,
    ...ALL_KNOB_FIELDS,
    ...INTERNAL_FIELDS,
  ]);
  return toSnakeKeys(body, SERVER_MAP_PATHS);
}

/** Validates raw inputs with the API's own rules; failures name camelCase properties. */
export function checkServerInputs(news: Record<string, unknown>): CheckFailure[] {
  const declared = omit(news, INTERNAL_FIELDS);
  const scope = pick(news, SCOPE_FIELDS);
  const knobs = pick(news, ALL_KNOB_FIELDS);
  const wireFailures = [
    ...checkWire(ServerScope, toSnakeKeys(scope), scope, []),
    ...checkWire(CreateServerRequest, wireBody(news), news, SERVER_MAP_PATHS),
    ...checkWire(ServerKnobs, knobs, knobs, [], "camelCase"),
  ];
  const failures = withStrayKeys(wireFailures, declared, SERVER_MAP_PATHS);
  failures.push(...portsThatNeverStart(news.network));
  const tags = news.tags;
  if (typeof tags === "object" && tags !== null) {
    if (IDEMPOTENCY_TAG in tags)
      failures.push({
        property: `tags.${IDEMPOTENCY_TAG}`,
        reason: "is reserved for pulumi-gamehost; remove it",
      });
    // A server with a fleet's tags is that fleet's: declared (or imported) as a Server too, it would have two
    // owners, the fleet counting, replacing or deleting it under the Server's stack.
    for (const tag of FLEET_TAGS.filter((t) => t in tags))
      failures.push({
        property: `tags.${tag}`,
        reason:
          "is reserved for pulumi-gamehost; remove it (a Fleet's servers carry it: manage them through their Fleet, which `pulumi import gamehost:index:Fleet` or `gamehost adopt` takes over)",
      });
  }
  return failures;
}

/**
 * A failure for each game-guard port without `internalPort`: the service accepts such a port, but the
 * server then never starts (docs/service-contract.md §4), so it is refused before any request. A port still
 * unknown in a preview is left for the check at apply.
 */
function portsThatNeverStart(network: unknown): CheckFailure[] {
  const ports = (network as { ports?: unknown } | undefined)?.ports;
  if (typeof ports !== "object" || ports === null) return [];
  return Object.entries(ports).flatMap(([name, port]): CheckFailure[] => {
    if (typeof port !== "object" || port === null) return [];
    const { internalPort, routing } = port as {
      internalPort?: number;
      routing?: { host?: object; gameGuard?: object };
    };
    // A routing that names neither or both kinds already fails on its own.
    if (routing !== undefined && (routing.host === undefined) === (routing.gameGuard === undefined))
      return [];
    if (!portNeverStarts({ internal_port: internalPort, routing })) return [];
    return [
      {
        property: `network.ports.${name}.internalPort`,
        reason:
          "is required for a game-guard port: the service accepts the port without it, but the server never starts. Set it to the port the game listens on.",
      },
    ];
  });
}

/** Canonical form of a spec: the service's defaults filled in, so equal servers compare equal. */
export function canonicalSpec(inputs: Partial<ServerInputs>): Record<string, unknown> {
  const ports: Record<string, unknown> = {};
  for (const [name, port] of Object.entries(inputs.network?.ports ?? {})) {
    ports[name] = {
      protocol: port.protocol,
      internalPort: port.internalPort ?? null,
      routing: routingOf({ routing: port.routing }),
    };
  }
  return {
    gameId: inputs.gameId,
    environmentId: inputs.environmentId,
    datacenter: inputs.datacenter,
    tags: sortKeys(inputs.tags ?? {}),
    runtime: {
      build: inputs.runtime?.build,
      arguments: inputs.runtime?.arguments ?? SERVER_DEFAULTS.arguments,
      environment: sortKeys(inputs.runtime?.environment ?? SERVER_DEFAULTS.environment),
    },
    network: { mode: inputs.network?.mode ?? SERVER_DEFAULTS.networkMode, ports: sortKeys(ports) },
    resources: { cpu: inputs.resources?.cpu, memory: inputs.resources?.memory },
    lifecycle: { killTimeout: inputs.lifecycle?.killTimeout ?? SERVER_DEFAULTS.killTimeoutMs },
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Spec fields whose canonical values differ (an unknown value counts as a difference). */
export function changedSpecFields(olds: Partial<ServerInputs>, news: Partial<ServerInputs>): string[] {
  const a = canonicalSpec(olds);
  const b = canonicalSpec(news);
  return SPEC_FIELDS.filter(
    (field) =>
      JSON.stringify(a[field]) !== JSON.stringify(b[field]) || JSON.stringify(b[field]).includes(UNKNOWN),
  );
}

/**
 * A key for one server to be created: 128 random bits in UUID form. It is never derived from the spec,
 * so it says nothing about secret inputs, and a replacement (whose check has no old inputs) never gets
 * the key of the server it replaces. With the engine's seed, the same deployment plan gives the same key.
 */
export function newIdempotencyKey(seed: CheckContext = {}): string {
  if (!seed.randomSeed?.length) return randomUUID();
  const bytes = createHash("sha256")
    .update(seed.randomSeed)
    .update("\0")
    .update(seed.urn ?? "")
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const KEY_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Whether `value` is a key {@link newIdempotencyKey} made (one to keep across updates). */
export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === "string" && KEY_FORM.test(value);
}

/**
 * Whether `value` is a key of earlier builds: a hash of the spec, secret values included, which a
 * guess can be checked against. The next `up` replaces it in the state (an update that calls no API).
 */
export function isLegacyIdempotencyKey(value: unknown): boolean {
  return typeof value === "string" && /^[0-9a-f]{32}$/.test(value);
}

/** The spec as the live server reports it, in the shape of inputs (compare with {@link changedSpecFields}). */
export function specOfServer(server: Server, gameId: string): Partial<ServerInputs> {
  const { [IDEMPOTENCY_TAG]: _key, ...tags } = server.tags;
  const live = toCamelKeys(
    {
      datacenter: server.datacenter,
      tags,
      runtime: server.runtime,
      network: {
        mode: server.network.mode,
        ports: Object.fromEntries(
          Object.entries(server.network.ports).map(([name, port]) => [
            name,
            { protocol: port.protocol, internal_port: port.internal_port, routing: port.routing },
          ]),
        ),
      },
      resources: server.resources,
      lifecycle: server.lifecycle,
    },
    SERVER_MAP_PATHS,
  ) as Partial<ServerInputs>;
  return { ...live, gameId, environmentId: server.environment };
}

/** What is still missing before a server counts as ready (connectable with every port addressed). */
/** When a server stopped, as messages name it: RFC 3339 in UTC, which reads the same in any time zone. */
export function destroyedAtText(destroyedAt: number): string {
  return `destroyed_at ${new Date(destroyedAt).toISOString()}`;
}

export function missingForReady(server: Server): string[] {
  const missing: string[] = [];
  if (server.started_at === undefined) missing.push("started_at");
  for (const [name, port] of Object.entries(server.network.ports)) {
    if (port.public_hostname === undefined) missing.push(`ports.${name}.public_hostname`);
    if (port.public_port === undefined) missing.push(`ports.${name}.public_port`);
  }
  return missing;
}

/** Whether recorded outputs describe a ready server ({@link missingForReady}'s rule): placed, every port addressed. */
export function outputsAreReady(outputs: Pick<ServerOutputs, "startedAt" | "ports">): boolean {
  return (
    outputs.startedAt !== undefined &&
    Object.values(outputs.ports ?? {}).every(
      (p) => p.publicHostname !== undefined && p.publicPort !== undefined,
    )
  );
}

/** Outputs: the inputs echoed, plus what the service says about the server. */
export function serverOutputs(inputs: ServerInputs, server: Server): ServerOutputs {
  const ports: Record<string, ServerPortOutput> = {};
  const endpoints: Record<string, string> = {};
  for (const [name, port] of Object.entries(server.network.ports)) {
    ports[name] = toCamelKeys(port);
    if (port.public_hostname !== undefined && port.public_port !== undefined) {
      endpoints[name] = `${port.public_hostname}:${port.public_port}`;
    }
  }
  return {
    ...inputs,
    serverId: server.id,
    createdAt: server.created_at,
    ...(server.started_at !== undefined ? { startedAt: server.started_at } : {}),
    ...(server.destroyed_at !== undefined ? { destroyedAt: server.destroyed_at } : {}),
    ports,
    endpoints,
  };
}
