/**
 * A program on both faces (`pulumi-gamehost` and `pulumi-gamehost/native`) meets one cause (an unreachable
 * base URL, billing disabled) in data sources of each: the dynamic face's error is the client's own class,
 * the plugin face's a GamehostError holding the plugin's message. The cause is printed once, as on one face.
 */
import { describe, expect, it } from "vitest";
import { GamehostError, GamehostNetworkError } from "../../src/api/errors";
import { firstOfItsCause } from "../../src/dynamic/reportedOnce";

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });

describe("a data source failing for a cause already met, on either face", () => {
  it("throws the first error of that cause, whatever the face's error class", () => {
    const baseUrl = "http://127.0.0.1:9";
    const dynamic = new GamehostNetworkError("GET", "/cloud/bootstrap", refused(), false, baseUrl);
    const plugin = new GamehostNetworkError("GET", "/cloud/games", refused(), false, baseUrl);
    // The plugin face rethrows the plugin's message as a GamehostError (src/native/invoke.ts).
    const native = new GamehostError(plugin.message);
    expect(native.message).not.toBe(dynamic.message);
    expect(firstOfItsCause(dynamic)).toBe(dynamic);
    expect(firstOfItsCause(native)).toBe(dynamic);
  });

  it("keeps errors of different causes apart", () => {
    const a = new GamehostError("Billing is off: remove the call. [GET /x: 400 A, ray id 1]");
    const b = new GamehostError("Another cause: do this. [GET /x: 400 B, ray id 2]");
    expect(firstOfItsCause(a)).toBe(a);
    expect(firstOfItsCause(b)).toBe(b);
  });
});
