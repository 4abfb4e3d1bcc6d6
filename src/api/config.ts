import { GamehostConfigError, type SettingOrigins, type SettingSource } from "./errors";

/** Config keys and their environment variables. One table, used by the client, the provider and docs. */
export const CONFIG_KEYS = {
  baseUrl: { key: "gamehost:baseUrl", env: "GAMEHOST_BASE_URL" },
  token: { key: "gamehost:token", env: "GAMEHOST_TOKEN" },
  maxRetries: { key: "gamehost:maxRetries", env: "GAMEHOST_MAX_RETRIES" },
  requestTimeoutMs: { key: "gamehost:requestTimeoutMs", env: "GAMEHOST_REQUEST_TIMEOUT_MS" },
  callTimeoutMs: { key: "gamehost:callTimeoutMs", env: "GAMEHOST_CALL_TIMEOUT_MS" },
  maxResponseBytes: { key: "gamehost:maxResponseBytes", env: "GAMEHOST_MAX_RESPONSE_BYTES" },
} as const;

/** Default of `callTimeoutMs`: a whole call, its retries and the answer's body included, in ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

/** Default of `maxResponseBytes`: the largest answer read into memory (16 MiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export type ConfigName = keyof typeof CONFIG_KEYS;

/** Settings a client needs; each may come from explicit options, Pulumi config or the environment. */
export interface ConnectionSettings {
  /** Base URL of the hosting API, e.g. `https://api.example.gg` or the emulator's URL. */
  baseUrl?: string | undefined;
  /** Bearer token (a user token or a game-scoped cloud token). */
  token?: string | undefined;
  /** Retries of idempotent requests (GET, DELETE) after 429, 5xx and connection errors (default 4). */
  maxRetries?: number | undefined;
  /**
   * Time allowed for response headers of an ordinary (non-watch) request, in ms (default 30 000; 0 turns it off,
   * leaving `callTimeoutMs` to end the call).
   */
  requestTimeoutMs?: number | undefined;
  /**
   * Total time of one call, in ms: every attempt, the waits between them and reading the answer's
   * body (default 120 000; a watch call gets the service's 40 s hold on top; 0 turns it off).
   */
  callTimeoutMs?: number | undefined;
  /** Largest answer read into memory, in bytes (default 16 MiB; 0 turns it off). The CSV export download streams, uncapped. */
  maxResponseBytes?: number | undefined;
  /**
   * Where the values came from, as {@link readSettings} records it, so errors say where to fix one. Leave
   * it out in code: a value given to `new GamehostClient` is then a client option.
   */
  origins?: SettingOrigins | undefined;
}

/** A lookup of a config key such as `gamehost:token` (Pulumi config, a provider's `configure` request…). */
export type ConfigLookup = ((key: string) => string | undefined) & {
  /** Set when the lookup is an explicit provider's arguments: its name (see `SettingOrigins.provider`). */
  readonly provider?: string;
  /** Set when the lookup is `pulumi do`'s flags (see `SettingOrigins.pulumiDo`). */
  readonly pulumiDo?: boolean;
};

function numberSetting(
  name: ConfigName,
  raw: string | undefined,
  origins: SettingOrigins,
): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    const { key, env } = CONFIG_KEYS[name];
    const problem = `must be a non-negative integer, got ${JSON.stringify(raw)}`;
    throw new GamehostConfigError(key, env, problem, origins);
  }
  return value;
}

/**
 * Reads settings from a config lookup first and the environment second, recording where each came
 * from. A lookup means Pulumi config (a program's or a provider's); without one the settings are a
 * client's built in code, read from the environment only. Values given explicitly by the caller win
 * over both; see {@link requireConnection}.
 */
export function readSettings(lookup?: ConfigLookup, env = process.env): ConnectionSettings {
  const sources: Partial<Record<ConfigName, SettingSource>> = {};
  const origins: SettingOrigins = {
    sources,
    pulumi: lookup !== undefined,
    provider: lookup?.provider,
    pulumiDo: lookup?.pulumiDo,
  };
  const get = (name: ConfigName): string | undefined => {
    const { key, env: envVar } = CONFIG_KEYS[name];
    // An empty value is no value (`pulumi config set --secret gamehost:token ""`, an explicit provider's
    // `token: ""`): its variable applies, as for a setting left out, and as the errors then say.
    const configured = lookup?.(key) || undefined;
    const value = configured ?? env[envVar];
    if (value === undefined || value === "") return undefined;
    sources[name] = configured !== undefined ? "config" : "env";
    return value;
  };
  return {
    origins,
    baseUrl: get("baseUrl"),
    token: get("token"),
    maxRetries: numberSetting("maxRetries", get("maxRetries"), origins),
    requestTimeoutMs: numberSetting("requestTimeoutMs", get("requestTimeoutMs"), origins),
    callTimeoutMs: numberSetting("callTimeoutMs", get("callTimeoutMs"), origins),
    maxResponseBytes: numberSetting("maxResponseBytes", get("maxResponseBytes"), origins),
  };
}

/**
 * Checks a base URL: set, parseable, http(s), without user info, query or fragment. Returns it without the
 * spaces around it and without trailing slashes.
 * A problem fails naming `gamehost:baseUrl` and `GAMEHOST_BASE_URL`, or where the value came from
 * (`origins`), never quoting the URL. User info (`http://admin:pw@host`) is refused rather than
 * stripped: the URL is printed in errors and diagnostics, and the service takes no credentials there
 * (only the bearer token).
 */
export function checkBaseUrl(given: string | undefined, origins?: SettingOrigins): string {
  const { key, env } = CONFIG_KEYS.baseUrl;
  // Spaces around a pasted value (`pulumi config set gamehost:baseUrl "https://api.example.gg "`) are
  // dropped, as the URL standard drops them; kept, every request URL would have them inside its host.
  const baseUrl = given?.trim();
  if (!baseUrl) throw new GamehostConfigError(key, env, undefined, origins);
  // `127.0.0.1:8787` does not parse and `localhost:8787` parses with the scheme `localhost:`: name the fix.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(baseUrl)) {
    const problem = `must start with http:// or https://, as in https://api.example.gg${quotedUrl(baseUrl)}`;
    throw new GamehostConfigError(key, env, problem, origins);
  }
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new GamehostConfigError(key, env, `is not a valid URL${quotedUrl(baseUrl)}`, origins);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    const problem = `must be an http(s) URL, got scheme ${JSON.stringify(parsed.protocol)}`;
    throw new GamehostConfigError(key, env, problem, origins);
  }
  if (parsed.username || parsed.password) {
    throw new GamehostConfigError(
      key,
      env,
      `must not contain a user name or password (\`user:password@\`; the token goes in ${CONFIG_KEYS.token.key})`,
      origins,
    );
  }
  // Request paths are appended to the base URL: a query or fragment there would swallow them (an empty `?` too).
  if (/[?#]/.test(baseUrl)) {
    const problem = "must be the API's root, without a query (`?…`) or fragment (`#…`)";
    throw new GamehostConfigError(key, env, problem, origins);
  }
  return baseUrl.replace(/\/+$/, "");
}

/** A character no HTTP header value can carry (C0 controls and DEL): a token holding one can never be sent. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for.
export const HEADER_CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Checks a token before it is used: a control character (most often the trailing newline of
 * a value read or pasted from a file, or `echo` into a variable) cannot go in an HTTP header, so no request could ever carry it;
 * a `Bearer ` prefix or a space around it would be sent and refused by the service with no word of why.
 * Fails naming `gamehost:token` and `GAMEHOST_TOKEN`, or where the value came from, and the
 * character's code point, never the token.
 */
export function checkToken(token: string | undefined, origins?: SettingOrigins): string | undefined {
  const found = token?.match(HEADER_CONTROL_CHARACTER);
  const bad = found?.[0];
  const { key, env } = CONFIG_KEYS.token;
  if (token !== undefined && bad === undefined) {
    // The header's whole value copied from a `curl -H "Authorization: Bearer …"` line: sent as it is, the
    // service sees `Bearer Bearer …` and answers only that no valid token came, which names no cause.
    if (/^\s*bearer\s/i.test(token)) {
      const problem =
        "starts with `Bearer ` (give the token alone: the provider sends `Authorization: Bearer <token>` itself)";
      throw new GamehostConfigError(key, env, problem, origins);
    }
    // A space pasted or quoted along with the value: sent as it is, the token is refused with no word of why.
    if (token.trim() !== token) {
      const where = token.trimStart() === token ? "ends with" : "starts with";
      const problem = `${where} a space (give the token alone)`;
      throw new GamehostConfigError(key, env, problem, origins);
    }
  }
  if (token === undefined || found?.index === undefined || bad === undefined) return token;
  const code = `U+${bad.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  const where = token.slice(found.index).trim() === "" ? "ends with" : "contains";
  const named = CONTROL_NAMES[bad] ? ` (${CONTROL_NAMES[bad]})` : "";
  const problem = `${where} a control character, ${code}${named}, which no HTTP header can carry (a newline read or pasted from a file along with the token is the usual cause: set the token alone, e.g. with \`printf %s\`)`;
  throw new GamehostConfigError(key, env, problem, origins);
}

const CONTROL_NAMES: Readonly<Record<string, string>> = {
  "\n": "a newline",
  "\r": "a carriage return",
  "\t": "a tab",
  "\u0000": "a NUL",
};

/**
 * Where the settings of a client came from: those {@link readSettings} recorded (`given.origins`, from a
 * Pulumi face), else each value given to the client is a client option and the rest came from `env`.
 */
export function originsOf(given: ConnectionSettings, env: ConnectionSettings): SettingOrigins {
  if (given.origins) return given.origins;
  const sources: Partial<Record<ConfigName, SettingSource>> = { ...env.origins?.sources };
  for (const name of Object.keys(CONFIG_KEYS) as ConfigName[]) {
    if (given[name] !== undefined) sources[name] = "option";
  }
  return { sources, pulumi: false };
}

/** Settings with base URL and token checked: a missing one fails naming its config key and env var. */
export function requireConnection(settings: ConnectionSettings): ConnectionSettings & {
  baseUrl: string;
  token: string;
} {
  const baseUrl = checkBaseUrl(settings.baseUrl, settings.origins);
  const token = checkToken(settings.token, settings.origins);
  if (!token)
    throw new GamehostConfigError(CONFIG_KEYS.token.key, CONFIG_KEYS.token.env, undefined, settings.origins);
  return { ...settings, baseUrl, token };
}

/**
 * ` (got "…")` for a base URL that is not a URL, unless it may hold a credential (`user:pw@`, a query):
 * errors are printed and logged.
 */
function quotedUrl(text: string): string {
  return /[@?#]/.test(text) || text.length > 200 ? "" : ` (got ${JSON.stringify(text)})`;
}
