import * as pulumi from "@pulumi/pulumi";
import type { ProviderArgs } from "../types";

/**
 * An explicit gamehost provider (`pulumi:providers:gamehost`): a second base URL or token in one
 * program, e.g. `new Server("s", args, { provider })`. Without one, resources use the default provider,
 * configured by `gamehost:baseUrl` / `gamehost:token` (or `GAMEHOST_BASE_URL` / `GAMEHOST_TOKEN`).
 */
export class Provider extends pulumi.ProviderResource {
  /** @internal */
  static readonly __pulumiType = "gamehost";

  /** Whether `obj` is a gamehost provider (also across copies of the package). */
  static override isInstance(obj: unknown): obj is Provider {
    // An instance's type is its token, `pulumi:providers:<package>`.
    return (
      pulumi.ProviderResource.isInstance(obj) &&
      (obj as { __pulumiType?: string }).__pulumiType === `pulumi:providers:${Provider.__pulumiType}`
    );
  }

  constructor(name: string, args?: ProviderArgs, opts?: pulumi.ResourceOptions) {
    const inputs: pulumi.Inputs = {
      baseUrl: args?.baseUrl,
      token: args?.token === undefined ? undefined : pulumi.secret(args.token),
      maxRetries: args?.maxRetries,
      requestTimeoutMs: args?.requestTimeoutMs,
      callTimeoutMs: args?.callTimeoutMs,
      maxResponseBytes: args?.maxResponseBytes,
    };
    super(
      Provider.__pulumiType,
      name,
      inputs,
      pulumi.mergeOptions(opts, { additionalSecretOutputs: ["token"] }),
    );
  }
}
