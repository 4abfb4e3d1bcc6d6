// The Server provider as the engine drives it: the SDK's real dynamic provider host in a child process,
// configured with the stack config, called over gRPC with the `__provider` text the SDK serializes.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { BENCH_DIR, loadHarness } from "./env.mjs";

export const SERVER_TYPE = "pulumi-nodejs:dynamic/gamehost:Server";
export const PROGRAM_DIR = path.join(BENCH_DIR, "programs", "servers");
const PROJECT = "gamehost-bench-servers";
const STACK = "bench";

/** `__provider` texts by resource type, as the SDK serializes them (see provider-text.cjs). */
export function providerTexts() {
  const out = execFileSync(process.execPath, [path.join(BENCH_DIR, "lib", "provider-text.cjs")], {
    encoding: "utf8",
  });
  return JSON.parse(out);
}

/** Starts a dynamic provider host configured for the service at `baseUrl` (as the harness Stack does). */
export async function startProvider(baseUrl, token) {
  const { ProviderHost, makeSecret } = loadHarness();
  const config = { "gamehost:baseUrl": baseUrl, "gamehost:token": token };
  const host = await ProviderHost.start({
    cwd: PROGRAM_DIR,
    env: { PULUMI_CONFIG: JSON.stringify(config), PULUMI_NODEJS_PROJECT: PROJECT, PULUMI_PROJECT: PROJECT },
  });
  await host.configure(
    {
      "gamehost:baseUrl": config["gamehost:baseUrl"],
      "gamehost:token": makeSecret(config["gamehost:token"]),
    },
    Object.fromEntries(Object.entries(config).map(([k, v]) => [`pulumi-nodejs:config:${k}`, v])),
  );
  return host;
}

/** URN of bench server `name`. */
export function serverUrn(name) {
  return `urn:pulumi:${STACK}::${PROJECT}::${SERVER_TYPE}::${name}`;
}

/** Program-side inputs of server `name` (the resource scope is what the Server class adds). */
export function programInputs(providerText, inputs, name) {
  return { ...inputs, resourceScope: `${PROJECT}/${STACK}/${name}`, __provider: providerText };
}
