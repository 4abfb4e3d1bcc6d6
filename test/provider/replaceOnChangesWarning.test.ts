/**
 * `replaceOnChanges` on a dynamic resource: the entries the SDK's host cannot honour (what the kind updates
 * in place) are warned once, by name; `*` is named with the properties it covers there.
 */
import { describe, expect, it, vi } from "vitest";
import { requireFromRepo } from "../support/dist";

// Over dist/: the warning loads the kind's spec with a lazy require, which the compiled package resolves.
const pulumi = requireFromRepo("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
const { dynamicResourceOptions } = requireFromRepo(
  "./dist/dynamic/providerOptions",
) as typeof import("../../src/dynamic/providerOptions");

function warningsOf(kind: string, replaceOnChanges: string[]): string[] {
  const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue(undefined);
  try {
    dynamicResourceOptions(kind, "arena", { replaceOnChanges });
    return warn.mock.calls.map(([message]) => String(message));
  } finally {
    warn.mockRestore();
  }
}

describe("replaceOnChanges on a dynamic resource", () => {
  it("names what * covers where the kind updates in place", () => {
    const [warning, ...more] = warningsOf("Fleet", ["*"]);
    expect(more).toEqual([]);
    expect(warning).toMatch(
      /^Fleet "arena": replaceOnChanges has no effect on a dynamic resource for \* \(that is template, datacenters, rollout, [^)]*\) \(Pulumi's dynamic provider host/,
    );
  });

  it("names the entries it cannot honour and no other; a kind with no update is not warned", () => {
    const [warning] = warningsOf("Fleet", ["template.tags", "gameId"]);
    expect(warning).toContain("for template.tags (");
    expect(warningsOf("LobbyHistoryExport", ["*"])).toEqual([]);
  });
});
