/**
 * How the native face's data sources invoke the provider plugin (`gamehost:index:<name>`); the wrappers in
 * ./generated/functions.ts call these. A failed invoke reaches the program as the plugin's message alone.
 */
import * as pulumi from "@pulumi/pulumi";
import { GamehostError, withMessageAsStack } from "../api/errors";
import { withoutSecrets } from "../api/redact";
import { firstOfItsCause } from "../dynamic/reportedOnce";
import { whenReady } from "../dynamic/runFunction";
import { settledApart } from "../dynamic/settledApart";
import { FUNCTIONS } from "../kinds/lazyFunctions";
import { PACKAGE_VERSION, PLUGIN_DOWNLOAD_URL } from "../version";

const token = (name: string) => `gamehost:index:${name}`;

/**
 * The SDK rejects a failed invoke with a bare `Error` (the engine's text, prefixed
 * `invocation of <token> returned an error: `, or `Invoke of '<token>' failed: ` for argument
 * failures): such an error prints with its stack trace. The plugin's message already names the cause
 * and the fix, so it is rethrown alone, as the package's own error (printed as its message only), the
 * way the program-side data sources fail, and once per cause as they are.
 */
function invokeError(name: string, error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const prefixes = [
    `invocation of ${token(name)} returned an error: `,
    `Invoke of '${token(name)}' failed: `,
  ];
  const prefix = prefixes.find((p) => error.message.startsWith(p)) ?? "";
  // A cause every invoke meets (a wrong token) is printed once: see firstOfItsCause.
  return firstOfItsCause(new GamehostError(error.message.slice(prefix.length)));
}

/**
 * Invokes the plugin's data source `name` with plain arguments. The package's version goes with the call,
 * as with the resources, so data sources and resources share one default provider (`default_<version>_<download URL>`)
 * and the engine runs the plugin of this version.
 */
export function invokePlugin<R>(
  name: keyof typeof FUNCTIONS,
  args: Record<string, unknown>,
  opts?: pulumi.InvokeOptions,
  secrets: readonly string[] = [],
): Promise<R> {
  // Settled apart from the work: the rethrow below, after an await, must not send Node 20 searching the
  // promises of the program's Outputs (see settledApart).
  return settledApart(async () => {
    try {
      return (await pulumi.runtime.invoke(token(name), args, {
        version: PACKAGE_VERSION,
        pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
        ...opts,
      })) as R;
    } catch (error) {
      throw withMessageAsStack(withoutSecrets(invokeError(name, error), secrets));
    }
  });
}

/**
 * The Output form: runs once its arguments are known and its `dependsOn` resources exist, as the
 * program-side data sources do. Resolving the arguments here (not in the SDK's invoke) keeps a failed
 * argument (another data source's error) from being reported once more, with a stack trace, by every
 * invoke it reaches; its error reaches the program once, as itself.
 */
export function invokePluginOutput<R>(
  name: keyof typeof FUNCTIONS,
  args: unknown,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<R> {
  const { dependsOn, ...invokeOptions } = opts ?? {};
  return whenReady(args, dependsOn, FUNCTIONS[name].secret, (resolved, secrets) =>
    invokePlugin<R>(
      name,
      { ...(resolved as Record<string, unknown>) },
      invokeOptions as pulumi.InvokeOptions,
      secrets,
    ),
  );
}
