import * as pulumi from "@pulumi/pulumi";
import type { NetworkMode, PortProtocol } from "../../api/schemas";
import type { ServerPortOutput } from "./spec";

/**
 * The serialized provider. Pulumi stores this object's code in the stack state and runs it later in
 * a separate host process, so each method only loads the implementation through the package's
 * exported subpath at call time: nothing of this package (schemas, clients, config) is captured.
 * One shared instance, because the SDK caches serialization per provider object. Arrows that use
 * no `this` keep the serialized text small (< 2 KB). Exported for serialization tests.
 * @internal
 */
export const serverProvider: pulumi.dynamic.ResourceProvider = {
  configure: (...a) => require("pulumi-gamehost/provider/server").configure(...a),
  check: (...a) => require("pulumi-gamehost/provider/server").check(...a),
  diff: (...a) => require("pulumi-gamehost/provider/server").diff(...a),
  create: (...a) => require("pulumi-gamehost/provider/server").create(...a),
  read: (...a) => require("pulumi-gamehost/provider/server").read(...a),
  update: (...a) => require("pulumi-gamehost/provider/server").update(...a),
  delete: (...a) => require("pulumi-gamehost/provider/server").delete(...a),
};

/** Routing of a port: set exactly one of `gameGuard` or `host`; omitted means game guard. */
export interface ServerPortRoutingArgs {
  /** Route through the platform's game guard proxy (any protocol). Pass `{}`. */
  gameGuard?: pulumi.Input<Record<string, never>>;
  /** Expose the port on the node's own address (only `tcp` and `udp`). Pass `{}`. */
  host?: pulumi.Input<Record<string, never>>;
}

/** One named port of the server. */
export interface ServerPortArgs {
  /** `http`, `https`, `tcp`, `tcp_tls` or `udp`. */
  protocol: pulumi.Input<PortProtocol>;
  /** Port the game process listens on inside the server (1–65535). */
  internalPort?: pulumi.Input<number>;
  /** How the port is reached from outside; omitted means game guard. */
  routing?: pulumi.Input<ServerPortRoutingArgs>;
}

/** Arguments of a {@link Server}. Every field except the provider-only knobs is part of the immutable spec. */
export interface ServerArgs {
  /** UUID of the game the server belongs to. */
  gameId: pulumi.Input<string>;
  /** UUID of the game environment (a namespace's `namespaceId`). */
  environmentId: pulumi.Input<string>;
  /** UUID of a datacenter of the game's cluster (see the `listDatacenters` client call). */
  datacenter: pulumi.Input<string>;
  /** String-to-string labels; servers can be listed by tag. The key `pulumi-gamehost/idempotency-key` is reserved. */
  tags: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** What runs: the build UUID, its arguments and environment variables. */
  runtime: pulumi.Input<{
    /** UUID of the build to run. */
    build: pulumi.Input<string>;
    /** Command-line arguments (default none). */
    arguments?: pulumi.Input<pulumi.Input<string>[]>;
    /** Environment variables (default none). */
    environment?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  }>;
  /** Networking: mode and named ports. */
  network: pulumi.Input<{
    /** `bridge` (default) or `host`. */
    mode?: pulumi.Input<NetworkMode>;
    /** Ports by name (lowercase letters, digits and `-`). */
    ports: pulumi.Input<Record<string, pulumi.Input<ServerPortArgs>>>;
  }>;
  /** CPU in millicores (1000 = one core) and memory in MB, both positive integers. */
  resources: pulumi.Input<{
    /** Millicores: 1000 is one core, 125 an eighth. */
    cpu: pulumi.Input<number>;
    /** Megabytes. */
    memory: pulumi.Input<number>;
  }>;
  /** Shutdown behaviour. */
  lifecycle?: pulumi.Input<{
    /** Milliseconds between SIGTERM and SIGKILL when the server is stopped, 0 ≤ x < 7 200 000 (default 0). */
    killTimeout?: pulumi.Input<number>;
  }>;
  /** Provider-only: wait until the server is placed and every port has a public address (default true). */
  waitForReady?: pulumi.Input<boolean>;
  /** Provider-only: how long to wait for readiness, in seconds (default 300). Use this, not `customTimeouts`. */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** Provider-only: kill timeout (ms) sent as `override_kill_timeout` when the server is deleted. */
  destroyKillTimeout?: pulumi.Input<number>;
  /**
   * Provider-only: take over this existing server (UUID) instead of creating one — the way to bring a
   * server under management, since `pulumi import` cannot work with dynamic providers. Its spec must
   * match the declared one.
   */
  adoptServerId?: pulumi.Input<string>;
}

/**
 * What names this stack uniquely among all stacks that may share an environment: organization,
 * project and stack. Without the organization, same-named stacks of two organizations would derive
 * the same idempotency keys. Unit tests under `setMocks` may run without one.
 */
function stackScope(): string {
  let organization: string;
  try {
    organization = pulumi.getOrganization();
  } catch {
    organization = "";
  }
  return `${organization}/${pulumi.getProject()}/${pulumi.getStack()}`;
}

/** Outputs that hold no secret here; the token never reaches the provider's inputs or state. */
const SERVER_OUTPUT_KEYS = [
  "serverId",
  "createdAt",
  "startedAt",
  "destroyedAt",
  "ports",
  "endpoints",
  "idempotencyKey",
] as const;

/**
 * A dynamic game server (`pulumi-nodejs:dynamic/gamehost:Server`). Servers are immutable: any change to
 * the spec creates a new server before deleting the old one.
 */
export class Server extends pulumi.dynamic.Resource {
  /** UUID of the game. */
  declare readonly gameId: pulumi.Output<string>;
  /** UUID of the environment. */
  declare readonly environmentId: pulumi.Output<string>;
  /** UUID of the datacenter. */
  declare readonly datacenter: pulumi.Output<string>;
  /** The tags as declared (the reserved idempotency tag is not shown). */
  declare readonly tags: pulumi.Output<Record<string, string>>;
  /** The runtime as declared. */
  declare readonly runtime: pulumi.Output<{
    build: string;
    arguments?: string[];
    environment?: Record<string, string>;
  }>;
  /** The network as declared. */
  declare readonly network: pulumi.Output<{
    mode?: NetworkMode;
    ports: Record<string, { protocol: PortProtocol; internalPort?: number; routing?: ServerPortRoutingArgs }>;
  }>;
  /** The resources as declared. */
  declare readonly resources: pulumi.Output<{ cpu: number; memory: number }>;
  /** The lifecycle as declared. */
  declare readonly lifecycle: pulumi.Output<{ killTimeout?: number } | undefined>;
  /** Whether create waited for readiness. */
  declare readonly waitForReady: pulumi.Output<boolean | undefined>;
  /** Readiness timeout in seconds. */
  declare readonly readyTimeoutSeconds: pulumi.Output<number | undefined>;
  /** Kill timeout override used on delete, in ms. */
  declare readonly destroyKillTimeout: pulumi.Output<number | undefined>;
  /** The adopted server's id, when adopted. */
  declare readonly adoptServerId: pulumi.Output<string | undefined>;
  /** The server's UUID (also the resource id). */
  declare readonly serverId: pulumi.Output<string>;
  /** When the server was created, epoch ms. */
  declare readonly createdAt: pulumi.Output<number>;
  /** When the server became connectable, epoch ms; unset until placed. */
  declare readonly startedAt: pulumi.Output<number | undefined>;
  /** When the server was destroyed, epoch ms. */
  declare readonly destroyedAt: pulumi.Output<number | undefined>;
  /** Ports as the service reports them, with `publicHostname` / `publicPort` once placed. */
  declare readonly ports: pulumi.Output<Record<string, ServerPortOutput>>;
  /** Port name → `host:port`, for every port with a public address. */
  declare readonly endpoints: pulumi.Output<Record<string, string>>;
  /** Value of the reserved `pulumi-gamehost/idempotency-key` tag on the server. */
  declare readonly idempotencyKey: pulumi.Output<string>;

  constructor(name: string, args: ServerArgs, opts?: pulumi.CustomResourceOptions) {
    const props: Record<string, unknown> = { ...args, resourceScope: `${stackScope()}/${name}` };
    for (const key of SERVER_OUTPUT_KEYS) props[key] = undefined;
    super(serverProvider, name, props, opts, "gamehost", "Server");
  }
}
