/**
 * What the state keeps of the stack's config on the dynamic face. Its resources' provider
 * (`pulumi:providers:pulumi-nodejs`) is registered with the whole stack config as its inputs, secrets
 * encrypted and everything else as it is, at the first dynamic resource. The plugin's schema declares the
 * token secret and its CheckConfig refuses a bad URL before anything is recorded, so this is the dynamic
 * face's alone: checked in the program, before that registration.
 */
import * as pulumi from "@pulumi/pulumi";
import { CONFIG_KEYS, checkBaseUrl } from "../api/config";
import { unreadKeysWarning } from "../api/configHint";

/**
 * `pulumi.runtime.isConfigSecret`: exported by every SDK the package supports (3.248 and later), though its
 * declaration is marked internal. Absent, nothing can tell a plain value from a secret, and nothing is said.
 */
const isConfigSecret = (pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean })
  .isConfigSecret;

let warned = false;
let unreadChecked = false;

/**
 * Before a dynamic resource is registered: fails on a `gamehost:baseUrl` in the config that is refused and
 * may hold a credential (user info, a query), which the state would otherwise keep, though no call could
 * use it; warns, once per program, that a `gamehost:token` in plain text is kept unencrypted, and of
 * `gamehost:` keys the package does not read.
 */
export function checkConfigKeptInState(): void {
  const baseUrl = pulumi.runtime.getConfig(CONFIG_KEYS.baseUrl.key);
  if (baseUrl !== undefined && /[@?#]/.test(baseUrl)) checkBaseUrl(baseUrl);
  if (!unreadChecked) {
    unreadChecked = true;
    const present = Object.keys(pulumi.runtime.allConfig()).filter((key) => key.startsWith("gamehost:"));
    const unread = unreadKeysWarning(
      Object.values(CONFIG_KEYS).map((c) => c.key),
      present,
    );
    if (unread !== undefined) void pulumi.log.warn(unread);
  }
  if (warned || isConfigSecret === undefined) return;
  const { key } = CONFIG_KEYS.token;
  if (pulumi.runtime.getConfig(key) === undefined || isConfigSecret(key)) return;
  warned = true;
  // The program cannot tell which file holds it: a value in Pulumi.yaml's `config:` is every stack's, and
  // stays there (committed with the project) after one stack sets its own as a secret.
  void pulumi.log.warn(
    `${key} is set in plain text: Pulumi.${pulumi.getStack()}.yaml (or Pulumi.yaml's config, which every stack of the project shares) holds it unencrypted, and so does the stack's state, where the provider of dynamic resources keeps the stack's config. ` +
      `Set it as a secret on each stack: \`pulumi config set --secret ${key} <token>\`, and remove it from Pulumi.yaml if it is there (the state is encrypted at the next \`pulumi up\`).`,
  );
}
