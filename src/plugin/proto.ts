/**
 * The SDK's generated gRPC stubs and protobuf messages, loaded relative to the installed
 * `@pulumi/pulumi` so that they share its `@grpc/grpc-js` and `google-protobuf` (a Struct built with
 * another copy of google-protobuf would not serialize).
 */
import { createRequire } from "node:module";
import * as path from "node:path";

const sdkRequire = createRequire(
  path.join(path.dirname(require.resolve("@pulumi/pulumi/package.json")), "package.json"),
);

export const grpc = sdkRequire("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
export const provproto = sdkRequire(
  "./proto/provider_pb",
) as typeof import("@pulumi/pulumi/proto/provider_pb");
export const provrpc = sdkRequire(
  "./proto/provider_grpc_pb",
) as typeof import("@pulumi/pulumi/proto/provider_grpc_pb");
export const pluginproto = sdkRequire("./proto/plugin_pb") as typeof import("@pulumi/pulumi/proto/plugin_pb");
export const statusproto = sdkRequire("./proto/status_pb") as typeof import("@pulumi/pulumi/proto/status_pb");
export const structproto = sdkRequire(
  "google-protobuf/google/protobuf/struct_pb",
) as typeof import("google-protobuf/google/protobuf/struct_pb");
export const emptyproto = sdkRequire(
  "google-protobuf/google/protobuf/empty_pb",
) as typeof import("google-protobuf/google/protobuf/empty_pb");
export const anyproto = sdkRequire(
  "google-protobuf/google/protobuf/any_pb",
) as typeof import("google-protobuf/google/protobuf/any_pb");

export type Struct = InstanceType<typeof structproto.Struct>;
export const engineproto = sdkRequire("./proto/engine_pb") as typeof import("@pulumi/pulumi/proto/engine_pb");
export const enginerpc = sdkRequire(
  "./proto/engine_grpc_pb",
) as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
