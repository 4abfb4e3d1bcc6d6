import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostError, GamehostNetworkError } from "../../src/api/errors";
import { proxyEnvironment } from "../../src/api/proxy";
import { type ProxyMode, startProxy } from "./helpers/forwardProxy";
import {
  BOOTSTRAP,
  closedPort,
  ENV,
  GAME,
  json,
  SERVER_BODY,
  useScriptedServers,
} from "./helpers/scriptedServer";
import { startSelfSigned } from "./helpers/selfSignedServer";

const scripted = useScriptedServers();

const proxies: Array<{ close(): Promise<void> }> = [];
async function proxy(mode?: ProxyMode) {
  const p = await startProxy(mode);
  proxies.push(p);
  return p;
}
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** A base URL on a name only the proxy resolves. */
const viaName = (serviceUrl: string) => serviceUrl.replace("127.0.0.1", "gamehost.test");

function clearProxyEnv() {
  for (const name of ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"])
    vi.stubEnv(name, "");
}

/** A client of a plain-HTTP host name only a proxy could resolve, with no retries. */
function clientOfProxiedHost(): GamehostClient {
  return new GamehostClient({ baseUrl: "http://gamehost.test:8787", token: "tok_abcdefgh", maxRetries: 0 });
}

describe("proxy environment (as Go's ProxyFromEnvironment)", () => {
  it("sends API calls through HTTP_PROXY", async () => {
    const s = await scripted((_req, res) => json(res, 200, BOOTSTRAP));
    const p = await proxy();
    clearProxyEnv();
    vi.stubEnv("HTTP_PROXY", p.url);
    const c = new GamehostClient({ baseUrl: viaName(s.url), token: "tok_abcdefgh" });
    await c.getBootstrap();
    expect(p.seen.map((r) => r.method)).toEqual(["GET"]);
    expect(p.seen[0]?.target).toBe(`${viaName(s.url)}/cloud/bootstrap`);
  });

  it("reads the lowercase form too", async () => {
    const s = await scripted((_req, res) => json(res, 200, BOOTSTRAP));
    const p = await proxy();
    clearProxyEnv();
    vi.stubEnv("http_proxy", p.url.replace("http://", ""));
    await new GamehostClient({ baseUrl: viaName(s.url), token: "tok_abcdefgh" }).getBootstrap();
    expect(p.seen).toHaveLength(1);
  });

  it("reaches localhost, 127.0.0.1 and NO_PROXY hosts directly", async () => {
    const s = await scripted((_req, res) => json(res, 200, BOOTSTRAP));
    const p = await proxy();
    clearProxyEnv();
    vi.stubEnv("HTTP_PROXY", p.url);
    await new GamehostClient({ baseUrl: s.url, token: "tok_abcdefgh" }).getBootstrap();
    await new GamehostClient({
      baseUrl: s.url.replace("127.0.0.1", "localhost"),
      token: "tok_abcdefgh",
    }).getBootstrap();
    expect(p.seen).toEqual([]);
    expect(s.seen).toHaveLength(2);
  });

  it("decides per host as Go does", () => {
    const env = proxyEnvironment({
      HTTPS_PROXY: "proxy.corp:3128",
      http_proxy: "http://other:1",
      HTTP_PROXY: "http://upper:2",
      NO_PROXY: ".internal.corp, example.com, 10.0.0.0/8, 192.168.1.5, api.test:8443",
    });
    const via = (url: string) => env.proxyFor(new URL(url))?.shown;
    expect(via("https://api.example.gg")).toBe("http://proxy.corp:3128");
    expect(via("http://api.example.gg")).toBe("http://upper:2");
    expect(via("https://x.internal.corp")).toBeUndefined();
    expect(via("https://internal.corp")).toBe("http://proxy.corp:3128");
    expect(via("https://example.com")).toBeUndefined();
    expect(via("https://a.example.com")).toBeUndefined();
    expect(via("https://10.2.3.4")).toBeUndefined();
    expect(via("https://192.168.1.5")).toBeUndefined();
    expect(via("https://api.test:8443")).toBeUndefined();
    expect(via("https://api.test")).toBe("http://proxy.corp:3128");
    expect(via("http://[::1]:8787")).toBeUndefined();
    // An https:// request never falls back to HTTP_PROXY.
    expect(
      proxyEnvironment({ HTTP_PROXY: "http://p:1" }).proxyFor(new URL("https://api.example.gg")),
    ).toBeUndefined();
    expect(
      proxyEnvironment({ HTTP_PROXY: "http://p:1", NO_PROXY: "*" }).proxyFor(new URL("http://a.b")),
    ).toBeUndefined();
  });

  it("refuses a proxy URL it cannot use, without printing it", () => {
    expect(() => proxyEnvironment({ HTTPS_PROXY: "ftp://user:hunter2pass@p:1" })).toThrow(GamehostError);
    expect(() => proxyEnvironment({ HTTPS_PROXY: "ftp://user:hunter2pass@p:1" })).toThrow(/HTTPS_PROXY/);
    expect(() => proxyEnvironment({ HTTPS_PROXY: "ftp://user:hunter2pass@p:1" })).not.toThrow(/hunter2/);
  });
  it("retries the service's 503 through a plain-HTTP proxy (undici's proxy wrapper dropped the pause: a TypeError, no retry)", async () => {
    let calls = 0;
    const s = await scripted((_req, res) =>
      ++calls < 3 ? json(res, 503, { code: "API_UNAVAILABLE", message: "busy" }) : json(res, 200, BOOTSTRAP),
    );
    const p = await proxy();
    clearProxyEnv();
    vi.stubEnv("HTTP_PROXY", p.url);
    const c = new GamehostClient({
      baseUrl: viaName(s.url),
      token: "tok_abcdefgh",
      retry: { maxRetries: 2, minDelayMs: 1, maxDelayMs: 2 },
    });
    await expect(c.getBootstrap()).resolves.toBeDefined();
    expect(p.seen.map((r) => r.method)).toEqual(["GET", "GET", "GET"]);
  });
});

const SECRET = "s3cret-Pa55word";
const PROXY_USER = "alice.corp";

/** What a failure printed, every way a user may see it. */
function printed(error: unknown): string {
  const e = error as Error;
  return `${e.message}\n${e.stack}\n${inspect(error, { depth: 10 })}\n${JSON.stringify(error)}`;
}

function expectNoCredentials(error: unknown) {
  const text = printed(error);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(Buffer.from(`${PROXY_USER}:${SECRET}`).toString("base64"));
}

const withCredentials = (url: string) => url.replace("http://", `http://${PROXY_USER}:${SECRET}@`);

describe("a proxy that fails is named as what failed", () => {
  it("a proxy that is down: names it and its variable, nothing sent, no credentials printed", async () => {
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", withCredentials(`http://127.0.0.1:${await closedPort()}`));
    const c = new GamehostClient({ baseUrl: "https://api.example.gg", token: "tok_abcdefgh", maxRetries: 0 });
    const error = await c.createServer(GAME, ENV, SERVER_BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GamehostNetworkError);
    expect((error as Error).message).toMatch(
      /^The proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) refused the connection, so nothing was sent to https:\/\/api\.example\.gg: check HTTPS_PROXY/,
    );
    expect((error as GamehostNetworkError).mayHaveCommitted).toBe(false);
    expectNoCredentials(error);
  });

  it("407 from a plain-HTTP proxy: says the credentials were refused, never prints them", async () => {
    const p = await proxy({ status: 407 });
    clearProxyEnv();
    vi.stubEnv("HTTP_PROXY", withCredentials(p.url));
    const c = clientOfProxiedHost();
    const error = await c.createServer(GAME, ENV, SERVER_BODY).catch((e: unknown) => e);
    expect(p.seen[0]?.auth).toBe(`Basic ${Buffer.from(`${PROXY_USER}:${SECRET}`).toString("base64")}`);
    expect((error as Error).message).toMatch(
      /^The proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTP_PROXY\) refused its user name and password \(407/,
    );
    expect((error as GamehostNetworkError).mayHaveCommitted).toBe(false);
    expectNoCredentials(error);
  });

  it("a proxy's error page that echoes its credentials: they are redacted", async () => {
    const basic = Buffer.from(`${PROXY_USER}:${SECRET}`).toString("base64");
    const page = `<html>Bad gateway. Your request: Proxy-Authorization: Basic ${basic} (${PROXY_USER}:${SECRET})</html>`;
    const p = await proxy({ status: 502, page });
    clearProxyEnv();
    vi.stubEnv("HTTP_PROXY", withCredentials(p.url));
    const c = clientOfProxiedHost();
    const error = await c.getBootstrap().catch((e: unknown) => e);
    expect((error as Error).message).toContain("Bad gateway");
    expect((error as Error).message).toMatch(
      /This answer came from the proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTP_PROXY\) or a gateway behind it, not the service/,
    );
    expectNoCredentials(error);
  });

  it("a short proxy user name does not garble the message", async () => {
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", `http://proxy:${SECRET}@127.0.0.1:${await closedPort()}`);
    const c = new GamehostClient({ baseUrl: "https://api.example.gg", token: "tok_abcdefgh", maxRetries: 0 });
    const error = await c.getBootstrap().catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^The proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) refused/,
    );
    expect(printed(error)).not.toContain(SECRET);
  });

  it("407 on CONNECT without credentials: says to give them", async () => {
    const p = await proxy({ status: 407 });
    clearProxyEnv();
    vi.stubEnv("https_proxy", p.url);
    const c = new GamehostClient({ baseUrl: "https://gamehost.test", token: "tok_abcdefgh", maxRetries: 0 });
    const error = await c.getBootstrap().catch((e: unknown) => e);
    expect(p.seen[0]?.method).toBe("CONNECT");
    expect((error as Error).message).toMatch(
      /\(from https_proxy\) requires a user name and password .*give them in https_proxy as http:\/\/<user>:<password>@<host>:<port> \(special/,
    );
  });

  it("403 on CONNECT: the proxy refused this host", async () => {
    const p = await proxy({ status: 403 });
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", p.url);
    const c = new GamehostClient({ baseUrl: "https://gamehost.test", token: "tok_abcdefgh", maxRetries: 0 });
    const error = await c.getBootstrap().catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /refused to connect to https:\/\/gamehost\.test \(403\), so nothing was sent/,
    );
  });

  it("502 on CONNECT of a create: nothing was sent, so no lookup is asked for", async () => {
    const p = await proxy({ status: 502 });
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", p.url);
    const c = new GamehostClient({ baseUrl: "https://gamehost.test", token: "tok_abcdefgh" });
    const error = await c.createServer(GAME, ENV, SERVER_BODY).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /could not reach https:\/\/gamehost\.test \(502\), so nothing was sent to it/,
    );
    expect((error as GamehostNetworkError).mayHaveCommitted).toBe(false);
  });

  it("a 503 to CONNECT is retried for a GET (nothing was sent), never for a POST", async () => {
    const p = await proxy({ status: 503 });
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", p.url);
    const c = new GamehostClient({
      baseUrl: "https://gamehost.test",
      token: "tok_abcdefgh",
      retry: { maxRetries: 2, minDelayMs: 1, maxDelayMs: 2 },
    });
    await c.getBootstrap().catch(() => undefined);
    expect(p.seen.filter((r) => r.method === "CONNECT")).toHaveLength(3);
    await c.createServer(GAME, ENV, SERVER_BODY).catch(() => undefined);
    expect(p.seen.filter((r) => r.method === "CONNECT")).toHaveLength(4);
  });

  it("a proxy that never answers CONNECT fails in the connect time, naming it", async () => {
    const p = await proxy("hang");
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", p.url);
    const c = new GamehostClient({
      baseUrl: "https://gamehost.test",
      token: "tok_abcdefgh",
      maxRetries: 0,
      timeouts: { connectMs: 200 },
    });
    const error = await c.getBootstrap().catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /did not answer its CONNECT request in time, so nothing was sent/,
    );
  });

  it("a proxy that drops the connection after passing a create on: it may have run", async () => {
    const s = await scripted((_req, res) => json(res, 200, { server: {} }));
    const p = await proxy("drop-after-forward");
    clearProxyEnv();
    vi.stubEnv("HTTP_PROXY", p.url);
    const c = new GamehostClient({ baseUrl: viaName(s.url), token: "tok_abcdefgh" });
    const error = await c.createServer(GAME, ENV, SERVER_BODY).catch((e: unknown) => e);
    expect(s.seen).toHaveLength(1);
    expect((error as GamehostNetworkError).mayHaveCommitted).toBe(true);
    expect((error as Error).message).toMatch(/may have taken effect: find the server by its tags/);
    expect((error as Error).message).toMatch(
      /went through the proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTP_PROXY\)/,
    );
  });
});

describe("certificates with a proxy", () => {
  it("a service certificate refused through a tunnel: names the certificate, the proxy, and an intercepting proxy's authority", async () => {
    const tls = await startSelfSigned();
    const p = await proxy();
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", p.url);
    const c = new GamehostClient({ baseUrl: viaName(tls.url), token: "tok_abcdefgh", maxRetries: 0 });
    const error = await c.listGames().catch((e: unknown) => e);
    await tls.close();
    expect(p.seen[0]?.method).toBe("CONNECT");
    expect((error as Error).message).toMatch(
      /^The certificate of https:\/\/gamehost\.test:\d+ is not trusted, so nothing was sent/,
    );
    expect((error as Error).message).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect((error as Error).message).toMatch(
      /proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\).*inspects TLS/,
    );
  });

  it("an https:// proxy whose own certificate is refused: names the proxy's certificate", async () => {
    const tls = await startSelfSigned();
    clearProxyEnv();
    vi.stubEnv("HTTPS_PROXY", tls.url);
    const c = new GamehostClient({ baseUrl: "https://gamehost.test", token: "tok_abcdefgh", maxRetries: 0 });
    const error = await c.listGames().catch((e: unknown) => e);
    await tls.close();
    expect((error as Error).message).toMatch(
      /^The certificate of the proxy https:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) is not trusted, so nothing was sent to https:\/\/gamehost\.test: .*NODE_EXTRA_CA_CERTS/,
    );
  });
});

describe("behind a gateway", () => {
  it("a base URL with a path prefix keeps it, with or without a trailing slash", async () => {
    const s = await scripted((req, res) =>
      req.url.startsWith("/gamehost/") ? json(res, 200, BOOTSTRAP) : json(res, 404, { code: "X" }),
    );
    await new GamehostClient({ baseUrl: `${s.url}/gamehost/`, token: "tok_abcdefgh" }).getBootstrap();
    await new GamehostClient({ baseUrl: `${s.url}/gamehost`, token: "tok_abcdefgh" }).getBootstrap();
    expect(s.seen.map((r) => r.url)).toEqual(["/gamehost/cloud/bootstrap", "/gamehost/cloud/bootstrap"]);
  });

  it("a redirect is not followed (a create is never sent twice or turned into a GET) and names the URL to set", async () => {
    const s = await scripted((req, res) => {
      res.writeHead(308, { location: `https://corp.example/gamehost${req.url}?sig=abcdefgh12345678` });
      res.end();
    });
    const c = new GamehostClient({ baseUrl: `${s.url}/old`, token: "tok_abcdefgh" });
    const error = await c.createServer(GAME, ENV, SERVER_BODY).catch((e: unknown) => e);
    expect(s.seen).toHaveLength(1);
    expect((error as Error).message).toMatch(
      /\/old redirects POST \/games\/.* to https:\/\/corp\.example\/gamehost\/old\/games\/[^ ]*: set the base URL \(the client option baseUrl\) to https:\/\/corp\.example\/gamehost\/old\. The client follows no redirect/,
    );
    expect((error as Error).message).not.toContain("abcdefgh12345678");
  });
});
