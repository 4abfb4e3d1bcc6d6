import { BlockList, isIP } from "node:net";
import type { Dispatcher } from "undici";
import { GamehostError, PROXY_TUNNEL_FAILURE } from "./errors";
import type { ProxyChoice, ProxyEnvironment } from "./proxyChoice";

export type { ProxyChoice, ProxyEnvironment };

/**
 * The proxy environment, read as Go's net/http `ProxyFromEnvironment` reads it (what every Go-based
 * Pulumi provider, and the Pulumi CLI itself, honours), so one company setting serves them all:
 * - `HTTPS_PROXY` for https:// requests and `HTTP_PROXY` for http:// ones (each also lowercase, the
 *   uppercase name first, an empty value as unset); an https:// request never falls back to `HTTP_PROXY`.
 * - `NO_PROXY` (or `no_proxy`): `*`, host names (`example.com` also covers its subdomains, `.example.com`
 *   only them), IP addresses, CIDR ranges (`10.0.0.0/8`), each with an optional `:port`.
 * - `localhost` and loopback addresses are never proxied: a local emulator stays reachable directly.
 * - A proxy without a scheme (`proxy.corp:3128`) is `http://`; `https://` is reached over TLS, and `socks5://`
 *   is handed to undici's SOCKS support (Go reads it too).
 *
 * undici's `EnvHttpProxyAgent` reads the same variables but differs on each point above (it sends https://
 * through `HTTP_PROXY`, proxies localhost, has no CIDR), and keeps its choice to itself, which an error
 * needs to name the proxy that failed: so the choice is made here, once, and undici's `ProxyAgent` sends.
 */

const PROXY_SCHEMES = new Set(["http:", "https:", "socks5:", "socks:"]);

/** First non-empty value of the names, uppercase first, as Go's `getEnvAny`. */
function firstSet(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
): { value: string; name: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") return { value: value.trim(), name };
  }
  return undefined;
}

function parseProxy(value: string, envVar: string): ProxyChoice {
  // Go reads `proxy.corp:3128` (no scheme, or a scheme with no host) as http://proxy.corp:3128.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new GamehostError(
      `Environment variable ${envVar} is not a proxy URL (expected http://<host>:<port> or http://<user>:<password>@<host>:<port>): change or unset it.`,
    );
  }
  if (!PROXY_SCHEMES.has(url.protocol) || url.hostname === "") {
    throw new GamehostError(
      `Environment variable ${envVar} must be an http://, https:// or socks5:// proxy URL, got scheme ${JSON.stringify(url.protocol)}: change or unset it.`,
    );
  }
  const secrets = new Set<string>();
  // The password, not the user name alone: a short user name ("proxy") replaced as a word would garble the
  // messages that name the proxy.
  for (const part of [url.password]) {
    if (!part) continue;
    secrets.add(part);
    try {
      secrets.add(decodeURIComponent(part));
    } catch {
      // Not valid percent-encoding: the raw part is the secret as it may be echoed.
    }
  }
  if (url.username || url.password) {
    secrets.add(`${url.username}:${url.password}`);
    secrets.add(Buffer.from(`${decodeSafe(url.username)}:${decodeSafe(url.password)}`).toString("base64"));
  }
  return {
    uri: url.href,
    shown: `${url.protocol}//${url.host}`,
    envVar,
    hasCredentials: url.username !== "" || url.password !== "",
    secrets: [...secrets],
  };
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** One `NO_PROXY` entry, as Go's httpproxy parses it. */
type Bypass =
  | { kind: "all" }
  | { kind: "ip"; list: BlockList }
  | { kind: "domain"; host: string; exact: boolean; port: string };

function parseNoProxy(value: string): Bypass[] {
  const out: Bypass[] = [];
  for (const raw of value.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") {
      out.push({ kind: "all" });
      continue;
    }
    const slash = entry.indexOf("/");
    if (slash !== -1) {
      const address = entry.slice(0, slash);
      const prefix = Number(entry.slice(slash + 1));
      const family = isIP(address);
      if (family === 0 || !Number.isInteger(prefix)) continue;
      const list = new BlockList();
      list.addSubnet(address, prefix, family === 6 ? "ipv6" : "ipv4");
      out.push({ kind: "ip", list });
      continue;
    }
    const bare = entry.replace(/^\[(.*)\]$/, "$1");
    if (isIP(bare)) {
      const list = new BlockList();
      list.addAddress(bare, isIP(bare) === 6 ? "ipv6" : "ipv4");
      out.push({ kind: "ip", list });
      continue;
    }
    const withPort = entry.match(/^(\[[^\]]+\]|[^:]+):(\d+)$/);
    let host = (withPort?.[1] ?? entry).replace(/^\[(.*)\]$/, "$1");
    const port = withPort?.[2] ?? "";
    if (host.startsWith("*.")) host = host.slice(1);
    // `example.com` covers the host and its subdomains; `.example.com` only the subdomains.
    const exact = !host.startsWith(".");
    out.push({ kind: "domain", host: exact ? `.${host}` : host, exact, port });
  }
  return out;
}

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith("127.");
  if (family === 6) {
    const list = new BlockList();
    list.addAddress("::1", "ipv6");
    list.addSubnet("::ffff:127.0.0.0", 104, "ipv6");
    return list.check(host, "ipv6");
  }
  return false;
}

/** Reads the proxy environment (see the module's comment). Throws a {@link GamehostError} for a proxy URL it cannot use. */
export function proxyEnvironment(env: NodeJS.ProcessEnv = process.env): ProxyEnvironment {
  const httpSet = firstSet(env, ["HTTP_PROXY", "http_proxy"]);
  const httpsSet = firstSet(env, ["HTTPS_PROXY", "https_proxy"]);
  const noProxy = firstSet(env, ["NO_PROXY", "no_proxy"])?.value ?? "";
  const http = httpSet ? parseProxy(httpSet.value, httpSet.name) : undefined;
  const https = httpsSet ? parseProxy(httpsSet.value, httpsSet.name) : undefined;
  const bypasses = parseNoProxy(noProxy);
  const bypassed = (url: URL): boolean => {
    const host = url.hostname
      .toLowerCase()
      .replace(/^\[(.*)\]$/, "$1")
      .replace(/\.$/, "");
    if (isLoopback(host)) return true;
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const family = isIP(host);
    for (const bypass of bypasses) {
      if (bypass.kind === "all") return true;
      if (bypass.kind === "ip") {
        if (family !== 0 && bypass.list.check(host, family === 6 ? "ipv6" : "ipv4")) return true;
        continue;
      }
      if (bypass.port !== "" && bypass.port !== port) continue;
      if (host.endsWith(bypass.host) || (bypass.exact && host === bypass.host.slice(1))) return true;
    }
    return false;
  };
  return {
    http,
    https,
    noProxy,
    proxyFor(url) {
      const proxy = url.protocol === "https:" ? https : url.protocol === "http:" ? http : undefined;
      return proxy && !bypassed(url) ? proxy : undefined;
    },
  };
}

/**
 * Marks what fails the CONNECT exchange of a tunnel (a proxy that hangs or hangs up before answering it):
 * its codes are those of a request the service got and did not answer, but nothing reached the service.
 */
function tagTunnelFailures(client: import("undici").Client): import("undici").Client {
  const connect = client.connect.bind(client) as (
    options: Dispatcher.ConnectOptions,
  ) => Promise<Dispatcher.ConnectData>;
  (client as { connect: unknown }).connect = (options: Dispatcher.ConnectOptions, callback?: unknown) => {
    if (callback !== undefined) return (connect as (o: unknown, c: unknown) => void)(options, callback);
    return connect(options).catch((error: unknown) => {
      if (error instanceof Error) Object.defineProperty(error, PROXY_TUNNEL_FAILURE, { value: true });
      throw error;
    });
  };
  return client;
}

/**
 * A dispatcher that sends each request directly or through the proxy the environment names for it. An
 * http:// request goes through an http:// proxy as a plain proxied request (absolute URL), as Go and curl
 * send it, not as a CONNECT tunnel that proxies commonly allow to port 443 only.
 */
export function proxyingDispatcher(
  undici: typeof import("undici"),
  proxies: ProxyEnvironment,
  connectMs: number,
): Dispatcher {
  const direct = new undici.Agent({ connect: { timeout: connectMs } });
  if (!proxies.http && !proxies.https) return direct;
  const agents = new Map<string, Dispatcher>();
  const through = (proxy: ProxyChoice): Dispatcher => {
    let agent = agents.get(proxy.uri);
    if (!agent) {
      agent = new undici.ProxyAgent({
        uri: proxy.uri,
        proxyTunnel: false,
        connect: { timeout: connectMs },
        // A proxy that accepts the connection but never answers the CONNECT fails in the connect time,
        // naming the proxy, not at the call's deadline naming the service.
        clientFactory: (origin, options) =>
          tagTunnelFailures(new undici.Client(origin, { ...options, headersTimeout: connectMs })),
      });
      agents.set(proxy.uri, agent);
    }
    return agent;
  };
  // A plain proxied request is sent here, not by undici's ProxyAgent: its wrapper for one (proxyTunnel:
  // false) drops what the handler's onHeaders returns, so a retry interceptor's pause, while it decides on a
  // 429 or 5xx, let the answer's body into a request it had not started (a TypeError, and no retry).
  const plain = new Map<string, Dispatcher>();
  const plainly = (
    proxy: ProxyChoice,
    options: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
  ) => {
    const proxyUrl = new URL(proxy.uri);
    let pool = plain.get(proxyUrl.origin);
    if (!pool) {
      pool = new undici.Pool(proxyUrl.origin, { connect: { timeout: connectMs } });
      plain.set(proxyUrl.origin, pool);
    }
    const origin = new URL(String(options.origin));
    const headers: Record<string, string | string[] | undefined> = {
      ...headerRecord(options.headers),
      host: origin.host,
    };
    if (proxyUrl.username || proxyUrl.password) {
      const basic = `${decodeURIComponent(proxyUrl.username)}:${decodeURIComponent(proxyUrl.password)}`;
      headers["proxy-authorization"] = `Basic ${Buffer.from(basic).toString("base64")}`;
    }
    return pool.dispatch(
      { ...options, origin: proxyUrl.origin, path: `${origin.origin}${options.path}`, headers },
      refusingProxyAuth(undici, handler),
    );
  };
  class Router extends undici.Dispatcher {
    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      const origin = options.origin;
      const target = origin ? new URL(String(origin)) : undefined;
      const proxy = target ? proxies.proxyFor(target) : undefined;
      if (proxy && target?.protocol === "http:" && new URL(proxy.uri).protocol === "http:")
        return plainly(proxy, options, handler);
      return (proxy ? through(proxy) : direct).dispatch(options, handler);
    }
    override close(): Promise<void>;
    override close(callback: () => void): void;
    override close(callback?: () => void): Promise<void> | void {
      const done = Promise.all(
        [direct, ...agents.values(), ...plain.values()].map((agent) => agent.close()),
      ).then(() => {});
      if (!callback) return done;
      void done.then(callback);
    }
    override destroy(): Promise<void>;
    override destroy(err: Error | null): Promise<void>;
    override destroy(callback: () => void): void;
    override destroy(err: Error | null, callback: () => void): void;
    override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
      const err = typeof a === "function" ? null : (a ?? null);
      const callback = typeof a === "function" ? a : b;
      const done = Promise.all(
        [direct, ...agents.values(), ...plain.values()].map((agent) => agent.destroy(err)),
      ).then(() => {});
      if (!callback) return done;
      void done.then(callback);
    }
  }
  return new Router();
}

/** A request's headers as a record (undici takes a record, a flat [name, value, …] list or pairs). */
function headerRecord(
  headers: Dispatcher.DispatchOptions["headers"],
): Record<string, string | string[] | undefined> {
  if (!headers) return {};
  if (Array.isArray(headers)) {
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < headers.length; i += 2)
      out[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
    return out;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function") {
    const out: Record<string, string> = {};
    for (const [k, v] of headers as Iterable<[string, string]>) out[k.toLowerCase()] = v;
    return out;
  }
  return { ...(headers as Record<string, string | string[] | undefined>) };
}

/**
 * A 407 from a plain proxy fails the request with undici's own error for it, as its ProxyAgent does, so the
 * message that names the proxy's refusal is the same whichever sent the request.
 */
function refusingProxyAuth(
  undici: typeof import("undici"),
  handler: Dispatcher.DispatchHandler,
): Dispatcher.DispatchHandler {
  let refused = false;
  return {
    onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
    onRequestUpgrade: (controller, status, headers, socket) =>
      handler.onRequestUpgrade?.(controller, status, headers, socket),
    onResponseStart(controller, status, headers, message) {
      if (status === 407) {
        refused = true;
        controller.abort(new undici.errors.InvalidArgumentError("Proxy Authentication Required (407)"));
        return;
      }
      handler.onResponseStart?.(controller, status, headers, message);
    },
    onResponseData: (controller, chunk) =>
      refused ? undefined : handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) =>
      refused ? undefined : handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  };
}
