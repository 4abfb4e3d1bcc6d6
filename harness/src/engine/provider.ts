/** What the engine asks of the providers of a run (implemented by `../providers.ts`). */
import type { ResourceState } from "../checkpoint";
import type { PropertyMap } from "../proto";
import type { CheckFailure, ConfigureResult, DiffResult, ProviderHost } from "../providerHost";

/** A provider ready for resource operations: its process and what it said it supports. */
export interface ConfiguredProvider {
  host: ProviderHost;
  protocol: ConfigureResult;
}

/** The providers of a run, by provider resource (`providers/registry.go`). */
export interface ProviderSource {
  /**
   * The inputs of a package's default provider: its config namespace (`gamehost:baseUrl` → `baseUrl`, secrets
   * kept secret), as `default_providers.go: newRegisterDefaultProviderEvent` reads them.
   */
  defaultInputs(pkg: string): PropertyMap;
  /** `registry.go: Check` — loads the provider's plugin and checks the provider resource's inputs. */
  check(
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
  ): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }>;
  /** `registry.go: Diff` — DiffConfig. */
  diff(urn: string, olds: PropertyMap, news: PropertyMap): Promise<DiffResult>;
  /** `registry.go: Create/Same/Update` — configures the plugin as the provider resource `urn` with id `id`. */
  configure(urn: string, id: string, inputs: PropertyMap): Promise<ConfiguredProvider>;
  /**
   * The configured provider behind a reference `<urn>::<id>`: this run's, or (refresh, destroy, a resource
   * whose provider was not registered this run) one started and configured from the provider's `state`.
   */
  get(ref: string, state: ResourceState | undefined): Promise<ConfiguredProvider>;
}
