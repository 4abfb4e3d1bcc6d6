import * as pulumi from "@pulumi/pulumi";
import type * as types from "../types";
import { serverComputedOutputs, serverInputProperties } from "../types";
import { registeredInputs } from "../typescript/registration";

export type { ServerArgs } from "../types";

/**
 * The serialized provider. Pulumi stores this object's code in the stack state and runs it later in
 * a separate host process, so each method only loads the implementation through the package's
 * exported subpath at call time: nothing of this package (schemas, clients, config) is captured.
 * One shared instance, because the SDK caches serialization per provider object. Arrows that use
 * no `this` keep the serialized text small (< 2 KB). Exported for serialization tests.
 * @internal
 */
export const serverProvider: pulumi.dynamic.ResourceProvider = {
  configure: (...a) => require("pulumi-gamehost/provider/server").configure(...a),
  check: (...a) => require("pulumi-gamehost/provider/server").check(...a),
  diff: (...a) => require("pulumi-gamehost/provider/server").diff(...a),
  create: (...a) => require("pulumi-gamehost/provider/server").create(...a),
  read: (...a) => require("pulumi-gamehost/provider/server").read(...a),
  update: (...a) => require("pulumi-gamehost/provider/server").update(...a),
  delete: (...a) => require("pulumi-gamehost/provider/server").delete(...a),
};

// The output properties come from the package schema (`types.ServerOutputs`), merged into the class, so
// both faces declare exactly the schema's outputs and no class field can overwrite what the SDK sets.
export interface Server extends types.ServerOutputs {}

/**
 * A dynamic game server (`pulumi-nodejs:dynamic/gamehost:Server`). Servers are immutable: any change to
 * the spec creates a new server before deleting the old one.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merge only adds the outputs the SDK sets
export class Server extends pulumi.dynamic.Resource {
  constructor(name: string, args: types.ServerArgs, opts?: pulumi.CustomResourceOptions) {
    const props = registeredInputs(args, {}, serverInputProperties, serverComputedOutputs);
    super(serverProvider, name, props, opts, "gamehost", "Server");
  }
}
