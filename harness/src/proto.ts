/**
 * The SDK's own gRPC stubs and protobuf messages, loaded with plain `require` from the directory of
 * `@pulumi/pulumi` so that they share one `google-protobuf` and one `@grpc/grpc-js` instance with the SDK
 * (Vite must never transform them: the generated code relies on CommonJS globals).
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import type { Json } from "../../src/plugin/propertyValues";

// Resolved rather than computed from this file's location, so the harness also works when compiled to
// another directory (`__filename` exists under vitest and in CommonJS output).
/** Directory of the installed `@pulumi/pulumi` SDK. */
export const SDK_DIR = path.dirname(createRequire(__filename).resolve("@pulumi/pulumi/package.json"));

/** Root of this repository (the one whose node_modules holds the SDK). */
export const REPO_ROOT = path.resolve(SDK_DIR, "..", "..", "..");

/** The harness's own folder (its preload scripts live there), from `src/` or a compiled `dist/`. */
export const HARNESS_ROOT = path.join(REPO_ROOT, "harness");

/** The entry points of an installed SDK that the CLI's processes run. */
export interface SdkEntries {
  /** The language host entry `pulumi-language-nodejs` runs programs with. */
  run: string;
  /** The dynamic provider host the CLI starts as `pulumi-resource-pulumi-nodejs`. */
  dynamicProvider: string;
  /** What `pulumi-language-nodejs` `RunPlugin` runs a nodejs plugin folder with. */
  runPlugin: string;
}

/** The entry points of the SDK installed at `sdkDir`. */
export function sdkEntries(sdkDir: string): SdkEntries {
  return {
    run: path.join(sdkDir, "cmd", "run", "index.js"),
    dynamicProvider: path.join(sdkDir, "cmd", "dynamic-provider", "index.js"),
    runPlugin: path.join(sdkDir, "cmd", "run-plugin", "index.js"),
  };
}

/**
 * The SDK a program runs with: `@pulumi/pulumi` resolved from the program directory, as pulumi-language-nodejs
 * `locateModule` does, so a fresh project runs its own installed version; the repo's SDK when it has none.
 */
export function programSdkDir(programDir: string): string {
  try {
    const manifest = createRequire(path.join(programDir, "index.js")).resolve("@pulumi/pulumi/package.json");
    return path.dirname(manifest);
  } catch {
    return SDK_DIR;
  }
}

/** The dynamic provider host the CLI starts as `pulumi-resource-pulumi-nodejs`. */
export const DYNAMIC_PROVIDER_ENTRY = sdkEntries(SDK_DIR).dynamicProvider;

/** The language host entry the CLI's `pulumi-language-nodejs` runs programs with. */
export const RUN_ENTRY = sdkEntries(SDK_DIR).run;

const sdkRequire = createRequire(path.join(SDK_DIR, "package.json"));

// The stubs the plugin also uses come from its module: one copy of each, sharing the SDK's grpc-js and
// google-protobuf.
export {
  anyproto,
  emptyproto,
  grpc,
  provproto,
  provrpc,
  statusproto,
  structproto,
} from "../../src/plugin/proto";
export { fromStruct, toStruct } from "../../src/plugin/structs";

/** `pulumirpc` resource-monitor messages. */
export const resproto = sdkRequire(
  "./proto/resource_pb",
) as typeof import("@pulumi/pulumi/proto/resource_pb");
/** `pulumirpc.ResourceMonitor` service definition. */
export const resrpc = sdkRequire(
  "./proto/resource_grpc_pb",
) as typeof import("@pulumi/pulumi/proto/resource_grpc_pb");
/** `pulumirpc` engine messages (LogRequest, …). */
export const engproto = sdkRequire("./proto/engine_pb") as typeof import("@pulumi/pulumi/proto/engine_pb");
/** `pulumirpc.Engine` service definition. */
export const engrpc = sdkRequire(
  "./proto/engine_grpc_pb",
) as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
/** A JSON-compatible value as it travels in a `google.protobuf.Struct`. */
export type JsonValue = Json;
/** A property bag in wire form (secrets and unknowns encoded with the SDK's signatures). */
export type { PropertyMap } from "../../src/plugin/propertyValues";
