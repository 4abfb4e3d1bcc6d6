/**
 * Where the reader of an error changes a setting (the token, the base URL, a timeout): by the client option,
 * the Pulumi config key or the environment variable its value came from.
 */

/**
 * Where a setting's value came from: `option` (passed to `new GamehostClient` in code), `config` (Pulumi
 * config: the stack's, or a provider's arguments) or `env` (a `GAMEHOST_*` environment variable).
 */
export type SettingSource = "option" | "config" | "env";

/**
 * Where a client's settings came from, so its errors say where to fix one: `pulumi` is true for a client
 * a Pulumi program or provider built from its config (the only one told to run `pulumi config set`).
 */
export interface SettingOrigins {
  /** Source of each setting that has a value, by option name (`baseUrl`, `token`…). */
  sources: Readonly<Partial<Record<string, SettingSource>>>;
  pulumi: boolean;
  /**
   * The name of the explicit provider (`pulumi:providers:gamehost`) whose arguments are the `config` here: it
   * reads no stack config, so a setting is fixed where the provider is declared.
   */
  provider?: string | undefined;
  /**
   * The settings are `pulumi do`'s (its provider has no name): it reads its `--gamehost:*` flags and the
   * environment, never the stack's config, so `pulumi config set` would change nothing.
   */
  pulumiDo?: boolean | undefined;
}

/** A setting by its three names: option, Pulumi config key, environment variable. */
export interface SettingNames {
  name: string;
  key: string;
  envVar: string;
}

/** `pulumi do`'s flag of a setting: `baseUrl` → `gamehost:base-url` (the CLI's kebab-case of the config key). */
export const flagOf = (name: string): string =>
  `gamehost:${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export const settingNames = (key: string, envVar: string): SettingNames => ({
  name: key.slice(key.indexOf(":") + 1),
  key,
  envVar,
});

/** `pulumi config set [--secret] <key> <value>`, the command that changes a Pulumi config setting. */
export const configSet = ({ key }: SettingNames, value = "<value>") =>
  `\`pulumi config set ${key.includes("token") ? "--secret " : ""}${key} ${value}\``;

/**
 * Where to change a setting, after a verb (`set`, `check`): only where its value came from, and for a
 * setting with no value every place it may come from. Without origins: the Pulumi config and env var.
 */
export function whereToSet(
  verb: string,
  setting: SettingNames & { value: string },
  origins: SettingOrigins | undefined,
): string {
  const { name, key, envVar, value } = setting;
  switch (origins?.sources[name]) {
    case "option":
      return `${verb} the client option ${name}`;
    case "env":
      return `${verb} the ${envVar} environment variable`;
    case "config":
      if (origins?.provider !== undefined) return `${verb} the ${name} of provider "${origins.provider}"`;
      return `${verb} ${key} (${configSet(setting, value)})`;
  }
  if (origins?.provider !== undefined)
    return `${verb} the ${name} of provider "${origins.provider}" or the ${envVar} environment variable`;
  return origins?.pulumi === false
    ? `${verb} the client option ${name} or the ${envVar} environment variable`
    : `${verb} ${key} (${configSet(setting, value)}) or ${envVar}`;
}

const TOKEN = { ...settingNames("gamehost:token", "GAMEHOST_TOKEN"), value: "<token>" };
export const BASE_URL = { ...settingNames("gamehost:baseUrl", "GAMEHOST_BASE_URL"), value: "<url>" };
export const setToken = (origins: SettingOrigins | undefined) => whereToSet("set", TOKEN, origins);
export const checkBaseUrl = (origins: SettingOrigins | undefined) => whereToSet("check", BASE_URL, origins);

/**
 * A setting named where a network error's reader changes it: a client built in code (`pulumi` false) by
 * its option or variable, never a Pulumi config key it does not read; a Pulumi client by key and variable.
 */
function networkSetting(
  setting: SettingNames,
  origins: SettingOrigins | undefined,
  pulumiForm: string,
): string {
  if (origins?.pulumi !== false) return pulumiForm;
  return origins.sources[setting.name] === "env"
    ? `the ${setting.envVar} environment variable`
    : origins.sources[setting.name] === "option"
      ? `the client option ${setting.name}`
      : `the client option ${setting.name} or the ${setting.envVar} environment variable`;
}
const REQUEST_TIMEOUT = settingNames("gamehost:requestTimeoutMs", "GAMEHOST_REQUEST_TIMEOUT_MS");
export const timeoutSetting = (origins: SettingOrigins | undefined) =>
  networkSetting(REQUEST_TIMEOUT, origins, "gamehost:requestTimeoutMs (GAMEHOST_REQUEST_TIMEOUT_MS)");
export const baseUrlSetting = (origins: SettingOrigins | undefined) =>
  networkSetting(BASE_URL, origins, "gamehost:baseUrl");

/**
 * What to do when a success answer is not JSON (the service always answers JSON): the base URL names
 * something else, typically a website answering its page for every path.
 */
export function notTheApiAdvice(baseUrl: string, origins: SettingOrigins | undefined): string {
  return `${baseUrl} is not the hosting API, which answers JSON: ${useTheApiRoot(origins)}`;
}

/** The fix of a base URL that names something other than the API's root (a path, another server). */
export const useTheApiRoot = (origins: SettingOrigins | undefined) =>
  `${checkBaseUrl(origins)}; it must be the API's root (e.g. https://api.example.gg, no path, or the prefix a gateway serves it under, e.g. https://corp.example/gamehost).`;
