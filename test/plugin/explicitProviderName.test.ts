/**
 * Which Configure and CheckConfig requests are an explicit provider's, whose errors then name it rather than
 * the stack's `gamehost:*` config (test/cli/providerOptions.test.ts checks the messages through the CLI).
 */
import { describe, expect, it } from "vitest";
import { checkConfig, explicitProviderName } from "../../src/plugin/config";

describe("explicitProviderName", () => {
  it("names an explicit provider; a default one, `pulumi do`'s and a request without a URN have none", () => {
    expect(explicitProviderName("urn:pulumi:dev::proj::pulumi:providers:gamehost::eu")).toBe("eu");
    expect(explicitProviderName("urn:pulumi:dev::proj::pulumi:providers:gamehost::default-ish")).toBe(
      "default-ish",
    );
    expect(
      explicitProviderName("urn:pulumi:dev::proj::pulumi:providers:gamehost::default_0_1_0"),
    ).toBeUndefined();
    expect(explicitProviderName("urn:pulumi:dev::proj::pulumi:providers:gamehost::default")).toBeUndefined();
    // `pulumi do` (v3.274.1, do_shared.go) configures `urn:pulumi:dev::default::pulumi:providers:gamehost::`.
    expect(explicitProviderName("urn:pulumi:dev::default::pulumi:providers:gamehost::")).toBeUndefined();
    expect(explicitProviderName("")).toBeUndefined();
    expect(explicitProviderName(undefined)).toBeUndefined();
  });

  it("CheckConfig of an explicit provider without a base URL names it; a default one names the stack's config", () => {
    const env = {};
    expect(checkConfig({}, env, "eu")).toEqual([
      {
        property: "baseUrl",
        reason:
          'The baseUrl of provider "eu" is not set: give the provider a baseUrl (an explicit provider does not read the stack\'s gamehost:baseUrl) or set the GAMEHOST_BASE_URL environment variable.',
      },
    ]);
    expect(checkConfig({}, env)[0]?.reason).toMatch(
      /^Configuration gamehost:baseUrl is not set: run `pulumi config set/,
    );
  });
});
