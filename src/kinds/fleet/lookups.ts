/** What a fleet asks the service before it changes anything: its live servers by tag, its datacenters' ids. */
import type { RequestOptions } from "../../api/client";
import { GamehostValidationError } from "../../api/errors";
import { canonicalUuid, type Server, Uuid } from "../../api/schemas";
import type { OperationContext } from "../kind";
import { FLEET_TAG } from "../server/tags";
import { requireBuild } from "../serviceTargets";
import { type FleetInputs, isUuid } from "./spec";

const callOptions = (ctx: OperationContext): RequestOptions => (ctx.signal ? { signal: ctx.signal } : {});

/** The fleet's live servers, by the fleet's tag: one request, however many servers. */
export async function liveMembers(
  ctx: OperationContext,
  fleet: Pick<FleetInputs, "gameId" | "environmentId" | "fleetKey">,
): Promise<Server[]> {
  return ctx
    .client()
    .listServers(
      fleet.gameId,
      fleet.environmentId,
      { tags: { [FLEET_TAG]: fleet.fleetKey } },
      callOptions(ctx),
    );
}

/**
 * Datacenter ids of the keys of `datacenters`, slugs and UUIDs alike checked against the cluster's datacenters
 * (one request). A UUID is checked too: one mistyped in place of the right one would empty the datacenter its
 * old key named (a removed key) while the service refused the new key's creates.
 */
export async function datacenterIds(
  ctx: OperationContext,
  fleet: FleetInputs,
): Promise<Record<string, string>> {
  const keys = Object.keys(fleet.datacenters);
  const ids: Record<string, string> = {};
  const known =
    keys.length > 0
      ? await ctx.client().listDatacenters(fleet.gameId, fleet.environmentId, callOptions(ctx))
      : [];
  const missing: { path: string; message: string }[] = [];
  for (const key of keys) {
    const id = isUuid(key) ? Uuid.parse(key) : undefined;
    // `id` is canonical (Uuid's parse): the service's ids are compared in the same form.
    const found = known.find((d) => (id === undefined ? d.slug === key : canonicalUuid(d.id) === id));
    if (found) ids[key] = id ?? found.id;
    else
      missing.push({
        path: `datacenters.${key}`,
        message: `is not a datacenter of the game's cluster: give a datacenter UUID or one of the slugs ${known.map((d) => d.slug).join(", ")}`,
      });
  }
  // A slug and an id (or two spellings of one id) naming one datacenter would be two groups of servers there,
  // and which recorded group each key took over would depend on the order of the state's keys.
  const keysOf = new Map<string, string[]>();
  for (const [key, id] of Object.entries(ids)) keysOf.set(id, [...(keysOf.get(id) ?? []), key]);
  for (const [id, named] of keysOf) {
    for (const key of named.slice(1)) {
      missing.push({
        path: `datacenters.${key}`,
        message: `names the same datacenter as datacenters.${named[0]} (${id}): give each datacenter once, with its count`,
      });
    }
  }
  if (missing.length > 0) throw new GamehostValidationError("datacenters of a Fleet", missing);
  return ids;
}

/**
 * Fails, naming `template.runtime.build`, when the environment has no build of that id. A rollout's batch deletes
 * before it creates, so a build the service refuses cost up to `maxUnavailable` ready servers of the first
 * datacenter rolled before its creates were refused; asked first, nothing changes.
 */
export async function checkBuildExists(ctx: OperationContext, fleet: FleetInputs): Promise<void> {
  await requireBuild(ctx, fleet, fleet.template.runtime.build, {
    where: "template of a Fleet",
    path: "template.runtime.build",
  });
}
