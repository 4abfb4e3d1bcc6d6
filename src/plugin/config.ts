/**
 * The provider's configuration: `gamehost:baseUrl`, `gamehost:token`, `gamehost:maxRetries`,
 * `gamehost:requestTimeoutMs`, `gamehost:callTimeoutMs` and `gamehost:maxResponseBytes`, each falling back to its `GAMEHOST_*` environment variable, as in the
 * dynamic face. One table (`CONFIG_KEYS`) names them everywhere.
 */
import { z } from "zod";
import { type ClientOptions, GamehostClient } from "../api/client";
import {
  CONFIG_KEYS,
  type ConfigLookup,
  checkBaseUrl,
  checkToken,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  readSettings,
  requireConnection,
} from "../api/config";
import { withLookalikeHint } from "../api/configHint";
import { GamehostConfigError } from "../api/errors";
import type { CheckFailure } from "../kinds/checks";

/**
 * What a number setting takes. On each branch, not only the union: zod reports a string input by the
 * string branch's own issue, which read `Invalid string: must match pattern /^\d+$/` for `30s`.
 */
const WHOLE_NUMBER = "must be a non-negative integer";

const wholeNumber = z
  .union(
    [
      z.number({ error: WHOLE_NUMBER }).int({ error: WHOLE_NUMBER }).min(0, { error: WHOLE_NUMBER }),
      z.string({ error: WHOLE_NUMBER }).regex(/^\d+$/, { error: WHOLE_NUMBER }),
    ],
    { error: WHOLE_NUMBER },
  )
  .optional();

/** The provider's inputs (config keys without their `gamehost:` namespace), with descriptions. */
export const ProviderConfig = z.object({
  baseUrl: z
    .string()
    .optional()
    .describe(
      `Base URL of the hosting API, e.g. \`https://api.example.gg\` or the emulator's URL. Falls back to ${CONFIG_KEYS.baseUrl.env}.`,
    ),
  token: z
    .string()
    .optional()
    .describe(
      `Bearer token: a user token, or a game-scoped cloud token. A secret. Falls back to ${CONFIG_KEYS.token.env}.`,
    ),
  maxRetries: wholeNumber.describe(
    `Retries of idempotent requests (GET, DELETE) after 429, 5xx and connection errors (default 4). Falls back to ${CONFIG_KEYS.maxRetries.env}.`,
  ),
  requestTimeoutMs: wholeNumber.describe(
    `Time allowed for the response headers of a request, in ms (default 30000; 0 turns it off, leaving callTimeoutMs to end the call). Falls back to ${CONFIG_KEYS.requestTimeoutMs.env}.`,
  ),
  callTimeoutMs: wholeNumber.describe(
    `Total time of one call, in ms: every attempt, the waits between them and reading the answer (default ${DEFAULT_CALL_TIMEOUT_MS}; a watch call gets the service's 40 s hold on top; 0 turns it off). Falls back to ${CONFIG_KEYS.callTimeoutMs.env}.`,
  ),
  maxResponseBytes: wholeNumber.describe(
    `Largest answer read into memory, in bytes (default ${DEFAULT_MAX_RESPONSE_BYTES}, 16 MiB; 0 turns it off). The lobby-history CSV download streams and is not capped. Falls back to ${CONFIG_KEYS.maxResponseBytes.env}.`,
  ),
});

/** Properties of the provider's inputs that are secrets. */
export const SECRET_CONFIG = ["token"] as const;

/**
 * The name of an explicit provider from its URN (`…::pulumi:providers:gamehost::eu` → `eu`), or undefined
 * for a default provider (`default`, `default_0_1_0`), configured from the stack's config, or `pulumi do`'s.
 */
export function explicitProviderName(urn: string | undefined): string | undefined {
  if (!urn?.includes("::pulumi:providers:")) return undefined;
  const name = urn.slice(urn.lastIndexOf("::") + 2);
  return name === "" || /^default(_|$)/.test(name) ? undefined : name;
}

/**
 * Whether the URN is `pulumi do`'s provider, which has no name (`…::pulumi:providers:gamehost::`): it is
 * configured by the command's `--gamehost:*` flags and the environment, not by the stack's config.
 */
export function isPulumiDo(urn: string | undefined): boolean {
  return urn?.includes("::pulumi:providers:") === true && urn.endsWith("::");
}

/**
 * A config lookup (`gamehost:baseUrl` → value) over the provider's inputs and Configure's variables;
 * `provider` names an explicit provider, so that errors send the user to its arguments, not the stack's config.
 */
export function lookupOf(
  inputs: Record<string, unknown>,
  variables: ReadonlyMap<string, string>,
  provider?: string,
  pulumiDo = false,
): ConfigLookup {
  const lookup = (key: string) => {
    const name = key.slice(key.indexOf(":") + 1);
    const value = inputs[name];
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
    // An input set to null is unset (`pulumi do` sends every provider input, the unset ones as null, and
    // their variables as the text "null"): the environment variable applies.
    if (value === null) return undefined;
    return variables.get(key.replace(":", ":config:")) ?? undefined;
  };
  if (pulumiDo) return Object.assign(lookup, { pulumiDo });
  return provider === undefined ? lookup : Object.assign(lookup, { provider });
}

/**
 * Whether the engine must not be told which input a failure is of. The engine prints a failure of a
 * named property as `property <name> value {<value>} has a problem`, the value in clear unless the input
 * is a secret: the token set in plain text, or a base URL whose user info or query may hold a credential,
 * would be printed. Such a failure names no property; its reason names the setting (never its value).
 */
function mayHoldCredential(name: string, value: unknown): boolean {
  if (name === "token") return true;
  return name === "baseUrl" && typeof value === "string" && /[@?#]/.test(value);
}

/**
 * CheckConfig's failures: each names the property (unless the engine would print a credential with it:
 * {@link mayHoldCredential}), what is wrong and where to set it. A setting left
 * out may come from its environment variable; only the base URL is needed before the first call.
 */
export function checkConfig(
  inputs: Record<string, unknown>,
  env = process.env,
  provider?: string,
): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const parsed = ProviderConfig.safeParse(inputs);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      failures.push({ property: String(issue.path[0] ?? ""), reason: issue.message });
    }
    return failures;
  }
  const failed = (error: unknown) => {
    if (!(error instanceof GamehostConfigError)) throw error;
    const name = error.key.slice(error.key.indexOf(":") + 1);
    // A key set in another case or misspelt (`gamehost:baseURL`) arrives as an input of its own name.
    withLookalikeHint(
      error,
      Object.keys(inputs).map((key) => `gamehost:${key}`),
    );
    failures.push({ property: mayHoldCredential(name, inputs[name]) ? "" : name, reason: error.message });
  };
  let settings: ReturnType<typeof readSettings>;
  try {
    settings = readSettings(lookupOf(inputs, new Map(), provider), env);
  } catch (error) {
    failed(error);
    return failures;
  }
  // Each setting is checked on its own, so one run names every setting at fault.
  for (const check of [
    // An explicit provider's message names the provider; a default one's, the stack's config and the variable.
    () => checkBaseUrl(settings.baseUrl, provider === undefined ? undefined : settings.origins),
    () => checkToken(settings.token, settings.origins),
  ]) {
    try {
      check();
    } catch (error) {
      failed(error);
    }
  }
  return failures;
}

/** A client for one operation, from the configured lookup: a missing token fails naming key and env var. */
export function clientOf(
  lookup: ConfigLookup,
  options: { tokenRequired: boolean },
  extra: Pick<ClientOptions, "retry" | "onEvent"> = {},
): GamehostClient {
  const settings = readSettings(lookup);
  return new GamehostClient({
    ...(options.tokenRequired ? requireConnection(settings) : settings),
    ...extra,
  });
}
