/**
 * The Server kind: one implementation of a dynamic game server's lifecycle, used by the dynamic shim
 * (`src/dynamic/generated/host/`) and by the provider plugin.
 */
import type { GamehostClient, RequestOptions } from "../../api/client";
import {
  ERROR_CODES,
  GamehostApiError,
  GamehostError,
  GamehostNetworkError,
  GamehostRetryAfterError,
  requestOf,
} from "../../api/errors";
import { backoffDelay, DEFAULT_RETRY_POLICY } from "../../api/retry";
import { CreateServerRequest, canonicalUuid, type Server, ServerScope } from "../../api/schemas";
import { retryAfterWait, sleep } from "../../api/wait";
import { containsUnknown, UNKNOWN } from "../checks";
import { omit, pickDefined } from "../fields";
import { scopedImportId } from "../importId";
import { type DiffResult, defineKind, type OperationContext, PartialCreateError } from "../kind";
import { digest } from "../replacementCheck";
import { askTogether, requireBuild, requireDatacenter } from "../serviceTargets";
import { serverListing } from "./listing";
import {
  canonicalSpec,
  changedSpecFields,
  checkServerInputs,
  DEFAULT_READY_TIMEOUT_SECONDS,
  destroyedAtText,
  ENVIRONMENT_PATH,
  IDEMPOTENCY_TAG,
  isIdempotencyKey,
  isLegacyIdempotencyKey,
  KNOB_FIELDS,
  missingForReady,
  newIdempotencyKey,
  OUTPUT_ONLY_FIELDS,
  outputsAreReady,
  ServerComputedOutputs,
  type ServerInputs,
  ServerKnobs,
  type ServerOutputs,
  serverOutputs,
  specOfServer,
  wireBody,
} from "./spec";
import { FLEET_TAG } from "./tags";

/** Attempts at a create whose outcome was ambiguous or rate limited, before giving up. */
const CREATE_ATTEMPTS = 5;

/** Waits between create attempts: the client's backoff, from 250 ms up to 5 s. */
const CREATE_BACKOFF = { ...DEFAULT_RETRY_POLICY, minDelayMs: 250, maxDelayMs: 5_000 };
const backoffMs = (attempt: number) => backoffDelay(CREATE_BACKOFF, attempt + 1);

const callOptions = (ctx: OperationContext): RequestOptions => (ctx.signal ? { signal: ctx.signal } : {});

/**
 * The `adoptServerId`s that resources already in the state name, as their checks with olds have shown in
 * this process (one provider process serves one engine run). The engine checks a replacement without olds,
 * as a new resource: its create would adopt the very server it replaces (the spec matches, or `--replace`
 * and `replacementTrigger` change none), and the engine would then delete that server as the original,
 * leaving the state tracking a destroyed server; with `deleteBeforeReplace` the adoption fails after the
 * delete. A second resource naming the server would give it two owners.
 */
const adoptedByRecorded = new Set<string>();

/**
 * The servers a create of this run (one provider process serves one engine run) adopts or adopted with
 * `adoptServerId`, by canonical id. A delete of one of them is the engine deleting the original a
 * replacement adopted again (`pulumi up --replace`, whose check has no olds and which calls no diff, so
 * check cannot refuse it), or a renamed resource's old self: the state now tracks that server under the new
 * resource, so it stays. A second create naming one of them would be a second owner, and is refused.
 */
const adoptedThisRun = new Set<string>();
const adoptionKey = (serverId: string) => canonicalUuid(serverId) ?? serverId;

/**
 * The servers resources of the state hold, as their diffs have shown in this process (by canonical id), each
 * with digests of the records (outputs) holding it: an imported record has the key of the server's tag, the
 * key of the resource that created it, so keys cannot tell the two apart. An
 * `adoptServerId` naming one would give it a second owner (a block copied with it, in a later `up`), and
 * removing either resource from the program would delete it under the other. The check refuses it when the
 * holder's diff came first (it was declared first); the create, before and after its lookup, otherwise. A
 * second owner made all the same (the engine does not order the two) is harmless when removed: the engine
 * deletes removed resources after every resource of the program was diffed, and a delete of a server
 * another resource still holds leaves it running.
 */
const heldByRecorded = new Map<string, Set<string>>();

/** The failure of an adoption of a server a resource of the state holds, else undefined. */
function heldFailure(serverId: string): GamehostError | undefined {
  if (!heldByRecorded.has(adoptionKey(serverId))) return undefined;
  return new GamehostError(`adoptServerId ${serverId}: ${HELD_REASON}`);
}

/** Why two owners of one server lose it, and what to do: every refusal of a second owner says it. */
const UNDER_THE_OTHER = "removing either from the program would delete it under the other";
const KEEP_ONE = "Keep adoptServerId on one resource only.";

const HELD_REASON = `that server is already managed by another resource of this stack: a second resource adopting it would give it two owners, and ${UNDER_THE_OTHER}. ${KEEP_ONE}`;

/**
 * Claims `serverId` for this run's one adopting create, before its first request (creates run side by
 * side), or fails: two resources of one stack adopting one server would both own it, and removing either
 * from the program would delete it under the other.
 */
function claimAdoption(serverId: string): string {
  const key = adoptionKey(serverId);
  if (adoptedThisRun.has(key)) {
    throw new GamehostError(
      `adoptServerId ${serverId}: another resource of this stack adopts that server in this same update: two resources would own one server, and ${UNDER_THE_OTHER}. ${KEEP_ONE}`,
    );
  }
  adoptedThisRun.add(key);
  return key;
}

/** The failure of a check that would adopt a server a recorded resource adopted, else undefined. */
function refusedReadoption(
  olds: Partial<ServerInputs>,
  adoptServerId: unknown,
): { property: string; reason: string } | undefined {
  if (typeof adoptServerId !== "string" || adoptServerId === UNKNOWN) return undefined;
  if (olds.idempotencyKey !== undefined) {
    if (olds.adoptServerId === adoptServerId) adoptedByRecorded.add(adoptServerId);
    return undefined;
  }
  if (!adoptedByRecorded.has(adoptServerId)) {
    if (heldByRecorded.has(adoptionKey(adoptServerId)))
      return { property: "adoptServerId", reason: HELD_REASON };
    return undefined;
  }
  return {
    property: "adoptServerId",
    reason:
      `server ${adoptServerId} is already managed by a resource of this stack that adopted it: adopting it again (to replace that resource, ` +
      "or by a second resource) would have the engine delete it as the replaced server, or give it two owners. The adoption is done: " +
      "remove adoptServerId from the program (the server stays managed), then replace the resource if you meant to.",
  };
}

/**
 * Whether a server whose delete the engine cancelled is destroyed all the same: a DELETE in flight when
 * the cancel came may have been done by the service. Failing such a delete kept a server the service had
 * destroyed in the state (a cut-short 100-server destroy left 2, which `gamehost drift` then reported as
 * destroyed out of band). One GET, not cancelled (the cancel already came): bounded by the client's
 * timeouts. Any failure of it leaves the delete failed, as before.
 */
async function destroyedDespiteCancel(
  ctx: OperationContext,
  outputs: ServerOutputs,
  id: string,
): Promise<boolean> {
  try {
    const server = await ctx.client().getServer(outputs.gameId, outputs.environmentId, id);
    return server.destroyed_at !== undefined;
  } catch (error) {
    return isServerGone(error);
  }
}

/**
 * Whether a not-found answer about a recorded server means the server is gone: only the server's own code
 * says so. Its game or environment unknown means the service answering is not the one that made it (a
 * `gamehost:baseUrl`, with a token valid there, of another deployment: set on the wrong stack, say);
 * counted as gone, a refresh dropped every server from the state and a destroy reported them deleted,
 * while they ran on where they were made, in no state.
 */
function isServerGone(error: unknown): error is GamehostApiError {
  return error instanceof GamehostApiError && error.code === ERROR_CODES.serverNotFound;
}

/**
 * `error` restated, when the service answering does not have the game or environment recorded servers were
 * made in: which service that is, that they are not counted as gone, and what to do. `made`: what was made,
 * as the sentence's subject (`Server <id> was`, `The servers of Fleet <id> were`). Any other error unchanged.
 */
export function notThisService(
  ctx: OperationContext,
  error: unknown,
  made: string,
  scope: { gameId: string; environmentId: string },
): unknown {
  if (!(error instanceof GamehostApiError) || !error.isNotFound || error.code === ERROR_CODES.serverNotFound)
    return error;
  const where =
    error.code === ERROR_CODES.environmentNotFound
      ? `environment ${scope.environmentId} of game ${scope.gameId}`
      : `game ${scope.gameId}`;
  error.restate(
    `${made} made in ${where}, which the service at ${ctx.client().baseUrl} does not have: not counted as gone. ` +
      "The stack's gamehost:baseUrl (or gamehost:token) names another service than the one that made them " +
      "(`pulumi refresh` and `pulumi destroy` use the settings of the last `pulumi up`, or with --run-program the stack's): " +
      "point them at that service; or delete the servers there yourself (for a game or environment deleted with its servers, nothing), " +
      "then remove the resource with `pulumi state delete <urn>`.",
  );
  return error;
}

/**
 * A create whose outcome nobody told us: the answer was lost (a reset or timeout after sending), the
 * service's own time cap cut the request off (500 `API_REQUEST_TIMEOUT`: it ran, the answer says nothing
 * of how far), or a gateway answered in the service's stead that it got no answer (502 or 504 without
 * the service's error body). Only then may the POST have made a server that a lookup by key adopts.
 */
function isAmbiguous(error: unknown): boolean {
  if (error instanceof GamehostNetworkError) return error.mayHaveCommitted;
  if (!(error instanceof GamehostApiError)) return false;
  if (error.code === ERROR_CODES.requestTimeout) return true;
  return (error.status === 502 || error.status === 504) && !error.fromService;
}

/**
 * A create refused before anything was made, so it is posted again without a lookup: a request that never
 * left, a 429 (the service did not accept it), or the emulator's 503 `EMULATOR_STATE_NOT_SAVED` (it made no
 * change it could not write).
 */
function keptNothing(error: unknown): boolean {
  if (error instanceof GamehostNetworkError) return !error.mayHaveCommitted;
  return (
    error instanceof GamehostApiError && (error.status === 429 || error.code === ERROR_CODES.stateNotSaved)
  );
}

/**
 * A create the service answered with a 5xx of its own (`ERROR` is "any internal error"): it failed, but
 * nothing says the server was not made first. What carries the create's key is deleted, never adopted
 * (issue 28 §1), and the create posts again.
 */
function failedMaybeKept(error: unknown): error is GamehostApiError {
  return error instanceof GamehostApiError && error.status >= 500 && !keptNothing(error);
}

/** Lookups that try to learn what an ambiguous or failed POST did, before the create gives up. */
const CONFIRM_ATTEMPTS = 4;

/**
 * The live servers carrying this create's key, or an error saying how to recover when no lookup could
 * tell. Lookups back off like create attempts.
 */
async function lookUpByKey(client: GamehostClient, inputs: ServerInputs, attempt: number): Promise<Server[]> {
  let lookupError: unknown;
  for (let lookup = 0; lookup < CONFIRM_ATTEMPTS; lookup++) {
    // Not cut short by a cancel: these few bounded lookups are all that can tell which server exists.
    await sleep(backoffMs(attempt + lookup));
    try {
      return await client.listServers(inputs.gameId, inputs.environmentId, {
        tags: { [IDEMPOTENCY_TAG]: inputs.idempotencyKey },
      });
    } catch (error) {
      lookupError = error;
    }
  }
  const reason = lookupError instanceof Error ? lookupError.message : String(lookupError);
  throw new GamehostError(
    `The service may have created this server, but looking it up failed: ${reason} ` +
      `Before the next \`pulumi up\` (which would make another server), list the environment's servers tagged ` +
      `${IDEMPOTENCY_TAG}=${inputs.idempotencyKey}: adopt the one found with adoptServerId (or \`pulumi import\`), or delete it.`,
  );
}

/**
 * After an ambiguous POST: the server this create made, or `null` if a lookup proved it made none. Two live
 * servers with one key can only come from a service that committed a create twice: the newest is kept, the
 * rest deleted, so the stack never pays for a duplicate.
 */
async function confirmCreate(
  client: GamehostClient,
  inputs: ServerInputs,
  attempt: number,
): Promise<Server | null> {
  const [newest, ...extra] = await lookUpByKey(client, inputs, attempt);
  for (const dup of extra) await client.deleteServer(inputs.gameId, inputs.environmentId, dup.id);
  return newest ?? null;
}

/** After a POST the service answered with `failure`: deletes whatever it made anyway, adopting nothing. */
async function discardKept(
  client: GamehostClient,
  inputs: ServerInputs,
  failure: GamehostApiError,
): Promise<void> {
  // The service answered, so whatever it made is made: the lookups need not wait longer on later attempts.
  for (const kept of await lookUpByKey(client, inputs, 0)) {
    await client.deleteServer(inputs.gameId, inputs.environmentId, kept.id).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new GamehostError(
        `The service answered the create with ${failure.status} ${failure.code} yet kept server ${kept.id}, ` +
          `and deleting it failed: ${reason} Delete it (or adopt it with adoptServerId) before the next \`pulumi up\`.`,
      );
    });
  }
}

/**
 * POST with the reserved tag; on a lost or ambiguous answer, adopt what that POST made (found by this
 * create's key) or try again; on a 5xx, delete what it made anyway and try again. The key is this create's
 * own, so nothing else is ever adopted or deleted.
 */
async function createOnce(ctx: OperationContext, inputs: ServerInputs): Promise<Server> {
  const client = ctx.client();
  const body = wireBody(inputs) as CreateServerRequest;
  body.tags = { ...body.tags, [IDEMPOTENCY_TAG]: inputs.idempotencyKey };
  let lastError: unknown;
  for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
    // A cancel stops a create that has posted nothing yet: no server exists.
    ctx.signal?.throwIfAborted();
    try {
      // A POST once sent is not aborted by a cancel (the client's own timeouts bound it): the service may
      // commit it anyway, and its answer is the only record of the server. An aborted POST left a server that
      // no state held, and the next `up` made another (a duplicate).
      return await client.createServer(inputs.gameId, inputs.environmentId, body);
    } catch (error) {
      lastError = error;
      // Posting again cannot get past a refused certificate or a scheme the server does not speak.
      if (error instanceof GamehostNetworkError && error.permanent) throw error;
      if (isAmbiguous(error)) {
        const made = await confirmCreate(client, inputs, attempt);
        if (made) return made;
      } else if (keptNothing(error) || failedMaybeKept(error)) {
        if (failedMaybeKept(error)) await discardKept(client, inputs, error);
        // A 429 names when to come back; a wait that cannot fit the operation fails now, saying until when.
        const wait = retryAfterWait({
          what: `the create of a server in environment ${inputs.environmentId}`,
          retryAt: error instanceof GamehostApiError ? error.retryAfterMs : undefined,
          fallbackMs: backoffMs(attempt),
          deadline: ctx.deadline,
          // The plugin face waits as long as the resource's customTimeouts allow, given or not (60 s
          // without); the dynamic face has none to raise.
          ...(ctx.deadline !== undefined || !ctx.boundDownloads
            ? { raise: "the customTimeouts of the resource" }
            : {}),
        });
        if (wait.error) {
          // The refusal's own request, status, code and ray id, as every other refusal of the service
          // ends: without them a 429 read as some other refusal, and support needs the ray id.
          const request = error instanceof Error ? requestOf(error.message) : "";
          if (request === "") throw wait.error;
          throw new GamehostRetryAfterError(`${wait.error.message}${request}`, wait.error.until, {
            cause: error,
          });
        }
        await sleep(wait.waitMs, ctx.signal);
      } else {
        throw error;
      }
    }
  }
  throw lastError;
}

/**
 * A differing field's live value, for adopt's error. The runtime's environment goes by the names of the
 * variables that differ: its values are where a stack keeps its secrets (the live server's, another stack's,
 * and the declared ones, secrets the dynamic host hands over in clear), and the error is printed and kept
 * in the update's history.
 */
function liveDetail(
  field: string,
  value: unknown,
  live: Partial<ServerInputs>,
  declared: ServerInputs,
): string {
  if (field !== "runtime") return `${field}: live ${JSON.stringify(value)}`;
  const { environment: _values, ...rest } = value as Record<string, unknown>;
  const liveEnv = live.runtime?.environment ?? {};
  const declaredEnv = declared.runtime?.environment ?? {};
  const names = [...new Set([...Object.keys(liveEnv), ...Object.keys(declaredEnv)])]
    .filter((name) => liveEnv[name] !== declaredEnv[name])
    .sort();
  const environment =
    names.length === 0
      ? ""
      : `; its environment differs in ${names.join(", ")} (values not shown: they may be secrets)`;
  return `runtime: live ${JSON.stringify(rest)}${environment}`;
}

async function adopt(ctx: OperationContext, inputs: ServerInputs, serverId: string): Promise<Server> {
  let server: Server;
  try {
    server = await ctx.client().getServer(inputs.gameId, inputs.environmentId, serverId, callOptions(ctx));
  } catch (error) {
    // The id the user wrote is adoptServerId's: say so, and that another environment's or game's server
    // is not found here. The same error (class, code, ray id) with the field named first.
    if (error instanceof GamehostApiError && error.code === ERROR_CODES.serverNotFound) {
      error.restate(
        `adoptServerId ${serverId}: no such server in environment ${inputs.environmentId} of game ${inputs.gameId} ` +
          "(a server of another environment or game cannot be adopted here): check the id, or drop adoptServerId to create a new server.",
      );
    }
    throw error;
  }
  if (server.destroyed_at !== undefined) {
    throw new GamehostError(
      `adoptServerId ${serverId}: the server was destroyed at ${new Date(server.destroyed_at).toISOString()}: drop adoptServerId to create a new server.`,
    );
  }
  const live = specOfServer(server, inputs.gameId);
  const wanted = changedSpecFields(live, inputs);
  if (wanted.length > 0) {
    const canonical = canonicalSpec(live);
    const details = wanted.map((f) => liveDetail(f, canonical[f], live, inputs)).join("; ");
    throw new GamehostError(
      `adoptServerId ${serverId}: the server does not match the declared spec in ${wanted.join(", ")} (${details}). Declare the server as it is, or drop adoptServerId to create a new one.`,
    );
  }
  return server;
}

/**
 * Where waiting for readiness ends: `readyTimeoutSeconds` from now, or the engine's own timeout if sooner;
 * `after` and `raise` say which, for the error (a Server's and a Fleet's).
 */
export function readyDeadline(
  ctx: OperationContext,
  readyTimeoutSeconds: number | undefined,
): { at: number; after: string; raise: string } {
  const seconds = readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS;
  const own = Date.now() + seconds * 1000;
  if (ctx.deadline !== undefined && ctx.deadline < own) {
    const left = Math.max(0, Math.round((ctx.deadline - Date.now()) / 1000));
    return { at: ctx.deadline, after: `after ${left}s`, raise: "the customTimeouts of the resource" };
  }
  return { at: own, after: `after ${seconds}s`, raise: "readyTimeoutSeconds" };
}

/**
 * What to do about a recorded server that is gone before it was ready. Waiting again (a plain `up`) would
 * meet the same gone server forever; a refresh drops it from the state, and the same run's `up` creates it.
 */
const GONE_FIX =
  "run `pulumi up --refresh`: its refresh drops the server from the stack, and its up creates a new one";

/**
 * The message for a server the service answers not-found while it is waited for (deleted out of band, or
 * lost with the service's data, as an emulator restarted without `--state`), or undefined for another error.
 */
function goneBeforeReady(error: unknown, serverId: string): string | undefined {
  if (!isServerGone(error)) return undefined;
  return (
    `Server ${serverId} was created, but the service no longer knows it (deleted out of band, or the service lost it) ` +
    `and it was never ready. It is recorded in the stack; ${GONE_FIX}. ${error.exchange}`
  );
}

async function waitUntilReady(ctx: OperationContext, inputs: ServerInputs, created: Server): Promise<Server> {
  const deadline = readyDeadline(ctx, inputs.readyTimeoutSeconds);
  let server = created;
  for (let attempt = 0; ; attempt++) {
    const missing = missingForReady(server);
    if (server.destroyed_at !== undefined) {
      throw new PartialCreateError(
        `Server ${server.id} stopped before it was ready (${destroyedAtText(server.destroyed_at)}). It is recorded in the stack; ` +
          `fix the spec if it cannot start (a spec change replaces the server), or ${GONE_FIX}.`,
        server.id,
        { ...serverOutputs(inputs, server) },
      );
    }
    if (missing.length === 0) return server;
    const remaining = deadline.at - Date.now();
    if (remaining <= 0) {
      throw new PartialCreateError(
        `Server ${server.id} was created but was not ready ${deadline.after}: still missing ${missing.join(", ")}. ` +
          `It is recorded in the stack; run \`pulumi up\` again to keep waiting, or raise ${deadline.raise}.`,
        server.id,
        { ...serverOutputs(inputs, server) },
      );
    }
    try {
      await sleep(Math.min(remaining, Math.min(2_000, 100 * 1.5 ** attempt)), ctx.signal);
      server = await ctx.client().getServer(inputs.gameId, inputs.environmentId, server.id, callOptions(ctx));
    } catch (error) {
      // The server exists: a failed readiness check must not make the create look failed, or the stack
      // would lose the server (no later create adopts it: each create has a key of its own).
      const reason = error instanceof Error ? error.message : String(error);
      throw new PartialCreateError(
        goneBeforeReady(error, server.id) ??
          `Server ${server.id} was created, but checking whether it is ready failed: ${reason} ` +
            "It is recorded in the stack; run `pulumi up` again to keep waiting.",
        server.id,
        { ...serverOutputs(inputs, server) },
      );
    }
  }
}

/** The inputs recorded in outputs (outputs echo every input). */
function inputsOf(outputs: ServerOutputs): ServerInputs {
  return omit(outputs, OUTPUT_ONLY_FIELDS);
}

const IMPORT_ID_RULE =
  "must be <gameId>/<environmentId>/<serverId> (the server's GET path needs all three), e.g. `pulumi import gamehost:index:Server match <gameId>/<environmentId>/<serverId>`; TypeScript's `gamehost.native.Server.get` may instead pass the server's UUID with gameId and environmentId in its state";

/** The ids of an import id `<gameId>/<environmentId>/<serverId>`, canonical. */
function parseImportId(id: string): { gameId: string; environmentId: string; serverId: string } {
  const [gameId, environmentId, serverId] = scopedImportId(
    id,
    "id of a Server (for `pulumi import` or `Server.get`)",
    IMPORT_ID_RULE,
  );
  return { gameId, environmentId, serverId };
}

/**
 * The build and datacenter of a replacement's create, asked together (one round trip): values not known yet
 * (a preview's) are not asked about.
 */
async function checkReplacementTargets(ctx: OperationContext, news: ServerInputs): Promise<void> {
  if (containsUnknown(news.gameId) || containsUnknown(news.environmentId)) return;
  const where = "replacement of a Server";
  const consequence = "nothing was changed, and the server it would replace keeps running";
  // A preview may not know a whole object yet (`runtime` from another resource's output), not just a value.
  const build: unknown = (news.runtime as Partial<ServerInputs["runtime"]> | undefined)?.build;
  const known = (value: unknown): value is string => typeof value === "string" && !containsUnknown(value);
  await askTogether([
    known(build) ? requireBuild(ctx, news, build, { where, path: "runtime.build" }, consequence) : undefined,
    known(news.datacenter)
      ? requireDatacenter(ctx, news, news.datacenter, { where, path: "datacenter" }, consequence)
      : undefined,
  ]);
}

function detailed(keys: readonly string[], replaces: readonly string[]): DiffResult["detailedDiff"] {
  return Object.fromEntries(keys.map((k) => [k, replaces.includes(k) ? "update-replace" : "update"]));
}

/** The Server kind. */
export const serverKind = defineKind<ServerInputs, ServerOutputs>({
  name: "Server",
  description:
    "A game server, allocated on demand in a datacenter of the game's cluster. Servers are immutable: any change to the spec creates a new server before deleting the old one. Create waits until the server is placed and every port has a public address.",
  hostSubpath: "server",
  updatedInPlace: KNOB_FIELDS,
  inputs: [ServerScope, CreateServerRequest, ServerKnobs],
  computed: ServerComputedOutputs,
  secretWhenUnrecorded: [ENVIRONMENT_PATH],
  listing: serverListing,

  check(olds, news, ctx) {
    const failures = checkServerInputs(news);
    const adopting = refusedReadoption(olds, news.adoptServerId);
    if (adopting !== undefined) failures.push(adopting);
    const { resourceScope: _legacyScope, ...inputs } = news;
    // An update keeps its server's key. A new resource, and every replacement (checked without olds),
    // gets a fresh random one: a key derived from the spec made a replacement adopt the very server it
    // replaces, which the engine then deleted, and let a guess be checked against secret inputs.
    inputs.idempotencyKey = isIdempotencyKey(olds.idempotencyKey)
      ? olds.idempotencyKey
      : newIdempotencyKey(ctx);
    // With failures the engine shows them and never runs the kind on these inputs.
    return { inputs: inputs as ServerInputs, failures };
  },

  diff(id, olds, news) {
    // This resource holds server `id`; a create of this run that adopted it made a second owner (declared
    // before this one, so neither its check nor its create knew): fail loudly, before anything else.
    const held = adoptionKey(id);
    if (adoptedThisRun.has(held))
      throw new GamehostError(
        `Server ${id} is managed by this resource, and another resource of this stack adopted it (adoptServerId) in this update: it now has two owners, and ${UNDER_THE_OTHER}. Run \`pulumi state delete <urn of the other resource>\` (that keeps the server), then remove its adoptServerId from the program.`,
      );
    const holders = heldByRecorded.get(held) ?? new Set<string>();
    holders.add(digest(olds));
    heldByRecorded.set(held, holders);
    const replaces: string[] = changedSpecFields(olds, news);
    if (news.adoptServerId !== undefined && news.adoptServerId !== olds.serverId)
      replaces.push("adoptServerId");
    const knobsChanged: string[] = KNOB_FIELDS.filter(
      (k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]),
    );
    // A key of an older version is a hash of the spec, secrets included: an update (no API call) replaces
    // it in the state once check has given a new one. A refresh diffs the recorded key against itself: no
    // change there, or every server of an upgraded stack reads as drift. Any other key difference is not a
    // change (an import records the server's tag).
    if (isLegacyIdempotencyKey(olds.idempotencyKey) && news.idempotencyKey !== olds.idempotencyKey)
      knobsChanged.push("idempotencyKey");
    const diffs = [...replaces, ...knobsChanged];
    // A recorded server that is not ready yet (a partial create) gets an update, which waits for it. The
    // engine's own marker for that (init errors) does not survive a refresh, so the state itself decides.
    const awaitingReady = news.waitForReady !== false && !outputsAreReady(olds);
    return {
      changes: diffs.length > 0 || awaitingReady,
      replaces,
      diffs,
      detailedDiff: detailed(diffs, replaces),
      deleteBeforeReplace: false,
    };
  },

  keptByReplacement(id, news) {
    return news.adoptServerId !== undefined && adoptionKey(news.adoptServerId) === adoptionKey(id);
  },

  async checkReplacement(ctx, news) {
    // An adopting replacement creates nothing: the server it takes over is running already.
    if (news.adoptServerId === undefined) await checkReplacementTargets(ctx, news);
  },

  async create(ctx, inputs) {
    let server: Server;
    if (inputs.adoptServerId !== undefined) {
      const held = heldFailure(inputs.adoptServerId);
      if (held) throw held;
      const claimed = claimAdoption(inputs.adoptServerId);
      try {
        server = await adopt(ctx, inputs, inputs.adoptServerId);
        // The holder's diff may have come while the server was looked up.
        const heldMeanwhile = heldFailure(inputs.adoptServerId);
        if (heldMeanwhile) throw heldMeanwhile;
      } catch (error) {
        adoptedThisRun.delete(claimed);
        throw error;
      }
    } else server = await createOnce(ctx, inputs);
    if (inputs.waitForReady !== false) server = await waitUntilReady(ctx, inputs, server);
    return { id: server.id, outputs: serverOutputs(inputs, server) };
  },

  async read(ctx, id, recorded) {
    // A refresh has the server's recorded state; an import or `get` has only where to look: the id, or a
    // UUID with gameId and environmentId given as state.
    const lookup = recorded?.outputs.serverId === undefined;
    const scope = recorded?.outputs;
    const where =
      scope?.gameId !== undefined && scope.environmentId !== undefined && !id.includes("/")
        ? { gameId: scope.gameId, environmentId: scope.environmentId, serverId: id }
        : parseImportId(id);
    let server: Server;
    try {
      server = await ctx
        .client()
        .getServer(where.gameId, where.environmentId, where.serverId, callOptions(ctx));
    } catch (error) {
      // Only the service's own not-found code for the server means it is gone: a 404 is a wrong route, and
      // an unknown game or environment another service (see isServerGone).
      if (isServerGone(error)) return undefined;
      throw recorded && !lookup ? notThisService(ctx, error, `Server ${id} was`, recorded.outputs) : error;
    }
    if (server.destroyed_at !== undefined) return undefined;
    if (recorded && !lookup) {
      return {
        id: server.id,
        outputs: serverOutputs(inputsOf(recorded.outputs), server),
        inputs: recorded.inputs,
      };
    }
    // A lookup (an import, a `get`) of a fleet's server: as a Server it would have two owners, the importing
    // stack deleting it under its fleet, the fleet counting or replacing it under the Server.
    const fleetKey = server.tags[FLEET_TAG];
    if (fleetKey !== undefined) {
      throw new GamehostError(
        `Server ${server.id} is a server of a Fleet (tag ${FLEET_TAG}: ${fleetKey}), which manages it: take over or read the fleet instead, ` +
          `\`pulumi import gamehost:index:Fleet <name> ${where.gameId}/${where.environmentId}/${fleetKey}\` (or \`gamehost adopt\`), or Fleet.get with that id.`,
      );
    }
    // A lookup: the inputs a program declaring this server as it is would have after its checks.
    const spec = specOfServer(server, where.gameId) as ServerInputs;
    const inputs: ServerInputs = { ...spec, idempotencyKey: server.tags[IDEMPOTENCY_TAG] ?? "" };
    return { id: server.id, outputs: serverOutputs(inputs, server), inputs };
  },

  async update(ctx, id, olds, news) {
    // Only provider-only knobs reach update (every spec change replaces). A server recorded as
    // partially created (not yet ready) is waited for again; a ready one needs no API call.
    if (news.waitForReady !== false && !outputsAreReady(olds)) {
      let server: Server;
      try {
        server = await ctx.client().getServer(news.gameId, news.environmentId, id, callOptions(ctx));
      } catch (error) {
        // The same error (class, code, ray id), saying what happened and what to run.
        const gone = goneBeforeReady(error, id);
        if (gone !== undefined && error instanceof Error) error.message = gone;
        throw error;
      }
      return serverOutputs(news, await waitUntilReady(ctx, news, server));
    }
    return { ...news, ...pickDefined(olds, OUTPUT_ONLY_FIELDS) } as ServerOutputs;
  },

  async delete(ctx, id, outputs) {
    // Adopted by a create of this run: the resource that adopted it holds it now (see adoptedThisRun).
    if (adoptedThisRun.has(adoptionKey(id))) return;
    // Held by another resource still in the program (a second owner, removed or replaced): it keeps it.
    const holders = heldByRecorded.get(adoptionKey(id));
    if (holders && [...holders].some((record) => record !== digest(outputs))) return;
    const query =
      outputs.destroyKillTimeout !== undefined ? { override_kill_timeout: outputs.destroyKillTimeout } : {};
    try {
      await ctx.client().deleteServer(outputs.gameId, outputs.environmentId, id, query, callOptions(ctx));
    } catch (error) {
      // Already gone is the outcome delete wants; a wrong route (404) is not "gone", nor is an unknown game
      // or environment (see isServerGone).
      if (isServerGone(error)) return;
      if (ctx.signal?.aborted && (await destroyedDespiteCancel(ctx, outputs, id))) return;
      throw notThisService(ctx, error, `Server ${id} was`, outputs);
    }
  },
});
