/**
 * Server provider implementation. Loaded at call time by the serialized shim through the package
 * subpath `pulumi-gamehost/provider/server`, so nothing here is ever serialized into state.
 */
import type { GamehostClient } from "../../api/client";
import { GamehostApiError, GamehostError, GamehostNetworkError } from "../../api/errors";
import { backoffDelay, DEFAULT_RETRY_POLICY } from "../../api/retry";
import type { CreateServerRequest, Server } from "../../api/schemas";
import { type CheckFailure, containsUnknown } from "../checks";
import { providerClient } from "../settings";
import {
  canonicalSpec,
  changedSpecFields,
  checkServerInputs,
  DEFAULT_READY_TIMEOUT_SECONDS,
  IDEMPOTENCY_TAG,
  idempotencyKey,
  KNOB_FIELDS,
  missingForReady,
  type ServerInputs,
  type ServerOutputs,
  serverOutputs,
  specOfServer,
  wireBody,
} from "./spec";

export { configure } from "../settings";

/** Attempts at a create whose outcome was ambiguous or rate limited, before giving up. */
const CREATE_ATTEMPTS = 5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits between create attempts: the client's backoff, from 250 ms up to 5 s. */
const CREATE_BACKOFF = { ...DEFAULT_RETRY_POLICY, minDelayMs: 250, maxDelayMs: 5_000 };
const backoffMs = (attempt: number) => backoffDelay(CREATE_BACKOFF, attempt + 1);

export async function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): Promise<{ inputs: Record<string, unknown>; failures: CheckFailure[] }> {
  const failures = checkServerInputs(news);
  const inputs: Record<string, unknown> = { ...news };
  // The key is derived, not chosen: a re-run after a lost create computes the same one.
  inputs.idempotencyKey = containsUnknown(news) ? (olds.idempotencyKey ?? "") : idempotencyKey(news);
  return { inputs, failures };
}

export async function diff(
  _id: string,
  olds: ServerOutputs,
  news: ServerInputs,
): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }> {
  const replaces: string[] = changedSpecFields(olds, news);
  if (news.adoptServerId !== undefined && news.adoptServerId !== olds.serverId)
    replaces.push("adoptServerId");
  const knobsChanged = KNOB_FIELDS.filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
  // A recorded server that is not ready yet (a partial create) gets an update, which waits for it. The
  // engine's own marker for that (init errors) does not survive a refresh, so the state itself decides.
  const awaitingReady = news.waitForReady !== false && !isReady(olds);
  return {
    changes: replaces.length > 0 || knobsChanged.length > 0 || awaitingReady,
    replaces,
    deleteBeforeReplace: false,
  };
}

/** An error Pulumi records as a partially created resource (the dynamic host reads `id`). */
class PartialCreateError extends GamehostError {
  override name = "PartialCreateError";
  constructor(
    message: string,
    readonly id: string,
    readonly properties: ServerOutputs,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

function isAmbiguous(error: unknown): boolean {
  if (error instanceof GamehostNetworkError) return error.mayHaveCommitted;
  return error instanceof GamehostApiError && error.status >= 500;
}

function isRetryableBeforeCommit(error: unknown): boolean {
  return (
    (error instanceof GamehostNetworkError && !error.mayHaveCommitted) ||
    (error instanceof GamehostApiError && error.status === 429)
  );
}

async function findByKey(client: GamehostClient, inputs: ServerInputs): Promise<Server | undefined> {
  const found = await client.listServers(inputs.gameId, inputs.environmentId, {
    tags: { [IDEMPOTENCY_TAG]: inputs.idempotencyKey },
  });
  const [newest, ...extra] = found;
  // Two live servers with one key can only come from a service that committed a create twice:
  // keep the newest, remove the rest, so the stack never pays for a duplicate.
  for (const dup of extra) await client.deleteServer(inputs.gameId, inputs.environmentId, dup.id);
  return newest;
}

/** POST with the reserved tag; on a lost or ambiguous answer, adopt what was made or try again. */
async function createOnce(client: GamehostClient, inputs: ServerInputs): Promise<Server> {
  const existing = await findByKey(client, inputs);
  if (existing) return existing;
  const body = wireBody(inputs) as CreateServerRequest;
  body.tags = { ...body.tags, [IDEMPOTENCY_TAG]: inputs.idempotencyKey };
  let lastError: unknown;
  for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
    try {
      return await client.createServer(inputs.gameId, inputs.environmentId, body);
    } catch (error) {
      lastError = error;
      if (isAmbiguous(error)) {
        await sleep(backoffMs(attempt));
        const made = await findByKey(client, inputs);
        if (made) return made;
      } else if (isRetryableBeforeCommit(error)) {
        const retryAt = error instanceof GamehostApiError ? error.retryAfterMs : undefined;
        await sleep(retryAt !== undefined ? Math.max(0, retryAt - Date.now()) : backoffMs(attempt));
      } else {
        throw error;
      }
    }
  }
  throw lastError;
}

async function adopt(client: GamehostClient, inputs: ServerInputs, serverId: string): Promise<Server> {
  const server = await client.getServer(inputs.gameId, inputs.environmentId, serverId);
  if (server.destroyed_at !== undefined) {
    throw new GamehostError(`adoptServerId ${serverId}: the server was destroyed at ${server.destroyed_at}.`);
  }
  const live = specOfServer(server, inputs.gameId);
  const wanted = changedSpecFields(live, inputs);
  if (wanted.length > 0) {
    const canonical = canonicalSpec(live);
    const details = wanted.map((f) => `${f}: live ${JSON.stringify(canonical[f])}`).join("; ");
    throw new GamehostError(
      `adoptServerId ${serverId}: the server does not match the declared spec in ${wanted.join(", ")} (${details}). Declare the server as it is, or drop adoptServerId to create a new one.`,
    );
  }
  return server;
}

async function waitUntilReady(
  client: GamehostClient,
  inputs: ServerInputs,
  created: Server,
): Promise<Server> {
  const timeoutSeconds = inputs.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS;
  const deadline = Date.now() + timeoutSeconds * 1000;
  let server = created;
  for (let attempt = 0; ; attempt++) {
    const missing = missingForReady(server);
    if (server.destroyed_at !== undefined) {
      throw new PartialCreateError(
        `Server ${server.id} stopped before it was ready (destroyed_at ${server.destroyed_at}).`,
        server.id,
        serverOutputs(inputs, server),
        ["server stopped"],
      );
    }
    if (missing.length === 0) return server;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new PartialCreateError(
        `Server ${server.id} was created but was not ready after ${timeoutSeconds}s: still missing ${missing.join(", ")}. ` +
          "It is recorded in the stack; run `pulumi up` again to keep waiting, or raise readyTimeoutSeconds.",
        server.id,
        serverOutputs(inputs, server),
        missing.map((m) => `missing ${m}`),
      );
    }
    await sleep(Math.min(remaining, Math.min(2_000, 100 * 1.5 ** attempt)));
    try {
      server = await client.getServer(inputs.gameId, inputs.environmentId, server.id);
    } catch (error) {
      // The server exists: a failed readiness check must not make the create look failed, or the stack
      // would lose the server (an orphan until the next create adopts it by its idempotency key).
      const reason = error instanceof Error ? error.message : String(error);
      throw new PartialCreateError(
        `Server ${server.id} was created, but checking whether it is ready failed: ${reason} ` +
          "It is recorded in the stack; run `pulumi up` again to keep waiting.",
        server.id,
        serverOutputs(inputs, server),
        [`readiness check failed: ${reason}`],
      );
    }
  }
}

export async function create(inputs: ServerInputs): Promise<{ id: string; outs: ServerOutputs }> {
  const client = providerClient();
  let server =
    inputs.adoptServerId !== undefined
      ? await adopt(client, inputs, inputs.adoptServerId)
      : await createOnce(client, inputs);
  if (inputs.waitForReady !== false) server = await waitUntilReady(client, inputs, server);
  return { id: server.id, outs: serverOutputs(inputs, server) };
}

function inputsOf(outputs: ServerOutputs): ServerInputs {
  const { serverId, createdAt, startedAt, destroyedAt, ports, endpoints, ...inputs } = outputs;
  return inputs;
}

export async function read(id: string, props: ServerOutputs): Promise<{ id: string; props?: ServerOutputs }> {
  const client = providerClient();
  try {
    const server = await client.getServer(props.gameId, props.environmentId, id);
    if (server.destroyed_at !== undefined) return { id: "" };
    return { id, props: serverOutputs(inputsOf(props), server) };
  } catch (error) {
    if (error instanceof GamehostApiError && error.isNotFound) return { id: "" };
    throw error;
  }
}

export async function update(
  id: string,
  olds: ServerOutputs,
  news: ServerInputs,
): Promise<{ outs: ServerOutputs }> {
  // Only provider-only knobs reach update (every spec change replaces). A server recorded as
  // partially created (not yet ready) is waited for again; a ready one needs no API call.
  if (news.waitForReady !== false && !isReady(olds)) {
    const client = providerClient();
    const server = await client.getServer(news.gameId, news.environmentId, id);
    return { outs: serverOutputs(news, await waitUntilReady(client, news, server)) };
  }
  const { serverId, createdAt, startedAt, destroyedAt, ports, endpoints } = olds;
  return {
    outs: {
      ...news,
      serverId,
      createdAt,
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(destroyedAt !== undefined ? { destroyedAt } : {}),
      ports,
      endpoints,
    },
  };
}

/** Whether recorded outputs describe a placed server with every port addressed. */
function isReady(outputs: ServerOutputs): boolean {
  const ports = Object.values(outputs.ports ?? {});
  return (
    outputs.startedAt !== undefined &&
    ports.every((p) => p.publicHostname !== undefined && p.publicPort !== undefined)
  );
}

export async function deleteServer(id: string, props: ServerOutputs): Promise<void> {
  const client = providerClient();
  const query =
    props.destroyKillTimeout !== undefined ? { override_kill_timeout: props.destroyKillTimeout } : {};
  try {
    await client.deleteServer(props.gameId, props.environmentId, id, query);
  } catch (error) {
    // Already gone is the outcome delete wants.
    if (error instanceof GamehostApiError && error.isNotFound) return;
    throw error;
  }
}

export { deleteServer as delete };
