/**
 * A policy pack's `validateResourceOfType(<class>, …)` (@pulumi/policy) matches a resource by its class's
 * static `__pulumiType`: each kind's class on both faces carries its face's type token (docs/_index.md,
 * "Policies and transforms"). The dynamic classes had none, so a typed policy of `gamehost.Server` matched
 * no resource and a mandatory rule checked nothing; test/cli/policyPack.test.ts runs it through the CLI.
 */
import { describe, expect, it } from "vitest";
import * as gamehost from "../../src";

/** The class's type as @pulumi/policy's getPulumiType reads it (not in its typings): the static `__pulumiType`. */
const getPulumiType = (cls: object) => (cls as { __pulumiType?: unknown }).__pulumiType;

describe("each class's type token, as a policy pack reads it", () => {
  it.each([
    ["Server", gamehost.Server, gamehost.native.Server],
    ["Fleet", gamehost.Fleet, gamehost.native.Fleet],
    ["LobbyHistoryExport", gamehost.LobbyHistoryExport, gamehost.native.LobbyHistoryExport],
  ] as const)("%s: the dynamic face's and the plugin's", (kind, dynamic, plugin) => {
    expect(getPulumiType(dynamic)).toBe(`pulumi-nodejs:dynamic/gamehost:${kind}`);
    expect(getPulumiType(plugin)).toBe(`gamehost:index:${kind}`);
  });
});
