import { describe, expect, it } from "vitest";
import { stopOnSignals } from "../../src/emulator/stopOnSignals";

/** A stop held up until released (a state write on a slow disk), and what the process was told. */
function harness(outcome: "stops" | "fails" = "stops") {
  const written: string[] = [];
  const exits: number[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve, reject) => {
    release = outcome === "stops" ? resolve : () => reject(new Error("disk gone"));
  });
  let stops = 0;
  const onSignal = stopOnSignals(
    () => {
      stops++;
      return held;
    },
    { write: (text) => written.push(text), exit: (code) => exits.push(code) },
  );
  return { onSignal, written, exits, release, stops: () => stops };
}

describe("the emulator's stop on signals", () => {
  it("stops in order on the first Ctrl-C, and says a second exits at once", async () => {
    const h = harness();
    h.onSignal("Received SIGINT");
    expect(h.stops()).toBe(1);
    expect(h.written.join("")).toContain("Received SIGINT, stopping… (Ctrl-C again exits at once)");
    expect(h.exits).toEqual([]);
    h.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.exits).toEqual([0]);
  });

  it("exits at once (130) on a second Ctrl-C while the stop is held up, without a second stop", () => {
    const h = harness();
    h.onSignal("Received SIGINT");
    h.onSignal("Received SIGINT");
    expect(h.stops()).toBe(1);
    expect(h.exits).toEqual([130]);
    expect(h.written.at(-1)).toContain("Received SIGINT again, exiting now");
  });

  it("exits 1 when the stop fails", async () => {
    const h = harness("fails");
    h.onSignal("Received SIGTERM");
    h.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.exits).toEqual([1]);
  });
});
