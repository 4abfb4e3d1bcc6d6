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

// The same where the registry cannot be reached: npm's advice follows its reason.
const NPX_UNREACHABLE = [
  "npm error code ENOTFOUND",
  "npm error syscall getaddrinfo",
  "npm error errno ENOTFOUND",
  "npm error network request to http://registry.invalid/pulumi failed, reason: getaddrinfo ENOTFOUND registry.invalid",
  "npm error network This is a problem related to network connectivity.",
  "npm error network In most cases you are behind a proxy or have bad network settings.",
  "npm error network",
  "npm error network If you are behind a proxy, please make sure that the 'proxy' config is set properly.  See: 'npm help config'",
  "npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-27T19_55_17_143Z-debug-0.log",
].join("\n");

describe("why a probed engine cannot run", () => {
  it("is the line saying what failed, not npm's advice after it", () => {
    expect(cannotRunReason({ stderr: NPX_UNREACHABLE, status: 1 })).toBe(
      "npm error network request to http://registry.invalid/pulumi failed, reason: getaddrinfo ENOTFOUND registry.invalid",
    );
  });

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
