import { inspect } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostApiError, GamehostConfigError } from "../../src/api/errors";
import { REDACTED, redactError, redactSecrets } from "../../src/api/redact";
import { configure, providerClient } from "../../src/dynamic/settings";
import { failure } from "../support/failure";
import { ENV, GAME, json, SERVER_BODY, useScriptedServers } from "./helpers/scriptedServer";

const TOKEN = "tok_SECRET/echo+me";

const scripted = useScriptedServers();

/** Every way an error is shown or stored: none may carry the token, in any form it was echoed in. */
function expectNoToken(error: unknown): void {
  const forms = [TOKEN, encodeURIComponent(TOKEN)];
  const shown = [
    String(error),
    (error as Error).stack ?? "",
    JSON.stringify(error),
    inspect(error, { depth: Infinity, showHidden: true }),
  ];
  for (const text of shown) for (const form of forms) expect(text).not.toContain(form);
}

describe("an answer that echoes the Authorization header", () => {
  it("leaves no token in any field of the error: code, message, ray id, documentation, metadata", async () => {
    const s = await scripted((req, res) => {
      const auth = req.headers.authorization ?? "";
      const token = auth.replace(/^Bearer /, "");
      json(res, 400, {
        code: `CODE_${auth}`,
        message: `bad header ${auth}`,
        ray_id: `ray-${token}`,
        documentation: `https://docs.example/errors?t=${encodeURIComponent(token)}`,
        metadata: { echo: auth, [token]: [token, { deeper: `x${token}x` }], count: 3 },
      });
    });
    const c = new GamehostClient({ baseUrl: s.url, token: TOKEN, retry: { maxRetries: 0 } });
    const errors = [
      await failure(c.getBootstrap()),
      await failure(c.createServer(GAME, ENV, SERVER_BODY)),
      await failure(c.listServers(GAME, ENV)),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(GamehostApiError);
      expectNoToken(error);
      const e = error as GamehostApiError;
      expect(e.code).toBe(`CODE_Bearer ${REDACTED}`);
      expect(e.serviceMessage).toBe(`bad header Bearer ${REDACTED}`);
      expect(e.rayId).toBe(`ray-${REDACTED}`);
      // The query of any URL is redacted whole (src/api/redact.ts: one rule for tokens and signed URLs).
      expect(e.documentation).toBe(`https://docs.example/errors?${REDACTED}`);
      expect(e.metadata).toEqual({
        echo: `Bearer ${REDACTED}`,
        [REDACTED]: [REDACTED, { deeper: `x${REDACTED}x` }],
        count: 3,
      });
      expect(e.message).toContain(REDACTED);
    }
  });

  it("leaves no token in a ray id taken from the rvt-ray-id header, nor in a plain-text body", async () => {
    const s = await scripted((req, res) => {
      res.writeHead(502, { "rvt-ray-id": `r ${req.headers.authorization}`, "content-type": "text/plain" });
      res.end(`upstream said: ${req.headers.authorization}`);
    });
    const c = new GamehostClient({ baseUrl: s.url, token: TOKEN, retry: { maxRetries: 0 } });
    const error = (await failure(c.getBootstrap())) as GamehostApiError;
    expectNoToken(error);
    expect(error.rayId).toBe(`r Bearer ${REDACTED}`);
  });

  it("leaves no token in a validation error naming a field the answer keyed by it", async () => {
    const s = await scripted((req, res) => {
      const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
      const build = { id: GAME, name: "b", created_at: "2024-01-01T00:00:00Z", content_length: 1 };
      json(res, 200, { builds: [{ ...build, tags: { [token]: 5 } }] });
    });
    const c = new GamehostClient({ baseUrl: s.url, token: TOKEN, retry: { maxRetries: 0 } });
    const error = await failure(c.listBuilds(GAME, ENV));
    expect((error as Error).name).toBe("GamehostValidationError");
    expect((error as Error).message).toContain(`builds.0.tags.${REDACTED}`);
    expectNoToken(error);
  });

  it("leaves no token in the cause of a malformed answer (undici keeps its raw bytes)", async () => {
    const s = await scripted((req, res) => {
      res.socket?.end(`HTTP/1.1 200 OK\r\nbad\u0001header: ${req.headers.authorization}\r\n\r\n`);
    });
    const c = new GamehostClient({ baseUrl: s.url, token: TOKEN, retry: { maxRetries: 0 } });
    const error = await failure(c.getBootstrap());
    expect((error as Error).name).toBe("GamehostNetworkError");
    expectNoToken(error);
  });
});

describe("redactSecrets and redactError", () => {
  it("replace each secret in strings, keys and nested values, and keep what holds none", () => {
    const clean = { a: ["x", { b: 1 }] };
    expect(redactSecrets(clean, ["s3cr3t_val"])).toBe(clean);
    expect(redactSecrets({ "k-s3cr3t_val": ["s3cr3t_val", "a%20s3cr3t_val"] }, ["s3cr3t_val"])).toEqual({
      [`k-${REDACTED}`]: [REDACTED, `a%20${REDACTED}`],
    });
    expect(redactSecrets("a b/c-s3cr3t", ["b/c-s3cr3t"])).toBe(`a ${REDACTED}`);
    expect(redactSecrets("x=b%2Fc-s3cr3t", ["b/c-s3cr3t"])).toBe(`x=${REDACTED}`);
    expect(redactSecrets("anything", [""])).toBe("anything");
    // A secret too short to be a real token only as a word: the text around it stays readable.
    expect(redactSecrets("Nothing answers: Bearer t (t.)", ["t"])).toBe(
      `Nothing answers: Bearer ${REDACTED} (${REDACTED}.)`,
    );
  });

  it("replace a value nested deeper than 32 levels whole, without overflowing the stack", () => {
    let deep: unknown = "s3cr3t_val";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(JSON.stringify(redactSecrets(deep, ["s3cr3t_val"]))).not.toContain("s3cr3t_val");
  });

  it("redact an error's message, stack, fields and causes in place", () => {
    const cause = Object.assign(new Error("inner s3cr3t_val"), { data: "raw s3cr3t_val" });
    const error = Object.assign(new Error("outer s3cr3t_val", { cause }), { field: { k: "s3cr3t_val" } });
    expect(redactError(error, ["s3cr3t_val"])).toBe(error);
    expect(inspect(error, { depth: Infinity, showHidden: true })).not.toContain("s3cr3t_val");
    expect(error.message).toBe(`outer ${REDACTED}`);
  });
});

describe("a base URL with user info", () => {
  const withUserInfo = ["http://admin:pw-s3cr3t@127.0.0.1:1", "https://pw-s3cr3t@api.example.gg"];

  it("is refused by the client, from its option or GAMEHOST_BASE_URL, naming the setting and not the password", () => {
    for (const baseUrl of withUserInfo) {
      const fromOption = (): unknown => new GamehostClient({ baseUrl, token: "t" });
      expect(fromOption).toThrow(GamehostConfigError);
      expect(fromOption).toThrow(
        /^Client option baseUrl must not contain a user name or password .*: pass a valid one to new GamehostClient\.$/,
      );
      vi.stubEnv("GAMEHOST_BASE_URL", baseUrl);
      try {
        new GamehostClient({ token: "t" });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(GamehostConfigError);
        expect((error as Error).message).toMatch(
          /^Environment variable GAMEHOST_BASE_URL must not contain a user name or password .*: change or unset it\.$/,
        );
        expect(inspect(error, { showHidden: true })).not.toContain("s3cr3t");
      }
    }
  });

  it("is refused by the dynamic face's provider client, from the stack's config", () => {
    for (const baseUrl of withUserInfo) {
      configure({ config: { get: (key) => ({ "gamehost:baseUrl": baseUrl, "gamehost:token": "t" })[key] } });
      expect(() => providerClient()).toThrow(/gamehost:baseUrl must not contain a user name or password/);
    }
    configure({ config: { get: () => undefined } });
  });
});

describe("credentials the client does not hold (a dispatcher of the caller's own)", () => {
  it("an echoed Proxy-Authorization or a URL's user info is redacted by its form", async () => {
    const basic = Buffer.from("carol:Sup3r-Secret").toString("base64");
    const s = await scripted((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end(
        `<html>Basic authentication failed. Proxy-Authorization: Basic ${basic} via http://carol:Sup3r-Secret@proxy.corp:3128/</html>`,
      );
    });
    const c = new GamehostClient({ baseUrl: s.url, token: TOKEN, retry: { maxRetries: 0 } });
    const error = await failure(c.getBootstrap());
    const shown = `${String(error)}\n${inspect(error, { depth: Infinity, showHidden: true })}`;
    expect(shown).not.toContain(basic);
    expect(shown).not.toContain("Sup3r-Secret");
    expect(shown).toContain("proxy.corp:3128");
    expect(shown).toContain("Basic authentication failed");
  });
});
