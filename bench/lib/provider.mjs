// The Server provider as the engine drives it, through either face: the SDK's real dynamic provider host
// (configured with the stack config, called with the `__provider` text the SDK serializes), or the
// provider plugin `pulumi-resource-gamehost` (configured through its provider resource's inputs). Both are
// child processes started by the engine harness's ProviderHost and called over gRPC with the SDK's stubs.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { BENCH_DIR, loadHarness, REPO } from "./env.mjs";

export const SERVER_TYPE = "pulumi-nodejs:dynamic/gamehost:Server";
export const PLUGIN_SERVER_TYPE = "gamehost:index:Server";
export const PROGRAM_DIR = path.join(BENCH_DIR, "programs", "servers");
export const PLUGIN_EXECUTABLE = path.join(REPO, "plugin", "pulumi-resource-gamehost");
const PROJECT = "gamehost-bench-servers";
const STACK = "bench";

/** `__provider` texts by resource type, as the SDK serializes them (see provider-text.cjs). */
export function providerTexts() {
  const out = execFileSync(process.execPath, [path.join(BENCH_DIR, "lib", "provider-text.cjs")], {
    encoding: "utf8",
  });
  return JSON.parse(out);
}

/**
 * Starts the provider process of `face` (`dynamic` or `plugin`) for the service at `baseUrl` and configures
 * it as the harness's RunProviders does: Handshake, then (plugin) CheckConfig of the provider resource's
 * inputs, then Configure. Resolves `{host, spawnToPortMs, spawnToConfiguredMs}`: the time from just before
 * the spawn to the port line having been read (ProviderHost.start, which also makes the gRPC client
 * object; it connects on the first call), and to Configure's answer.
 */
export async function startFace(face, baseUrl, token) {
  const { ProviderHost, secret } = loadHarness();
  const config = { "gamehost:baseUrl": baseUrl, "gamehost:token": token };
  const env = { PULUMI_CONFIG: JSON.stringify(config), PULUMI_PROJECT: PROJECT };
  const start = performance.now();
  const host = await ProviderHost.start({
    cwd: PROGRAM_DIR,
    ...(face === "plugin"
      ? { launch: { kind: "executable", path: PLUGIN_EXECUTABLE }, env }
      : { env: { ...env, PULUMI_NODEJS_PROJECT: PROJECT } }),
  });
  const spawnToPortMs = performance.now() - start;
  await host.handshake({ engineAddress: "127.0.0.1:0", directory: PROGRAM_DIR });
  if (face === "plugin") {
    const type = "pulumi:providers:gamehost";
    const urn = `urn:pulumi:${STACK}::${PROJECT}::${type}::default`;
    const inputs = { baseUrl, token: secret(token) };
    const checked = await host.checkConfig({ urn, olds: {}, news: inputs });
    if (checked.failures.length) throw new Error(`CheckConfig failed: ${JSON.stringify(checked.failures)}`);
    await host.configure(
      checked.inputs,
      { "gamehost:config:baseUrl": baseUrl, "gamehost:config:token": token },
      { urn, id: randomUUID(), name: "default", type },
    );
  } else {
    await host.configure(
      { "gamehost:baseUrl": baseUrl, "gamehost:token": secret(token) },
      Object.fromEntries(Object.entries(config).map(([k, v]) => [`pulumi-nodejs:config:${k}`, v])),
    );
  }
  return { host, spawnToPortMs, spawnToConfiguredMs: performance.now() - start };
}

/** Starts a dynamic provider host configured for the service at `baseUrl` (as the harness Stack does). */
export async function startProvider(baseUrl, token) {
  return (await startFace("dynamic", baseUrl, token)).host;
}

/** URN of bench server `name` (of the dynamic face's type unless `type` is given). */
export function serverUrn(name, type = SERVER_TYPE) {
  return `urn:pulumi:${STACK}::${PROJECT}::${type}::${name}`;
}

/** Program-side inputs of server `name` (the resource scope is what the Server class adds). */
export function programInputs(providerText, inputs, name) {
  return { ...inputs, resourceScope: `${PROJECT}/${STACK}/${name}`, __provider: providerText };
}
