/**
 * The package as an earlier commit of main packed it, for tests of stacks that upgrade (or go back): built
 * once from `git archive` with this repo's dependencies and kept in node_modules/.cache.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./dist";

/**
 * The npm tarball of `commit`: `git archive`, built with this repo's dependencies, `npm pack`. Kept in
 * node_modules/.cache, so only the first run pays for the build.
 */
export function tarballOf(commit: string): string {
  const cache = path.join(REPO_ROOT, "node_modules", ".cache", "gamehost-upgrade");
  const tarball = path.join(cache, `${commit}.tgz`);
  if (fs.existsSync(tarball)) return tarball;
  const checkout = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-release-"));
  try {
    const archive = execFileSync("git", ["archive", "--format=tar", commit], {
      cwd: REPO_ROOT,
      maxBuffer: 1 << 30,
    });
    execFileSync("tar", ["-x", "-C", checkout], { input: archive });
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(checkout, "node_modules"), "dir");
    execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], {
      cwd: checkout,
    });
    const packed = execFileSync("npm", ["pack", "--ignore-scripts", "--silent"], {
      cwd: checkout,
      encoding: "utf8",
    }).trim();
    fs.mkdirSync(cache, { recursive: true });
    fs.copyFileSync(path.join(checkout, packed.split("\n").pop() ?? packed), tarball);
    return tarball;
  } finally {
    fs.rmSync(checkout, { recursive: true, force: true });
  }
}

/**
 * Gives the project `dir` a `node_modules` whose `pulumi-gamehost` is unpacked from `tarball` and whose other
 * entries link to this repo's (one `@pulumi/pulumi` for the program, the package and the hosts).
 */
export function installTarball(dir: string, tarball: string): void {
  const modules = path.join(dir, "node_modules");
  fs.mkdirSync(modules, { recursive: true });
  for (const entry of fs.readdirSync(path.join(REPO_ROOT, "node_modules"))) {
    if (entry === "pulumi-gamehost" || entry.startsWith(".")) continue;
    const link = path.join(modules, entry);
    if (!fs.existsSync(link)) fs.symlinkSync(path.join(REPO_ROOT, "node_modules", entry), link, "dir");
  }
  const pkg = path.join(modules, "pulumi-gamehost");
  fs.rmSync(pkg, { recursive: true, force: true });
  fs.mkdirSync(pkg);
  execFileSync("tar", ["-xzf", tarball, "-C", pkg, "--strip-components=1"]);
}

/** Replaces the project's `pulumi-gamehost` with this build, as `npm install` of the new version would. */
export function installThisBuild(dir: string): void {
  const pkg = path.join(dir, "node_modules", "pulumi-gamehost");
  fs.rmSync(pkg, { recursive: true, force: true });
  fs.symlinkSync(REPO_ROOT, pkg, "dir");
}
