/**
 * The examples as users copy them, for the engine and real-CLI scenarios: a copy of an example's project
 * files in a temp folder whose node_modules links to the repo's (where `pulumi-gamehost` is the repo itself),
 * optionally on the plugin's face.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "./dist";

/** `examples/quickstart`: two servers, game data and yesterday's lobby history. */
export const QUICKSTART_DIR = path.join(REPO_ROOT, "examples", "quickstart");

const PACKAGE_IMPORT = 'import * as gamehost from "pulumi-gamehost";';

/** An example's program with its one import switched to the plugin's face; nothing else differs. */
export function onPluginFace(program: string): string {
  if (!program.includes(PACKAGE_IMPORT)) throw new Error(`the program has no line ${PACKAGE_IMPORT}`);
  return program.replace(PACKAGE_IMPORT, 'import * as gamehost from "pulumi-gamehost/native";');
}

/** Pulumi.yaml lines that make the CLI run this repository's plugin as the `gamehost` provider (docs/languages.md). */
export function pluginProviderYaml(): string {
  return `plugins:\n  providers:\n    - name: gamehost\n      path: ${path.join(REPO_ROOT, "plugin")}\n`;
}

/**
 * Copies the example `exampleDir` (Pulumi.yaml, package.json, tsconfig.json, index.ts) into `root/<folder>`,
 * with `rewrite` applied to its index.ts and, with `plugin`, the plugin named in Pulumi.yaml; returns the folder.
 */
export function copyExample(
  root: string,
  folder: string,
  exampleDir: string,
  options: { plugin?: boolean; rewrite?: (program: string) => string } = {},
): string {
  const dir = path.join(root, folder);
  fs.mkdirSync(dir, { recursive: true });
  for (const file of ["Pulumi.yaml", "package.json", "tsconfig.json", "index.ts"]) {
    let text = fs.readFileSync(path.join(exampleDir, file), "utf8");
    if (file === "index.ts" && options.rewrite) text = options.rewrite(text);
    if (file === "Pulumi.yaml" && options.plugin) text += pluginProviderYaml();
    fs.writeFileSync(path.join(dir, file), text);
  }
  linkNodeModules(dir);
  return dir;
}

/**
 * The quickstart copied into `root/<folder>` (default `quickstart-<face>`; a second project of one test file
 * names its own), on that face (the plugin's: `pulumi-gamehost/native`).
 */
export function quickstartOnFace(
  root: string,
  face: "dynamic" | "plugin",
  folder = `quickstart-${face}`,
): string {
  const plugin = face === "plugin";
  return copyExample(root, folder, QUICKSTART_DIR, {
    plugin,
    ...(plugin ? { rewrite: onPluginFace } : {}),
  });
}

/** Links the repo's node_modules into `dir`. */
export function linkNodeModules(dir: string): void {
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
}
