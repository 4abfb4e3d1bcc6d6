import * as pulumi from "@pulumi/pulumi";
import { CONFIG_KEYS } from "../api/config";

/**
 * `pulumi.runtime.isConfigSecret`: exported by every SDK the package supports (3.248 and later), though its
 * declaration is marked internal. Absent, nothing can tell a plain value from a secret, and nothing is said.
 */
const isConfigSecret = (pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean })
  .isConfigSecret;

let warned = false;

/**
 * Warns, once per program, when `gamehost:token` is in the stack's config in plain text. The dynamic
 * resources' provider (`pulumi:providers:pulumi-nodejs`) keeps the whole stack config as its inputs, so
 * the state then holds the token unencrypted too; the plugin's schema declares the token secret, so its
 * provider's state is encrypted either way, and this is the dynamic face's alone.
 */
export function warnIfPlainToken(): void {
  if (warned || isConfigSecret === undefined) return;
  const { key } = CONFIG_KEYS.token;
  if (pulumi.runtime.getConfig(key) === undefined || isConfigSecret(key)) return;
  warned = true;
  void pulumi.log.warn(
    `${key} is set in plain text: Pulumi.${pulumi.getStack()}.yaml holds it unencrypted, and so does the stack's state, where the provider of dynamic resources keeps the stack's config. ` +
      `Set it as a secret: \`pulumi config set --secret ${key} <token>\` (the state is encrypted at the next \`pulumi up\`).`,
  );
}
