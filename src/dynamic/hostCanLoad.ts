/**
 * Whether the dynamic provider host will find this package. The shim a dynamic resource serializes into the
 * state loads `pulumi-gamehost/provider/<kind>` by name, and the SDK's host (`@pulumi/pulumi/cmd/dynamic-provider`,
 * started in the project's folder) resolves that name from the folder's `node_modules`. A program that reaches
 * the package only through another package (its dependency under pnpm's isolated layout, where nothing is
 * hoisted to the project's `node_modules`) runs, but every call of the host then fails with the SDK's
 * `Cannot find module 'pulumi-gamehost/provider/<kind>'` and a stack trace. Checked in the program, once per
 * kind, before the resource is registered: nothing is created.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { GamehostError } from "../api/errors";

/**
 * The SDK's program runner, which the CLI's language host starts in the program's folder (the project's, or its
 * `main`), where the engine starts the provider host too.
 */
function isRunByCli(main: string | undefined): boolean {
  return main !== undefined && /[\\/]cmd[\\/]run([\\/]index\.js)?$/.test(main);
}

const checked = new Set<string>();

/**
 * Fails when `hostModule`, what the shim of `kind` loads, could not be loaded from `folder` (the program's working
 * directory, the provider host's). Only in a program the CLI runs: an inline Automation API program runs in the
 * script's folder, not the workspace's, where the host runs.
 */
export function checkHostCanLoad(
  kind: string,
  name: string,
  hostModule: string,
  folder = process.cwd(),
  main = process.argv[1],
): void {
  if (checked.has(kind) || !isRunByCli(main)) return;
  try {
    // As the host resolves it: from the folder's node_modules (this module's own require would find the package
    // by its name first, as a package may require itself).
    createRequire(path.join(folder, "[dynamic-provider]")).resolve(hostModule);
  } catch {
    throw new GamehostError(
      `${kind} "${name}": Pulumi's dynamic provider host would not find pulumi-gamehost: it loads ${hostModule} from the project's folder, whose node_modules do not hold the package (installed only as a dependency of another package, as pnpm lays them out). ` +
        "Add pulumi-gamehost to the project's own dependencies, or with pnpm hoist it (public-hoist-pattern[]=pulumi-gamehost in the project's .npmrc, then pnpm install). Nothing was created.",
    );
  }
  checked.add(kind);
}
