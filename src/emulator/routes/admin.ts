import { z } from "zod";
import { ERROR_CODES } from "../../api/errors";
import { type EmulatorClock, FURTHEST_AHEAD_MS } from "../clock";
import type { Handler } from "../core";
import { type FaultQueue, FaultQueueFull, FaultSpecJson } from "../faults";
import { ok, ServiceError } from "../http";
import { applyMutation, MutationJson, type Mutations } from "../mutations";
import { Router } from "../router";
import { parseBody } from "../validation";

/** What the admin routes need beyond the core. */
export interface AdminDeps {
  faults: FaultQueue;
  clock: EmulatorClock;
  mutations: Mutations;
  requests(): ReadonlyArray<unknown>;
  resetRequests(): void;
}

const PlacementJson = z.strictObject({ mode: z.enum(["auto", "never"]) });

const ClockJson = z.strictObject({
  advanceMs: z
    .number()
    .int({ error: "must be a whole number of milliseconds" })
    .min(0, { error: "must be ≥ 0 (the clock only moves forward)" })
    .max(FURTHEST_AHEAD_MS, { error: `must be ≤ ${FURTHEST_AHEAD_MS} (100 years)` }),
});

function clockJson(clock: EmulatorClock): { now: string; offsetMs: number } {
  return { now: new Date(clock.now()).toISOString(), offsetMs: clock.offsetMs };
}

/**
 * Test-control routes under `/__admin` (only with `admin: true`, no token): faults, placement,
 * data mutations (game updates wake watches, the others show at the next answer), and read-outs,
 * so another process can drive the emulator.
 */
export function adminRouter(deps: AdminDeps): Router<Handler> {
  const router = new Router<Handler>();
  router.add("POST", "/__admin/faults", async (_core, ctx) => {
    const { pathRegex: _refused, ...spec } = parseBody(FaultSpecJson, await ctx.json());
    try {
      deps.faults.inject(spec);
    } catch (err) {
      if (err instanceof FaultQueueFull) throw new ServiceError(400, ERROR_CODES.badBody, err.message);
      throw err;
    }
    return ok({ faults: pendingJson(deps.faults) });
  });
  router.add("GET", "/__admin/faults", () => ok({ faults: pendingJson(deps.faults) }));
  router.add("GET", "/__admin/clock", () => ok(clockJson(deps.clock)));
  router.add("POST", "/__admin/clock", async (_core, ctx) => {
    const { advanceMs } = parseBody(ClockJson, await ctx.json());
    // Advances add up: past 100 years ahead the times the emulator answers would stop being valid dates.
    if (deps.clock.offsetMs + advanceMs > FURTHEST_AHEAD_MS)
      throw new ServiceError(
        400,
        ERROR_CODES.badBody,
        `Invalid body: advanceMs would move the clock ${deps.clock.offsetMs + advanceMs} ms ahead, past ${FURTHEST_AHEAD_MS} (100 years); it is ${deps.clock.offsetMs} ms ahead now`,
      );
    deps.clock.advance(advanceMs);
    return ok(clockJson(deps.clock));
  });
  router.add("DELETE", "/__admin/faults", () => {
    deps.faults.clear();
    return ok({});
  });
  router.add("POST", "/__admin/placement", async (core, ctx) => {
    core.setPlacement(parseBody(PlacementJson, await ctx.json()).mode);
    return ok({});
  });
  // Answers `{ id }` for a mutation that creates something (an environment, a version), else `{}`.
  router.add("POST", "/__admin/mutate", async (_core, ctx) => {
    const mutation = parseBody(MutationJson, await ctx.json());
    try {
      return ok(applyMutation(deps.mutations, mutation));
    } catch (err) {
      throw new ServiceError(400, ERROR_CODES.badBody, `Invalid mutation: ${(err as Error).message}`);
    }
  });
  router.add("GET", "/__admin/servers", (core) =>
    ok({ servers: [...core.servers.values()].map((r) => ({ ...r.server, kill_at: r.killAt })) }),
  );
  router.add("GET", "/__admin/watchers", (core) => ok({ count: core.watch.count }));
  router.add("GET", "/__admin/requests", () => ok({ requests: deps.requests() }));
  router.add("DELETE", "/__admin/requests", () => {
    deps.resetRequests();
    return ok({});
  });
  return router;
}

function pendingJson(faults: FaultQueue): unknown[] {
  return faults.pending().map((f) => ({
    ...f,
    ...(f.path instanceof RegExp ? { path: undefined, pathRegex: f.path.source } : {}),
  }));
}
