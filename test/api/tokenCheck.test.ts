/**
 * A token is checked before use (issue 28 §7): a control character, most often the trailing newline of
 * a value read or pasted from a file, fails at configuration naming the setting, on every face, before any
 * request, and never as "the service may have created this server". The token itself is never printed.
 */
import { describe, expect, it, vi } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostConfigError } from "../../src/api/errors";
import { dynamicHostModule } from "../../src/dynamic/hostModule";
import { configure } from "../../src/dynamic/settings";
import { serverKind } from "../../src/kinds/server/implementation";
import { checkConfig } from "../../src/plugin/config";
import { useScriptedServers } from "./helpers/scriptedServer";

const scripted = useScriptedServers();
const TOKEN = "tok_live_8c1e5a";

function configError(run: () => unknown): GamehostConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GamehostConfigError);
    return error as GamehostConfigError;
  }
  throw new Error("expected a configuration error");
}

describe("a token with the header's `Bearer `, or a space around it", () => {
  it.each([
    [`Bearer ${TOKEN}`, "starts with `Bearer ` (give the token alone"],
    [`bearer  ${TOKEN}`, "starts with `Bearer ` (give the token alone"],
    [`${TOKEN} `, "ends with a space (give the token alone)"],
    [` ${TOKEN}`, "starts with a space (give the token alone)"],
  ])("fails as a client option, naming the option, never the token: %j", (token, problem) => {
    const error = configError(() => new GamehostClient({ baseUrl: "http://127.0.0.1:1", token }));
    expect(error.message).toContain(`Client option token ${problem}`);
    expect(error.message).not.toContain(TOKEN);
  });
});

describe("a token with a control character", () => {
  it.each([
    [`${TOKEN}\n`, "ends with a control character, U+000A (a newline)"],
    [`${TOKEN}\r\n`, "ends with a control character, U+000D (a carriage return)"],
    [`tok\u0000${TOKEN}`, "contains a control character, U+0000 (a NUL)"],
    [`${TOKEN}\u007f`, "contains a control character, U+007F"],
  ])("fails as a client option, naming the option and the character: %j", (token, problem) => {
    const error = configError(() => new GamehostClient({ baseUrl: "http://127.0.0.1:1", token }));
    expect(error.message).toContain(`Client option token ${problem}`);
    expect(error.message).not.toContain(TOKEN);
  });

  it("fails from GAMEHOST_TOKEN, naming the variable", () => {
    vi.stubEnv("GAMEHOST_TOKEN", `${TOKEN}\n`);
    const error = configError(() => new GamehostClient({ baseUrl: "http://127.0.0.1:1" }));
    expect(error.message).toMatch(
      /^Environment variable GAMEHOST_TOKEN ends with a control character, U\+000A/,
    );
    expect(error.message).toContain("printf %s");
    expect(error.message).not.toContain(TOKEN);
  });

  it("accepts a token of printable characters, spaces inside included", () => {
    expect(() => new GamehostClient({ baseUrl: "http://127.0.0.1:1", token: "a b+/=~" })).not.toThrow();
  });

  it("fails a dynamic-face create at configuration, naming gamehost:token, with no request sent", async () => {
    const s = await scripted((_req, res) => {
      res.destroy();
    });
    configure({
      config: {
        get: (key) => ({ "gamehost:baseUrl": s.url, "gamehost:token": `${TOKEN}\n` })[key],
      },
    });
    const host = dynamicHostModule(serverKind);
    const error = await host
      .create({ gameId: "00000000-0000-4000-8000-000000000003" } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GamehostConfigError);
    expect((error as Error).message).toMatch(
      /^Configuration gamehost:token ends with a control character, U\+000A \(a newline\).*`pulumi config set --secret gamehost:token <value>`/,
    );
    expect((error as Error).message).not.toMatch(/may have created/);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(s.seen).toEqual([]);
    configure({ config: { get: () => undefined } });
  });

  it("fails the plugin's CheckConfig naming the token, from its input or GAMEHOST_TOKEN, but not as its property", () => {
    // Named as the failure's property, the engine would print its value (`property token value {…}`).
    const fromInput = checkConfig({ baseUrl: "http://127.0.0.1:1", token: `${TOKEN}\n` }, {});
    expect(fromInput).toEqual([
      {
        property: "",
        reason: expect.stringMatching(/^Configuration gamehost:token ends with a control character, U\+000A/),
      },
    ]);
    const fromEnv = checkConfig({ baseUrl: "http://127.0.0.1:1" }, { GAMEHOST_TOKEN: `\t${TOKEN}` });
    expect(fromEnv).toEqual([
      {
        property: "",
        reason: expect.stringMatching(
          /^Environment variable GAMEHOST_TOKEN contains a control character, U\+0009/,
        ),
      },
    ]);
    for (const f of [...fromInput, ...fromEnv]) expect(f.reason).not.toContain(TOKEN);
    // A bad base URL and a bad token are both named in one run.
    expect(checkConfig({ baseUrl: "ftp://x", token: `${TOKEN}\n` }, {}).map((f) => f.property)).toEqual([
      "baseUrl",
      "",
    ]);
  });
});
