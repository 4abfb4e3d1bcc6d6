import { z } from "zod";
import { Uuid } from "../../api/schemas/common";
import type { Chaos } from "../chaos";
import type { Handler } from "../core";
import { ok } from "../http";
import type { Router } from "../router";
import { parseBody } from "../validation";

const OutageJson = z.strictObject({ datacenter: Uuid });

/**
 * Admin routes for failures of the platform (see {@link Chaos}): a server crash, a datacenter outage and
 * its end. The dashboard's buttons call exactly these.
 */
export function addChaosRoutes(router: Router<Handler>, chaos: Chaos): void {
  router.add("POST", "/__admin/servers/:server/kill", async (core, ctx) => {
    const id = ctx.params.server as string;
    await chaos.kill(id);
    const record = core.servers.get(id);
    return ok({ server: record?.server, exit: chaos.exitOf(id) });
  });
  router.add("GET", "/__admin/outages", () => ok({ outages: chaos.outages() }));
  router.add("POST", "/__admin/outages", async (_core, ctx) => {
    const { datacenter } = parseBody(OutageJson, await ctx.json());
    const killed = await chaos.outage(datacenter);
    return ok({ outages: chaos.outages(), killed });
  });
  router.add("DELETE", "/__admin/outages/:datacenter", (_core, ctx) => {
    chaos.restore(ctx.params.datacenter as string);
    return ok({ outages: chaos.outages() });
  });
}
