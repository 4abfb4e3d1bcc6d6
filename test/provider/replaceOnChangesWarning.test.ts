/**
 * `replaceOnChanges` on a dynamic resource: the entries the SDK's host cannot honour (what the kind updates
 * in place, its `updatedInPlace`) are warned once, by name; `*` is named with the properties it covers there.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it, vi } from "vitest";
import { dynamicResourceOptions } from "../../src/dynamic/providerOptions";
import { fleetKind } from "../../src/kinds/fleet/implementation";
import type { AnyResourceKind } from "../../src/kinds/kind";
import { lobbyHistoryExportKind } from "../../src/kinds/lobbyHistoryExport/implementation";

function warningsOf(kind: AnyResourceKind, replaceOnChanges: string[]): string[] {
  const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue(undefined);
  try {
    dynamicResourceOptions(
      kind.name,
      "arena",
      { replaceOnChanges },
      kind.updatedInPlace,
      `pulumi-gamehost/provider/${kind.hostSubpath}`,
    );
    return warn.mock.calls.map(([message]) => String(message));
  } finally {
    warn.mockRestore();
  }
}

describe("replaceOnChanges on a dynamic resource", () => {
  it("names what * covers where the kind updates in place", () => {
    const [warning, ...more] = warningsOf(fleetKind, ["*"]);
    expect(more).toEqual([]);
    expect(warning).toMatch(
      /^Fleet "arena": replaceOnChanges has no effect on a dynamic resource for \* \(that is template, datacenters, rollout, [^)]*\) \(Pulumi's dynamic provider host/,
    );
  });

  it("names the entries it cannot honour and no other; a kind with no update is not warned", () => {
    const [warning] = warningsOf(fleetKind, ["template.tags", "gameId"]);
    expect(warning).toContain("for template.tags (");
    expect(warningsOf(lobbyHistoryExportKind, ["*"])).toEqual([]);
  });
});
