import { describe, expect, it } from "vitest";
import { FaultQueue } from "../../src/emulator/faults";
import { MAX_GLOB_LENGTH, PathGlob } from "../../src/emulator/pathGlob";

const SERVERS =
  "/games/9a000000-0000-4000-8000-000000000001/environments/9a000000-0000-4000-8000-000000000002/servers";

describe("PathGlob", () => {
  it("matches the whole path: * within a segment, ** across segments, the rest literally", () => {
    const cases: Array<[string, string, boolean]> = [
      ["/cloud/bootstrap", "/cloud/bootstrap", true],
      ["/cloud/boot*", "/cloud/bootstrap", true],
      ["/cloud/boot*", "/cloud/bootstrap/x", false],
      ["/cloud/games/*", "/cloud/games/abc", true],
      ["/cloud/games/*", "/cloud/games/abc/versions", false],
      ["/cloud/games/**", "/cloud/games/abc/versions", true],
      ["/games/*/environments/*/servers", SERVERS, true],
      ["/games/*/environments/*/servers", `${SERVERS}/x`, false],
      ["**/servers", SERVERS, true],
      ["**/servers*", `${SERVERS}/x`, false],
      ["*", "", true],
      ["**", "/any/thing", true],
      ["/a.b+c?", "/a.b+c?", true],
      ["/a.b", "/axb", false],
      ["/cloud", "/cloud/bootstrap", false],
    ];
    for (const [glob, path, matches] of cases)
      expect(new PathGlob(glob).test(path), `${glob} ${path}`).toBe(matches);
  });

  it("answers an adversarial glob on a long path that almost matches without backtracking", () => {
    // The shape of ^([\/a-z0-9-]+)+!$, which takes exponential time in a backtracking engine.
    const glob = new PathGlob(`${"**-".repeat(80)}!`);
    const path = `/${"a-".repeat(5_000)}`;
    expect(glob.test(path)).toBe(false);
    expect(glob.test(`${path}!`)).toBe(true);
  });

  it("refuses an empty glob and one longer than the limit", () => {
    expect(() => new PathGlob("")).toThrow(RangeError);
    expect(() => new PathGlob("a".repeat(MAX_GLOB_LENGTH + 1))).toThrow(RangeError);
  });
});

describe("FaultQueue with a glob", () => {
  it("hits only matching requests and lists the glob", () => {
    const queue = new FaultQueue();
    queue.inject({ kind: "error_500", pathGlob: "/games/**", count: 2 });
    expect(queue.pending()).toEqual([{ kind: "error_500", pathGlob: "/games/**", remaining: 2 }]);
    expect(queue.take("GET", "/cloud/bootstrap", "/cloud/bootstrap")).toBeUndefined();
    expect(queue.take("GET", SERVERS, "/games/:game/environments/:env/servers")?.kind).toBe("error_500");
    expect(() => queue.inject({ kind: "reset", path: /x/, pathGlob: "/x" })).toThrow(/path or pathGlob/);
    expect(() => queue.inject({ kind: "reset", path: "/x", pathGlob: "/x" })).toThrow(/path or pathGlob/);
  });
});
