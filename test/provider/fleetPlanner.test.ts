/**
 * The Fleet's rollout planner (src/kinds/fleet/planner.ts), as a pure function: a rollout simulated
 * batch by batch (deletes, then creates, then the new servers become ready) keeps both bounds at every
 * step and converges; a count change touches only the difference; scale down picks not-ready, then newest.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  converged,
  nextBatch,
  type PlannedServer,
  resolveBound,
  resolveBounds,
} from "../../src/kinds/fleet/planner";

const oldFleet = (count: number, generation = 1): PlannedServer[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `old-${i}`,
    generation,
    ready: true,
    createdAt: i,
    slot: i,
  }));

/**
 * Runs a rollout to its end as the Fleet kind does, checking the bounds after every delete and every
 * create (the instants the live and ready counts change). `becomesReady` says, per created server, whether
 * it is ready by the next batch (otherwise the kind waits: it is made ready before planning again).
 */
function simulate(
  start: PlannedServer[],
  target: { count: number; generation: number; maxSurge: number; maxUnavailable: number },
  check: (live: number, ready: number) => void,
): { servers: PlannedServer[]; batches: number } {
  let servers = [...start];
  let clock = 1000;
  let batches = 0;
  for (; batches < 1000; batches++) {
    const batch = nextBatch(servers, target);
    if (batch.delete.length === 0 && batch.create === 0) {
      const waiting = servers.filter((s) => !s.ready);
      if (waiting.length === 0) break;
      servers = servers.map((s) => ({ ...s, ready: true }));
      check(servers.length, servers.length);
      continue;
    }
    for (const id of batch.delete) {
      servers = servers.filter((s) => s.id !== id);
      check(servers.length, servers.filter((s) => s.ready).length);
    }
    for (let i = 0; i < batch.create; i++) {
      clock++;
      servers.push({
        id: `new-${clock}`,
        generation: target.generation,
        ready: false,
        createdAt: clock,
        slot: clock,
      });
      check(servers.length, servers.filter((s) => s.ready).length);
    }
    // The kind waits for each created server before the next batch.
    servers = servers.map((s) => ({ ...s, ready: true }));
  }
  return { servers, batches };
}

const bound = fc.oneof(
  fc.integer({ min: 0, max: 12 }),
  fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
);

describe("the Fleet's rollout planner", () => {
  it("rounds percentages as Agones: surge up, unavailability down; both 0 becomes maxUnavailable 1", () => {
    expect(resolveBounds(undefined, 4)).toEqual({ maxSurge: 1, maxUnavailable: 1 });
    expect(resolveBounds(undefined, 3)).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(resolveBounds({ maxSurge: 0, maxUnavailable: "10%" }, 5)).toEqual({
      maxSurge: 0,
      maxUnavailable: 1,
    });
    expect(resolveBound("25%", 100, "down")).toBe(25);
    expect(resolveBound(3, 100, "up")).toBe(3);
  });

  it("keeps ≥ count − maxUnavailable ready and ≤ count + maxSurge live at every instant of a rollout, and converges", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), bound, bound, (count, surge, unavailable) => {
        const { maxSurge, maxUnavailable } = resolveBounds(
          { maxSurge: surge, maxUnavailable: unavailable },
          count,
        );
        const target = { count, generation: 2, maxSurge, maxUnavailable };
        const { servers, batches } = simulate(oldFleet(count), target, (live, ready) => {
          expect(live).toBeLessThanOrEqual(count + maxSurge);
          expect(ready).toBeGreaterThanOrEqual(count - maxUnavailable);
        });
        expect(batches).toBeLessThan(1000);
        expect(converged(servers, count, 2)).toBe(true);
        // Every old server was replaced once: count creates in all, no more.
        expect(servers.every((s) => s.id.startsWith("new-"))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("scales by the difference only, removing not-ready servers first, then the newest", () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { maxLength: 30 }),
        fc.integer({ min: 0, max: 40 }),
        (readiness, count) => {
          const servers = readiness.map((ready, i) => ({
            id: `s${i}`,
            generation: 1,
            ready,
            createdAt: i,
            slot: i,
          }));
          const batch = nextBatch(servers, { count, generation: 1, maxSurge: 1, maxUnavailable: 1 });
          if (count >= servers.length) {
            expect(batch).toEqual({ delete: [], create: count - servers.length });
            return;
          }
          expect(batch.create).toBe(0);
          expect(batch.delete).toHaveLength(servers.length - count);
          const notReady = servers.filter((s) => !s.ready).sort((a, b) => b.createdAt - a.createdAt);
          const ready = servers.filter((s) => s.ready).sort((a, b) => b.createdAt - a.createdAt);
          expect(batch.delete).toEqual(
            [...notReady, ...ready].slice(0, servers.length - count).map((s) => s.id),
          );
        },
      ),
    );
  });

  it("replaces old servers that are not ready at once (they count for nothing)", () => {
    const servers = oldFleet(4).map((s, i) => ({ ...s, ready: i !== 2 }));
    const batch = nextBatch(servers, { count: 4, generation: 2, maxSurge: 1, maxUnavailable: 0 });
    expect(batch.delete).toEqual(["old-2"]);
    expect(batch.create).toBe(2);
  });
});
