import { GamehostConfigError } from "./errors";

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
  /** Retries of idempotent requests (GET, DELETE) after 429, 5xx and connection errors. */
  maxRetries?: number | undefined;
  /** Time allowed for response headers of an ordinary (non-watch) request, in ms. */
  requestTimeoutMs?: number | undefined;
  /**
   * Total time of one call, in ms: every attempt, the waits between them and reading the answer's
   * body (default 120 000; a watch call gets the service's 40 s hold on top).
   */
  callTimeoutMs?: number | undefined;
  /** Largest answer read into memory, in bytes (default 16 MiB). The CSV export download streams, uncapped. */
  maxResponseBytes?: number | undefined;
}

/** A lookup of a config key such as `gamehost:token` (Pulumi config, a provider's `configure` request…). */
export type ConfigLookup = (key: string) => string | undefined;

function numberSetting(name: ConfigName, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    const { key, env } = CONFIG_KEYS[name];
    throw new GamehostConfigError(key, env, `must be a non-negative integer, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * Reads settings from a config lookup first and the environment second. Values given explicitly
 * by the caller win over both; see {@link requireConnection}.
 */
export function readSettings(lookup: ConfigLookup = () => undefined, env = process.env): ConnectionSettings {
  const get = (name: ConfigName): string | undefined => {
    const { key, env: envVar } = CONFIG_KEYS[name];
    const value = lookup(key) ?? env[envVar];
    return value === "" ? undefined : value;
  };
  return {
    baseUrl: get("baseUrl"),
    token: get("token"),
    maxRetries: numberSetting("maxRetries", get("maxRetries")),
    requestTimeoutMs: numberSetting("requestTimeoutMs", get("requestTimeoutMs")),
    callTimeoutMs: numberSetting("callTimeoutMs", get("callTimeoutMs")),
    maxResponseBytes: numberSetting("maxResponseBytes", get("maxResponseBytes")),
  };
}

/**
 * Checks a base URL: set, parseable, http(s), without user info. Returns it without trailing slashes.
 * A problem fails naming `gamehost:baseUrl` and `GAMEHOST_BASE_URL`, never quoting the URL. User info
 * (`http://admin:pw@host`) is refused rather than stripped: the URL is printed in errors and
 * diagnostics, and the service takes no credentials there (only the bearer token).
 */
export function checkBaseUrl(baseUrl: string | undefined): string {
  const { key, env } = CONFIG_KEYS.baseUrl;
  if (!baseUrl) throw new GamehostConfigError(key, env);
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new GamehostConfigError(key, env, "is not a valid URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new GamehostConfigError(key, env, "must be an http(s) URL");
  }
  if (parsed.username || parsed.password) {
    throw new GamehostConfigError(
      key,
      env,
      `must not contain a user name or password (\`user:password@\`; the token goes in ${CONFIG_KEYS.token.key})`,
    );
  }
  return baseUrl.replace(/\/+$/, "");
}

/** Settings with base URL and token checked: a missing one fails naming its config key and env var. */
export function requireConnection(settings: ConnectionSettings): ConnectionSettings & {
  baseUrl: string;
  token: string;
} {
  const baseUrl = checkBaseUrl(settings.baseUrl);
  const { token } = settings;
  if (!token) throw new GamehostConfigError(CONFIG_KEYS.token.key, CONFIG_KEYS.token.env);
  return { ...settings, baseUrl, token };
}
