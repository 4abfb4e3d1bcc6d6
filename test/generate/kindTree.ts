/**
 * A throwaway copy of the tree for the generator's tests (README "Adding a kind"): the sources the generator
 * and the checks read, with the repository's node_modules linked, and a kind added the way a contributor adds
 * one (its spec, its implementation, one registry line).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";

const REPO_ROOT = path.resolve(__dirname, "..", "..");
const SOURCES = ["src", "scripts", "plugin", "docs", "package.json", "tsconfig.json", "biome.json"];

/** A temp folder named by `prefix` holding a copy of `from`'s sources (the repository's by default). */
export function copyOfTree(prefix: string, from = REPO_ROOT): string {
  const tree = mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const entry of SOURCES) cpSync(path.join(from, entry), path.join(tree, entry), { recursive: true });
  return tree;
}

/** What a contributor writes for a kind: `src/kinds/<folder>/` with its spec and implementation. */
export interface KindFiles {
  folder: string;
  /** The implementation's export, as the registry line names it. */
  exportName: string;
  spec: string;
  implementation: string;
}

/** Links node_modules into `tree`, writes the kind's files and, when `registered`, its line in KINDS. */
export function addKind(tree: string, kind: KindFiles, registered = true): void {
  symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(tree, "node_modules"), "dir");
  mkdirSync(path.join(tree, "src/kinds", kind.folder));
  writeFileSync(path.join(tree, "src/kinds", kind.folder, "spec.ts"), kind.spec);
  writeFileSync(path.join(tree, "src/kinds", kind.folder, "implementation.ts"), kind.implementation);
  if (!registered) return;
  const index = path.join(tree, "src/kinds/index.ts");
  const registry = readFileSync(index, "utf8");
  const withKind = registry
    .replace(/(export const KINDS: [^=]+= \[)([^\]]*)\]/, `$1$2, ${kind.exportName}]`)
    .replace(
      /^(import type .*\n)/m,
      `$1import { ${kind.exportName} } from "./${kind.folder}/implementation";\n`,
    );
  expect(withKind).not.toBe(registry);
  writeFileSync(index, withKind);
}
