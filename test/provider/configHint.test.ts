/**
 * A config key the package does not read (another case, a typo, the project's namespace) is named by the
 * error that says the package's key is not set.
 */
import { describe, expect, it } from "vitest";
import { CONFIG_KEYS } from "../../src/api/config";
import { lookalikeKeys, withLookalikeHint } from "../../src/api/configHint";
import { GamehostConfigError } from "../../src/api/errors";
import { checkConfig } from "../../src/plugin/config";

const baseUrl = CONFIG_KEYS.baseUrl;
const token = CONFIG_KEYS.token;

describe("a config key that looks like the package's", () => {
  it("is found in another case, misspelt, or in the project's namespace", () => {
    const present = [
      "gamehost:baseURL",
      "gamehost:baseUri",
      "app:baseUrl",
      "app:base_url",
      "gamehost:token",
      "app:game",
      "app:environment",
    ];
    expect(lookalikeKeys(baseUrl.key, present, "app")).toEqual([
      "gamehost:baseURL",
      "gamehost:baseUri",
      "app:baseUrl",
      "app:base_url",
    ]);
    expect(lookalikeKeys(token.key, ["gamehost:Token", "gamehost:tokn", "app:open", "app:note"])).toEqual([
      "gamehost:Token",
      "gamehost:tokn",
    ]);
    expect(lookalikeKeys(baseUrl.key, ["gamehost:baseUrl", "gamehost:token"])).toEqual([]);
  });

  it("is never another provider's key: renaming it would break that provider", () => {
    const present = ["github:token", "vault:token", "aws:baseUrl", "gamehots:token"];
    expect(lookalikeKeys(token.key, present, "app")).toEqual(["gamehots:token"]);
    // Without the project's name, its keys are not offered either.
    expect(lookalikeKeys(baseUrl.key, ["app:baseUrl"])).toEqual([]);
  });

  it("is named after the error's message, which keeps its class and key", () => {
    const error = new GamehostConfigError(baseUrl.key, baseUrl.env);
    const alone = error.message;
    const hinted = withLookalikeHint(error, ["gamehost:baseURL", "gamehost:token"]);
    expect(hinted).toBe(error);
    expect(hinted).toBeInstanceOf(GamehostConfigError);
    expect(hinted.message).toBe(
      `${alone} The stack sets gamehost:baseURL, which the package does not read: config keys are namespaced and case-sensitive (rename it to gamehost:baseUrl).`,
    );
    const untouched = new GamehostConfigError(token.key, token.env);
    expect(withLookalikeHint(untouched, ["app:game"]).message).toBe(
      new GamehostConfigError(token.key, token.env).message,
    );
  });

  it("is named by the plugin's CheckConfig, where it arrives as an input of its own name", () => {
    const failures = checkConfig({ baseURL: "http://127.0.0.1:8787", token: "emu_user_alice" }, {});
    expect(failures).toEqual([
      {
        property: "baseUrl",
        reason: expect.stringMatching(
          /is not set: .* The stack sets gamehost:baseURL, which the package does not read/,
        ),
      },
    ]);
    expect(JSON.stringify(failures)).not.toContain("emu_user_alice");
  });
});
