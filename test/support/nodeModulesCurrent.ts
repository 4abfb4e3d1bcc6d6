/**
 * A guard of every project (vitest.config.mts): after a pull that changes package-lock.json, tests over the
 * node_modules/ of the old lockfile passed or failed for reasons no test names. npm records what it installed in
 * node_modules/.package-lock.json; when a locked package is missing there or at another version, the run stops
 * with one line naming it and the command to run. Reading two JSON files takes milliseconds.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "..", "..");

interface LockEntry {
  version?: string;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
}

const packagesOf = (file: string): Record<string, LockEntry> =>
  (JSON.parse(readFileSync(file, "utf8")) as { packages?: Record<string, LockEntry> }).packages ?? {};

/** The first locked package npm has not installed as locked, or undefined when node_modules/ matches the lock. */
export function lockMismatch(root = REPO_ROOT): string | undefined {
  const installedFile = path.join(root, "node_modules", ".package-lock.json");
  // No record: installed by another package manager (or an npm before 7); nothing to compare.
  if (!existsSync(installedFile)) return undefined;
  const installed = packagesOf(installedFile);
  for (const [at, locked] of Object.entries(packagesOf(path.join(root, "package-lock.json")))) {
    if (!at.startsWith("node_modules/")) continue;
    const name = at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length);
    const got = installed[at];
    // Optional packages of other platforms (esbuild's, rolldown's) are locked but never installed here.
    if (!got && (locked.optional || locked.devOptional || locked.peer)) continue;
    if (!got) return `${name} is not installed, package-lock.json has ${locked.version}`;
    if (got.version !== locked.version)
      return `${name} ${got.version} is installed, package-lock.json has ${locked.version}`;
  }
  return undefined;
}

export default function setup(): void {
  const mismatch = lockMismatch();
  if (mismatch === undefined) return;
  // One line and out, as the dist/ guard.
  console.error(`node_modules/ is not what package-lock.json locks (${mismatch}): run \`npm ci\``);
  process.exit(1);
}
