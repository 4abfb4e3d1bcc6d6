/**
 * What a create names on the service and the service checks only when it is sent: a build of the environment
 * and a datacenter of the game's cluster. Asked before anything changes, where a refused create would come
 * after a delete (a fleet's rollout batch, a replacement with `deleteBeforeReplace`).
 */
import type { RequestOptions } from "../api/client";
import { GamehostValidationError } from "../api/errors";
import { canonicalUuid } from "../api/schemas";
import type { OperationContext } from "./kind";

const callOptions = (ctx: OperationContext): RequestOptions => (ctx.signal ? { signal: ctx.signal } : {});

/** Whether two ids name one thing: UUIDs in any of their spellings, other ids as written. */
const sameId = (a: string, b: string) => (canonicalUuid(a) ?? a) === (canonicalUuid(b) ?? b);

/** The game environment a create goes to. */
export interface CreateScope {
  gameId: string;
  environmentId: string;
}

/** Where a missing target is reported: the checked value's name and the input path naming it. */
export interface TargetField {
  /** What was checked, e.g. `template of a Fleet`. */
  where: string;
  /** The input's path, e.g. `runtime.build`. */
  path: string;
}

/**
 * Fails, naming `field.path`, when the environment has no build `build`; `consequence` ends the message
 * (what did not happen, what would have).
 */
export async function requireBuild(
  ctx: OperationContext,
  scope: CreateScope,
  build: string,
  field: TargetField,
  consequence = "nothing was changed",
): Promise<void> {
  const builds = await ctx.client().listBuilds(scope.gameId, scope.environmentId, {}, callOptions(ctx));
  if (builds.some((b) => sameId(b.id, build))) return;
  throw new GamehostValidationError(field.where, [
    {
      path: field.path,
      message: `${build} is not a build of environment ${scope.environmentId}: give one of its builds (getBuilds lists them); ${consequence}`,
    },
  ]);
}

/** Fails, naming `field.path`, when the game's cluster has no datacenter of id `datacenter`. */
export async function requireDatacenter(
  ctx: OperationContext,
  scope: CreateScope,
  datacenter: string,
  field: TargetField,
  consequence = "nothing was changed",
): Promise<void> {
  const known = await ctx.client().listDatacenters(scope.gameId, scope.environmentId, callOptions(ctx));
  if (known.some((d) => sameId(d.id, datacenter))) return;
  throw new GamehostValidationError(field.where, [
    {
      path: field.path,
      message: `${datacenter} is not a datacenter of the game's cluster: give the id of one of ${known.map((d) => `${d.slug} (${d.id})`).join(", ")} (getDatacenters lists them); ${consequence}`,
    },
  ]);
}

/**
 * Asks the lookups side by side (one round trip) and, once every one has answered, fails with the first
 * refusal in the order given, so the message does not depend on which answer came first. `undefined`: a
 * lookup not asked (a value a preview does not know yet).
 */
export async function askTogether(lookups: readonly (Promise<unknown> | undefined)[]): Promise<void> {
  const asked = await Promise.allSettled(lookups);
  for (const answer of asked) if (answer.status === "rejected") throw answer.reason;
}
