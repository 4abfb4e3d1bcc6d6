/**
 * A fleet's readiness through one shared list (src/kinds/fleet/readiness.ts): callers asking at about the same
 * time share one request, the lists of all fleets of a process are paced together, a failed list is asked
 * again, and each awaited server ends ready, stopped (destroyed, or no longer listed) or timed out at the
 * deadline, with what was last seen of it.
 */
import { describe, expect, it } from "vitest";
import type { Server } from "../../src/api/schemas";
import { awaitReady, LIST_BURST, MAX_INTERVAL_MS, sharedLister } from "../../src/kinds/fleet/readiness";

/** Just enough of a listed server for readiness: its id, whether it is ready, whether it was destroyed. */
const server = (id: string, state: { ready?: boolean; destroyed?: boolean } = {}) =>
  ({
    id,
    ...(state.ready ? { started_at: 1 } : {}),
    ...(state.destroyed ? { destroyed_at: 2 } : {}),
  }) as unknown as Server;
const isReady = (s: Server) => s.started_at !== undefined;

describe("the shared lister", () => {
  it("gives callers asking after the same instant one request, and a later caller a new one", async () => {
    let requests = 0;
    const lister = sharedLister(async () => {
      requests++;
      return [server(`s${requests}`)];
    });
    const asked = Date.now();
    const [a, b] = await Promise.all([lister(asked), lister(asked)]);
    expect(requests).toBe(1);
    expect(a).toBe(b);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await lister(Date.now());
    expect(requests).toBe(2);
  });

  it("asks again after a failed request instead of handing out its failure", async () => {
    let requests = 0;
    const lister = sharedLister(async () => {
      requests++;
      if (requests === 1) throw new Error("503");
      return [];
    });
    const asked = Date.now();
    await expect(lister(asked)).rejects.toThrow("503");
    await expect(lister(asked)).resolves.toEqual([]);
    expect(requests).toBe(2);
  });
});

describe("the lists of every fleet of the process", () => {
  it("go out in a short burst, then at most two a second, however many fleets wait at once", async () => {
    const started: number[] = [];
    const fleets = Array.from({ length: LIST_BURST + 4 }, () =>
      sharedLister(async () => {
        started.push(Date.now());
        return [];
      }),
    );
    const asked = Date.now();
    await Promise.all(fleets.map((lister) => lister(asked)));
    expect(started).toHaveLength(LIST_BURST + 4);
    // Past the burst each list waits for its token (timers fire late, never early; 1 ms for their rounding).
    const span = Math.max(...started) - asked;
    expect(span).toBeGreaterThanOrEqual(4 * MAX_INTERVAL_MS - 1);
  });
});

describe("waiting for readiness", () => {
  it("ends each server ready, stopped (destroyed or gone) or timed out, with what was last listed", async () => {
    // Listing n: "ready" becomes ready on the second listing, "destroyed" is destroyed, "gone" is never listed
    // after the first, "slow" never becomes ready.
    let listings = 0;
    const lister = async () => {
      listings++;
      return [
        server("ready", { ready: listings >= 2 }),
        server("destroyed", { destroyed: true }),
        ...(listings === 1 ? [server("gone")] : []),
        server("slow"),
      ];
    };
    const outcomes = await awaitReady(
      ["ready", "destroyed", "gone", "slow"],
      lister,
      isReady,
      Date.now() + 1_500,
    );
    expect(outcomes.get("ready")).toMatchObject({ outcome: "ready", server: { id: "ready" } });
    expect(outcomes.get("destroyed")).toMatchObject({ outcome: "stopped", server: { id: "destroyed" } });
    expect(outcomes.get("gone")).toEqual({ outcome: "stopped" });
    expect(outcomes.get("slow")).toMatchObject({ outcome: "timeout", server: { id: "slow" } });
  });

  it("passes a failed list on to the caller, which keeps the servers recorded", async () => {
    const lister = async () => {
      throw new Error("list failed");
    };
    await expect(awaitReady(["a"], lister, isReady, Date.now() + 10_000)).rejects.toThrow("list failed");
  });

  it("ends at once when the deadline has passed, every server timed out", async () => {
    let listings = 0;
    const outcomes = await awaitReady(
      ["a"],
      async () => {
        listings++;
        return [];
      },
      isReady,
      Date.now() - 1,
    );
    expect(outcomes.get("a")).toEqual({ outcome: "timeout" });
    expect(listings).toBe(0);
  });
});
