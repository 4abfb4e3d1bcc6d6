// The demo's "engine: `…` cannot run (reason)" lines (harness/demo.mjs) give the reason, not npm's pointer to its log.
import { describe, expect, it } from "vitest";
import { cannotRunReason } from "../../scripts/lib/cannot-run.mjs";

// What `npx --yes pulumi version` prints with npm offline and no cached package (npm 11).
const NPX_OFFLINE = [
  "npm error code ENOTCACHED",
  "npm error request to https://registry.npmjs.org/pulumi failed: cache mode is 'only-if-cached' but no cached response is available.",
  "npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-27T19_28_11_728Z-debug-0.log",
  "",
].join("\n");

describe("why a probed engine cannot run", () => {
  it("is npm's reason, not the line saying where its log is", () => {
    expect(cannotRunReason({ stderr: NPX_OFFLINE, status: 1 })).toBe(
      "npm error request to https://registry.npmjs.org/pulumi failed: cache mode is 'only-if-cached' but no cached response is available.",
    );
  });

  it("is the spawn error when the command is not there, else the exit status", () => {
    expect(cannotRunReason({ error: new Error("spawnSync pulumi ENOENT"), stderr: null, status: null })).toBe(
      "spawnSync pulumi ENOENT",
    );
    expect(cannotRunReason({ stderr: "\n", status: 3 })).toBe("exit 3");
  });
});
