import { describe, expect, it } from "vitest";
import { readSettings } from "../../src/api/config";
import { lookupOf } from "../../src/plugin/config";

/**
 * A setting given as an empty string (`pulumi config set --secret gamehost:token ""`, or an explicit
 * provider's `token: cfg.get("euToken") ?? ""`) is no value: its environment variable applies, as for any
 * setting left out. It once counted as set, so the token was missing while GAMEHOST_TOKEN held one, and the
 * error told the user to set that variable.
 */
describe("an empty config setting falls back to its environment variable", () => {
  const env = { GAMEHOST_TOKEN: "from-env", GAMEHOST_BASE_URL: "http://127.0.0.1:1" };

  it("the stack config (the program's data sources, the dynamic provider, the plugin's default provider)", () => {
    const config: Record<string, string> = { "gamehost:token": "", "gamehost:baseUrl": "" };
    const settings = readSettings((key) => config[key], env);
    expect(settings.token).toBe("from-env");
    expect(settings.baseUrl).toBe("http://127.0.0.1:1");
    expect(settings.origins?.sources).toMatchObject({ token: "env", baseUrl: "env" });
  });

  it("an explicit provider's arguments (the plugin)", () => {
    const settings = readSettings(lookupOf({ token: "", baseUrl: "" }, new Map(), "eu"), env);
    expect(settings.token).toBe("from-env");
    expect(settings.origins?.sources.token).toBe("env");
  });

  it("a set value still wins over its variable", () => {
    const settings = readSettings((key) => (key === "gamehost:token" ? "from-config" : undefined), env);
    expect(settings.token).toBe("from-config");
    expect(settings.origins?.sources.token).toBe("config");
  });
});
