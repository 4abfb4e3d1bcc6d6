import * as pulumi from "@pulumi/pulumi";
import { GamehostClient } from "../api/client";
import { readSettings, requireConnection } from "../api/config";

/**
 * A client for data sources, which run in the program's own process: settings come from the stack
 * config (`gamehost:baseUrl`, `gamehost:token`) and then the `GAMEHOST_*` environment variables.
 * Read at call time, never captured.
 */
export function functionClient(
  options: { tokenRequired: boolean } = { tokenRequired: true },
): GamehostClient {
  const settings = readSettings((key) => pulumi.runtime.getConfig(key));
  return new GamehostClient(options.tokenRequired ? requireConnection(settings) : settings);
}

/** Outputs that resolve once every `dependsOn` resource exists (its id for custom resources). */
function dependencyReady(dependsOn: pulumi.InvokeOutputOptions["dependsOn"]): pulumi.Output<unknown[]> {
  if (dependsOn === undefined) return pulumi.output([]);
  const resolved = pulumi.output(dependsOn) as unknown as pulumi.Output<pulumi.Resource | pulumi.Resource[]>;
  return resolved.apply((deps) => {
    const list = Array.isArray(deps) ? deps : [deps];
    return pulumi.all(
      list.map((r) => (pulumi.CustomResource.isInstance(r) ? (r as pulumi.CustomResource).id : r.urn)),
    ) as pulumi.Output<unknown[]>;
  });
}

/**
 * The Output form of a data source: runs once its arguments are known and its `dependsOn`
 * resources exist; in a preview with unknown arguments it stays unknown, as invokes do.
 */
export function outputFunction<A, R>(
  args: pulumi.Input<A>,
  opts: pulumi.InvokeOutputOptions | undefined,
  run: (args: pulumi.Unwrap<A>) => Promise<R>,
): pulumi.Output<R> {
  return pulumi
    .all([pulumi.output(args), dependencyReady(opts?.dependsOn)])
    .apply(([resolved]) => run(resolved as pulumi.Unwrap<A>)) as pulumi.Output<R>;
}
