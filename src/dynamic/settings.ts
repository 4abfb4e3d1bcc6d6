import { GamehostClient } from "../api/client";
import { type ConfigLookup, readSettings, requireConnection } from "../api/config";
import type { OperationContext } from "../kinds/kind";

/**
 * Provider configuration of this process, for the dynamic face. The dynamic-provider host calls
 * `configure` once per provider text with the stack's config (keys such as `gamehost:token`); it is
 * kept here, in the loaded implementation module, and never in anything Pulumi serializes.
 */
let configuredLookup: ConfigLookup = () => undefined;

/** The part of the SDK's `ConfigureRequest` this package reads. */
export interface ProviderConfigureRequest {
  config: { get(key: string): string | undefined };
}

/** Remembers the stack config handed to the provider host. */
export function configure(req: ProviderConfigureRequest): void {
  const config = req.config;
  configuredLookup = (key) => config.get(key);
}

/**
 * A client built from the configured settings, falling back to `GAMEHOST_*` environment variables.
 * Fails with a message naming the config key and env var when the base URL or token is missing.
 */
export function providerClient(): GamehostClient {
  return new GamehostClient(requireConnection(readSettings(configuredLookup)));
}

/**
 * The context of one dynamic-provider operation: a client built on first use, no engine timeout and no
 * Cancel, so downloads end within the call deadline.
 */
export function dynamicContext(): OperationContext {
  let client: GamehostClient | undefined;
  return {
    boundDownloads: true,
    client: () => {
      client ??= providerClient();
      return client;
    },
  };
}
