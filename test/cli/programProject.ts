/**
 * A real-CLI project that runs one of the suite's programs unchanged: a temp folder whose Pulumi.yaml
 * points `main` at the program and `plugins.providers` at this repository's plugin folder, with the
 * repository's `node_modules` linked in (where the dynamic provider host resolves `pulumi-gamehost`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { linkNodeModules, pluginProviderYaml } from "../support/examples";
import { CliProject } from "../support/realPulumi";

/** Stack config entries; a non-string value is set as JSON (`Config.getObject`). */
export type CliConfig = Record<string, { value: unknown; secret?: boolean }>;

/**
 * A project named `project` (the program's config namespace) in `root/<folder>` running `programDir`.
 * @param folder the temp folder's name, unique within `root`
 */
export function programProject(
  root: string,
  folder: string,
  project: string,
  programDir: string,
  extraEnv: NodeJS.ProcessEnv = {},
): CliProject {
  const dir = path.join(root, folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${project}\nruntime: nodejs\nmain: ${path.relative(dir, programDir)}/\n${pluginProviderYaml()}`,
  );
  linkNodeModules(dir);
  return new CliProject(dir, root, { PULUMI_DEBUG_COMMANDS: "true", ...extraEnv });
}

/** `pulumi stack init <stack>` and `config set` of each entry (JSON for non-strings). */
export async function configure(cli: CliProject, config: CliConfig, stack = "dev"): Promise<void> {
  await cli.configure(
    Object.fromEntries(
      Object.entries(config).map(([key, { value, secret }]) => [
        key,
        { value: typeof value === "string" ? value : JSON.stringify(value), ...(secret ? { secret } : {}) },
      ]),
    ),
    stack,
  );
}
