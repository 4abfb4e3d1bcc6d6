/**
 * The providers of one run, started and configured the way the engine does it
 * (`pkg/resource/deploy/providers/registry.go`, `sdk/go/common/resource/plugin/provider_plugin.go: NewProvider`):
 * one process per provider resource, loaded for its CheckConfig, configured with its id, and kept for the run.
 * Package `pulumi-nodejs` is the SDK's dynamic provider host; any other package is a plugin found in the
 * program's Pulumi.yaml `plugins.providers` (as `workspace.GetPluginPath` does) or given by the caller.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { ResourceState } from "./checkpoint";
import { type ConfiguredProvider, DYNAMIC_PACKAGE, type ProviderSource, packageOf } from "./engine";
import { reveal, secret } from "./properties";
import { type JsonValue, type PropertyMap, programSdkDir } from "./proto";
import {
  type CheckFailure,
  type DiffResult,
  type HandshakeResult,
  type LaunchSpec,
  ProviderError,
  ProviderHost,
} from "./providerHost";
import type { Diagnostic } from "./types";

/** Where a plugin lives: a folder holding `pulumi-resource-<name>` or a `PulumiPlugin.yaml`. */
export interface PluginLocation {
  path: string;
}

/** A provider process the run started, for tests that need to reach it (e.g. to kill it). */
export interface StartedProvider {
  /** Package of the provider (`gamehost`, `pulumi-nodejs`). */
  package: string;
  /** URN of the provider resource it serves. */
  urn: string;
  host: ProviderHost;
}

/** Options of {@link RunProviders}. */
export interface RunProvidersOptions {
  programDir: string;
  project: string;
  /** Stack config by full key, in wire form (secret values wrapped). */
  config: ReadonlyMap<string, JsonValue>;
  /** `PULUMI_CONFIG` as the CLI passes it to plugins (plain strings). */
  plainConfig: Record<string, string>;
  env?: Record<string, string | undefined>;
  nodePath?: string;
  /** Plugins by package, over the program's Pulumi.yaml. */
  plugins?: Record<string, PluginLocation>;
  /** The engine address given to every provider process. */
  engineAddress?: string;
  /** Called once per provider process, when it has started. */
  onStarted?: (provider: StartedProvider) => void;
}

/** `providers/provider.go`: the inputs the engine keeps out of Configure (`FilterProviderConfig`). */
const INTERNAL_INPUTS = new Set([
  "version",
  "pluginDownloadURL",
  "pluginChecksums",
  "parameterization",
  "name",
]);

/** The program's Pulumi.yaml `plugins.providers`, by name. */
function projectPlugins(programDir: string): Record<string, PluginLocation> {
  const file = path.join(programDir, "Pulumi.yaml");
  if (!fs.existsSync(file)) return {};
  // js-yaml comes with the SDK (its own project loading uses it).
  const yaml = createRequire(path.join(programSdkDir(programDir), "package.json"))("js-yaml") as {
    load(text: string): unknown;
  };
  const project = yaml.load(fs.readFileSync(file, "utf8")) as {
    plugins?: { providers?: Array<{ name?: string; path?: string }> };
  };
  const out: Record<string, PluginLocation> = {};
  for (const p of project?.plugins?.providers ?? []) {
    if (p.name && p.path) out[p.name] = { path: path.resolve(programDir, p.path) };
  }
  return out;
}

/**
 * How to start the plugin in `dir`: its executable `pulumi-resource-<pkg>` when there is one, else its
 * `PulumiPlugin.yaml` runtime (`plugin.go: ExecPlugin`).
 */
function launchOf(pkg: string, dir: string, programDir: string): LaunchSpec {
  const executable = path.join(dir, `pulumi-resource-${pkg}`);
  if (fs.existsSync(executable)) return { kind: "executable", path: executable };
  const manifest = path.join(dir, "PulumiPlugin.yaml");
  if (fs.existsSync(manifest) && /^runtime:\s*nodejs\b/m.test(fs.readFileSync(manifest, "utf8"))) {
    return { kind: "nodejs-plugin", dir, sdkDir: programSdkDir(programDir) };
  }
  throw new Error(
    `no resource plugin '${pkg}' found in ${dir} (neither pulumi-resource-${pkg} nor PulumiPlugin.yaml)`,
  );
}

/** The providers of one run. */
export class RunProviders implements ProviderSource {
  /** Loaded (not yet configured) providers, by provider resource URN: `registry.go` keeps them for Check. */
  private readonly loaded = new Map<string, Promise<{ host: ProviderHost; handshake?: HandshakeResult }>>();
  /** Configured providers, by reference `<urn>::<id>`. */
  private readonly configured = new Map<string, Promise<ConfiguredProvider>>();
  private readonly hosts: ProviderHost[] = [];
  private readonly plugins: Record<string, PluginLocation>;

  constructor(private readonly opts: RunProvidersOptions) {
    this.plugins = { ...projectPlugins(opts.programDir), ...opts.plugins };
  }

  defaultInputs(pkg: string): PropertyMap {
    // Dynamic providers read the whole stack config in Configure (below), not through provider inputs.
    if (pkg === DYNAMIC_PACKAGE) return {};
    const inputs: PropertyMap = {};
    for (const [key, value] of this.opts.config) {
      const at = key.indexOf(":");
      if (key.slice(0, at) === pkg) inputs[key.slice(at + 1)] = value;
    }
    return inputs;
  }

  private launchFor(pkg: string): LaunchSpec {
    if (pkg === DYNAMIC_PACKAGE) return { kind: "dynamic", sdkDir: programSdkDir(this.opts.programDir) };
    const plugin = this.plugins[pkg];
    if (!plugin) {
      throw new Error(
        `no resource plugin '${pkg}' found: add it to Pulumi.yaml \`plugins.providers\` (name: ${pkg}, path: <folder>)`,
      );
    }
    return launchOf(pkg, plugin.path, this.opts.programDir);
  }

  /** `registry.go: loadProvider` + `NewProvider`: the process started, its port read, the handshake sent. */
  private load(urn: string): Promise<{ host: ProviderHost; handshake?: HandshakeResult }> {
    let loading = this.loaded.get(urn);
    if (!loading) {
      loading = (async () => {
        const pkg = packageOf(urn.split("::")[2] ?? "");
        const host = await ProviderHost.start({
          cwd: this.opts.programDir,
          launch: this.launchFor(pkg),
          ...(this.opts.nodePath ? { nodePath: this.opts.nodePath } : {}),
          ...(this.opts.engineAddress ? { engineAddress: this.opts.engineAddress } : {}),
          env: {
            ...this.opts.env,
            PULUMI_CONFIG: JSON.stringify(this.opts.plainConfig),
            PULUMI_PROJECT: this.opts.project,
            ...(pkg === DYNAMIC_PACKAGE ? { PULUMI_NODEJS_PROJECT: this.opts.project } : {}),
          },
        });
        this.hosts.push(host);
        this.opts.onStarted?.({ package: pkg, urn, host });
        const handshake = await host.handshake({
          engineAddress: this.opts.engineAddress ?? "127.0.0.1:0",
          directory: this.opts.programDir,
        });
        return { host, ...(handshake ? { handshake } : {}) };
      })();
      this.loaded.set(urn, loading);
    }
    return loading;
  }

  async check(
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
  ): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    const { host } = await this.load(urn);
    try {
      return await host.checkConfig({ urn, olds, news });
    } catch (err) {
      // provider_plugin.go: CheckConfig — "logically unimplemented" means the inputs are fine as they are.
      if (err instanceof ProviderError && err.code === 12) return { inputs: news, failures: [] };
      throw err;
    }
  }

  async diff(urn: string, olds: PropertyMap, news: PropertyMap): Promise<DiffResult> {
    const { host } = await this.load(urn);
    try {
      return await host.diffConfig({ urn, olds, news });
    } catch (err) {
      if (err instanceof ProviderError && err.code === 12) {
        return { changes: "unknown", replaces: [], stables: [], diffs: [], deleteBeforeReplace: false };
      }
      throw err;
    }
  }

  configure(urn: string, id: string, inputs: PropertyMap): Promise<ConfiguredProvider> {
    const ref = `${urn}::${id}`;
    let configuring = this.configured.get(ref);
    if (!configuring) {
      configuring = (async () => {
        const { host, handshake } = await this.load(urn);
        const pkg = packageOf(urn.split("::")[2] ?? "");
        const name = urn.split("::").slice(3).join("::");
        const type = urn.split("::")[2] ?? "";
        let res: Awaited<ReturnType<ProviderHost["configure"]>>;
        if (pkg === DYNAMIC_PACKAGE) {
          // Dynamic providers get every config value, namespaced, secrets wrapped (the host unwraps them).
          const args: PropertyMap = {};
          const variables: Record<string, string> = {};
          for (const [key, value] of this.opts.config) {
            args[key] = value;
            variables[`${DYNAMIC_PACKAGE}:config:${key}`] = this.opts.plainConfig[key] ?? "";
          }
          res = await host.configure(args, variables, { urn, id, name, type });
        } else {
          const args: PropertyMap = {};
          const variables: Record<string, string> = {};
          for (const [key, value] of Object.entries(inputs)) {
            if (INTERNAL_INPUTS.has(key)) continue;
            args[key] = value;
            const plain = reveal(value);
            variables[`${pkg}:config:${key}`] = typeof plain === "string" ? plain : JSON.stringify(plain);
          }
          res = await host.configure(args, variables, { urn, id, name, type });
        }
        // provider_plugin.go: NewProvider — a provider that answered Handshake supports preview; its
        // handshake answer sets the protocol, Configure's otherwise.
        return {
          host,
          protocol: handshake
            ? {
                acceptSecrets: handshake.acceptSecrets,
                acceptResources: handshake.acceptResources,
                supportsPreview: true,
              }
            : res,
        };
      })();
      this.configured.set(ref, configuring);
    }
    return configuring;
  }

  get(ref: string, state: ResourceState | undefined): Promise<ConfiguredProvider> {
    const known = this.configured.get(ref);
    if (known) return known;
    if (!state) return Promise.reject(new Error(`unknown provider ${ref}`));
    // A provider this run did not register (refresh, destroy): configured from its recorded inputs.
    return this.configure(state.urn, state.id, state.inputs);
  }

  /** Stops every provider process; their output lines become diagnostics. */
  async stop(diagnostics: Diagnostic[]): Promise<void> {
    await Promise.all([...this.loaded.values()].map((p) => p.catch(() => undefined)));
    for (const host of this.hosts) {
      await host.stop();
      for (const line of host.output) {
        diagnostics.push({
          severity: line.stream === "stderr" ? "warning" : "info",
          message: line.text,
          source: line.stream === "stderr" ? "provider-stderr" : "provider-stdout",
        });
      }
    }
  }
}

/** Config values in wire form: a secret entry wrapped. */
export function wireConfig(
  entries: Iterable<[string, { value: JsonValue; secret?: boolean }]>,
  plain: Record<string, string>,
): Map<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  for (const [key, entry] of entries) {
    const value = plain[key] ?? "";
    out.set(key, entry.secret ? secret(value) : value);
  }
  return out;
}
