/**
 * Whether the dynamic provider host will find this package. The shim a dynamic resource serializes into the
 * state loads `pulumi-gamehost/provider/<kind>` by name, and the SDK's host (`@pulumi/pulumi/cmd/dynamic-provider`,
 * started in the project's folder) resolves that name from the folder's `node_modules`. A program that reaches
 * the package only through another package (its dependency under pnpm's isolated layout, where nothing is
 * hoisted to the project's `node_modules`) runs, but every call of the host then fails with the SDK's
 * `Cannot find module 'pulumi-gamehost/provider/<kind>'` and a stack trace. Checked in the program, once per
 * kind, before the resource is registered: nothing is created.
 *
 * A project can also hold two versions: its own `pulumi-gamehost`, and another nested under a library of the
 * project's that makes the resources. The host then runs the project's version for the library's resources,
 * without a word, so a field the library's version knows and the project's does not is refused as unknown.
 * That is said once, as a warning (a patch apart, the two usually agree).
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { GamehostError } from "../api/errors";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../version";

/**
 * The SDK's program runner, which the CLI's language host starts in the program's folder (the project's, or its
 * `main`), where the engine starts the provider host too.
 */
function isRunByCli(main: string | undefined): boolean {
  return main !== undefined && /[\\/]cmd[\\/]run([\\/]index\.js)?$/.test(main);
}

const checked = new Set<string>();
/** The program folders whose host's version was compared (one per program). */
const compared = new Set<string>();

/** Where the check looks, and what it compares with: the running program's, but for tests. */
export interface HostCheckSetting {
  /** The program's working directory, where the engine starts the provider host. */
  folder?: string;
  /** The program's entry script (the SDK's runner when the CLI runs it). */
  main?: string;
  /** This copy of the package: its version and its folder. */
  own?: { version: string; dir: string };
  /** Where the warning goes (the engine's log, as `pulumi.log.warn`). */
  warn?: (message: string) => void;
}

/** The version in the nearest package.json above `file` named `name`, and its folder. */
function packageAt(file: string, name: string): { version: string; dir: string } | undefined {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    let parsed: { name?: unknown; version?: unknown };
    try {
      parsed = JSON.parse(fs.readFileSync(manifest, "utf8")) as typeof parsed;
    } catch {
      continue; // none here, or not JSON: a warning is not worth stopping the program for
    }
    if (parsed.name === name && typeof parsed.version === "string") return { version: parsed.version, dir };
  }
  return undefined;
}

/** Warns, once, when the host would run another version of the package than the one making `kind` here. */
function compareVersions(
  kind: string,
  name: string,
  resolved: string,
  folder: string,
  own: { version: string; dir: string },
  warn: (message: string) => void,
): void {
  if (compared.has(folder)) return;
  compared.add(folder);
  const host = packageAt(resolved, PACKAGE_NAME);
  if (host === undefined || host.version === own.version) return;
  const where = (dir: string) => path.relative(folder, dir) || ".";
  warn(
    `${kind} "${name}" is made by ${PACKAGE_NAME} ${own.version} (${where(own.dir)}), but Pulumi's dynamic provider host runs ${PACKAGE_NAME} ${host.version} (${where(host.dir)}, the project's): that version creates, updates and deletes this program's dynamic resources. ` +
      `Install one version (\`npm ls ${PACKAGE_NAME}\` lists them): give the project the version its libraries use, or make ${PACKAGE_NAME} a peer dependency of the library.`,
  );
}

/** This copy of the package (`dist/dynamic/` is two folders below its root). */
const OWN = { version: PACKAGE_VERSION, dir: path.resolve(__dirname, "..", "..") };

/**
 * Fails when `hostModule`, what the shim of `kind` loads, could not be loaded from `folder` (the program's working
 * directory, the provider host's), and warns when it would load another version of the package. Only in a program
 * the CLI runs: an inline Automation API program runs in the script's folder, not the workspace's, where the
 * host runs.
 */
export function checkHostCanLoad(
  kind: string,
  name: string,
  hostModule: string,
  {
    folder = process.cwd(),
    main = process.argv[1],
    own = OWN,
    warn = (message: string) => void pulumi.log.warn(message),
  }: HostCheckSetting = {},
): void {
  if (checked.has(kind) || !isRunByCli(main)) return;
  let resolved: string;
  try {
    // As the host resolves it: from the folder's node_modules (this module's own require would find the package
    // by its name first, as a package may require itself).
    resolved = createRequire(path.join(folder, "[dynamic-provider]")).resolve(hostModule);
  } catch {
    throw new GamehostError(
      `${kind} "${name}": Pulumi's dynamic provider host would not find pulumi-gamehost: it loads ${hostModule} from the project's folder, whose node_modules do not hold the package (installed only as a dependency of another package, as pnpm, or npm with install-strategy=nested or shallow, lays them out). ` +
        "Add pulumi-gamehost to the project's own dependencies, or with pnpm hoist it (public-hoist-pattern[]=pulumi-gamehost in the project's .npmrc, then pnpm install). Nothing was created.",
    );
  }
  checked.add(kind);
  compareVersions(kind, name, resolved, folder, own, warn);
}
