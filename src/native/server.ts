import * as pulumi from "@pulumi/pulumi";
import type * as types from "../types";
import { serverComputedOutputs, serverInputProperties } from "../types";
import { registeredInputs } from "../typescript/registration";

const TYPE = "gamehost:index:Server";

// The output properties come from the package schema, merged into the class, as for the dynamic face.
export interface Server extends types.ServerOutputs {}

/**
 * A game server (`gamehost:index:Server`), managed by the gamehost provider plugin. Servers are
 * immutable: any change to the spec creates a new server before deleting the old one. Create waits until
 * the server is placed and every port has a public address (`customTimeouts.create` bounds the wait).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merge only adds the outputs the SDK sets
export class Server extends pulumi.CustomResource {
  /** @internal */
  static readonly __pulumiType = TYPE;

  /**
   * Reads an existing server without managing it. `id` is the server's UUID; `state` can narrow the
   * lookup with `gameId` and `environmentId` (the server's GET path needs both, else it is searched for).
   */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    state?: types.ServerState,
    opts?: pulumi.CustomResourceOptions,
  ): Server {
    return new Server(name, state as types.ServerArgs, { ...opts, id });
  }

  /** Whether `obj` is a Server of this face (also across copies of the package). */
  static override isInstance(obj: unknown): obj is Server {
    return pulumi.CustomResource.isInstance(obj) && (obj as { __pulumiType?: string }).__pulumiType === TYPE;
  }

  constructor(name: string, args: types.ServerArgs, opts?: pulumi.CustomResourceOptions) {
    const options = opts ?? {};
    super(TYPE, name, registeredInputs(args, options, serverInputProperties, serverComputedOutputs), options);
  }
}
