import { describe, expect, it } from "vitest";
import { noteClientOrigins } from "../../src/api/clientOrigins";
import { GamehostApiError, GamehostNetworkError, type SettingOrigins } from "../../src/api/errors";
import { defineKind, type OperationContext } from "../../src/kinds/kind";
import { noteResourceChecked, withRecordedSettings } from "../../src/kinds/recordedSettings";

/** A context whose client's settings came from `origins`. */
function contextOf(origins: SettingOrigins): OperationContext {
  const client = {};
  noteClientOrigins(client, origins);
  return { client: () => client } as unknown as OperationContext;
}

const refusal = (code: string, origins: SettingOrigins) =>
  new GamehostApiError({ method: "GET", path: "/x", status: 400, code, message: "no", rayId: "r1", origins });

const STATE_HINT =
  "Without --run-program, `pulumi refresh` and `pulumi destroy` send the gamehost:token of the last `pulumi up` (kept in the state), not one set since: after changing the token, run `pulumi up` first. [GET /x: 400 TOKEN_INVALID, ray id r1]";

describe("a read's or delete's refusal of the token says the state's token was sent", () => {
  it("a token from the stack config: the cause, then the state's part and the fix, then the exchange", () => {
    const origins: SettingOrigins = { sources: { token: "config" }, pulumi: true };
    const error = withRecordedSettings(contextOf(origins), refusal("TOKEN_INVALID", origins)) as Error;
    expect(error.message).toMatch(/^The token is not valid .* to a valid token\. Without --run-program/);
    expect(error.message.endsWith(STATE_HINT)).toBe(true);
    // Told once, however many layers pass it on (a fleet's server, then the fleet).
    expect((withRecordedSettings(contextOf(origins), error) as Error).message).toBe(error.message);
  });

  it("an explicit provider's token: named as the provider's", () => {
    const origins: SettingOrigins = { sources: { token: "config" }, pulumi: true, provider: "eu" };
    const error = withRecordedSettings(contextOf(origins), refusal("CLAIMS_ENTITLEMENT_EXPIRED", origins));
    expect((error as Error).message).toContain(
      'send the token provider "eu" had at the last `pulumi up` (kept in the state)',
    );
  });

  it("GAMEHOST_TOKEN (read anew by every command), a client's option and other errors: unchanged", () => {
    for (const origins of [
      { sources: { token: "env" }, pulumi: true },
      { sources: { token: "option" }, pulumi: false },
    ] satisfies SettingOrigins[]) {
      const error = refusal("TOKEN_INVALID", origins);
      const before = error.message;
      expect((withRecordedSettings(contextOf(origins), error) as Error).message).toBe(before);
    }
    const origins: SettingOrigins = { sources: { token: "config" }, pulumi: true };
    const notFound = refusal("SERVERS_SERVER_NOT_FOUND", origins);
    const before = notFound.message;
    expect((withRecordedSettings(contextOf(origins), notFound) as Error).message).toBe(before);
  });
});

/** "Nothing answers" at a base URL whose setting came from `origins`. */
const refused = (origins: SettingOrigins) =>
  new GamehostNetworkError(
    "GET",
    "/x",
    Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
    false,
    "http://127.0.0.1:1",
    origins,
  );

describe("a read's or delete's 'nothing answers' says the state's base URL was used", () => {
  it("a base URL from the stack config (the emulator came back on another port): the state's part and the fix", () => {
    const origins: SettingOrigins = { sources: { baseUrl: "config" }, pulumi: true };
    const error = withRecordedSettings(contextOf(origins), refused(origins)) as Error;
    expect(error.message).toMatch(/^Nothing answers at http:\/\/127\.0\.0\.1:1: check gamehost:baseUrl /);
    expect(
      error.message.endsWith(
        "Without --run-program, `pulumi refresh` (also the refresh of `pulumi up --refresh`) and `pulumi destroy` use the gamehost:baseUrl of the last `pulumi up` (kept in the state), not one set since: after changing the base URL, run `pulumi up` first. [GET /x: no answer, connect ECONNREFUSED 127.0.0.1:1]",
      ),
    ).toBe(true);
    expect((withRecordedSettings(contextOf(origins), error) as Error).message).toBe(error.message);
  });

  it("an explicit provider's base URL: named as the provider's", () => {
    const origins: SettingOrigins = { sources: { baseUrl: "config" }, pulumi: true, provider: "eu" };
    expect((withRecordedSettings(contextOf(origins), refused(origins)) as Error).message).toContain(
      'use the baseUrl provider "eu" had at the last `pulumi up` (kept in the state)',
    );
  });

  it("GAMEHOST_BASE_URL (read anew by every command) and other network failures: unchanged", () => {
    const env: SettingOrigins = { sources: { baseUrl: "env" }, pulumi: true };
    const fromEnv = refused(env);
    const before = fromEnv.message;
    expect((withRecordedSettings(contextOf(env), fromEnv) as Error).message).toBe(before);
    const config: SettingOrigins = { sources: { baseUrl: "config" }, pulumi: true };
    const reset = new GamehostNetworkError(
      "GET",
      "/x",
      Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
      true,
      "http://127.0.0.1:1",
      config,
    );
    const resetBefore = reset.message;
    expect((withRecordedSettings(contextOf(config), reset) as Error).message).toBe(resetBefore);
  });
});

describe("where the state's token is not the one sent, the refusal is left as it is", () => {
  const origins: SettingOrigins = { sources: { token: "config" }, pulumi: true };

  it("a read without a recorded state (pulumi import, get) uses the stack's config as it is now", async () => {
    const kind = defineKind({
      read: async () => {
        throw refusal("TOKEN_INVALID", origins);
      },
    } as unknown as Parameters<typeof defineKind>[0]);
    const ctx = contextOf(origins);
    const imported = await kind.read(ctx, "s1").catch((e: Error) => e.message);
    expect(imported).not.toContain("Without --run-program");
    const refreshed = await kind.read(ctx, "s1", { inputs: {}, outputs: {} }).catch((e: Error) => e.message);
    expect(refreshed).toContain("Without --run-program");
  });

  // Last in the file: the note lasts for the process, as one provider process serves one engine run.
  it("after a check of a resource (an up, a preview, an import): the provider has the config as it is now", () => {
    noteResourceChecked();
    const error = refusal("TOKEN_INVALID", origins);
    const before = error.message;
    expect((withRecordedSettings(contextOf(origins), error) as Error).message).toBe(before);
    const fromConfig: SettingOrigins = { sources: { baseUrl: "config" }, pulumi: true };
    const unreachable = refused(fromConfig);
    const unreachableBefore = unreachable.message;
    expect((withRecordedSettings(contextOf(fromConfig), unreachable) as Error).message).toBe(
      unreachableBefore,
    );
  });
});
