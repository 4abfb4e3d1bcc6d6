// The engine harness, compiled for scripts and benchmarks (tests import its TypeScript sources directly).
// One place builds it: into harness/dist, from a clean directory swapped in whole (scripts/lib/replace-dir.mjs),
// so a source file that was moved or removed can never leave a stale module behind that `require` would still
// find, and a script loading the harness while another rebuilds it never finds it missing.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { replaceDir } from "../scripts/lib/replace-dir.mjs";

const HARNESS = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(HARNESS, "..", "package.json"));
const REPO = path.join(HARNESS, "..");
const DIST = path.join(HARNESS, "dist");
// The harness compiles with rootDir `..`: it shares the package's wire-form property rules (src/plugin).
const ENTRY = path.join(DIST, "harness", "src", "index.js");
const STAMP = path.join(DIST, ".sources");

/** Every file under `dir`, sorted. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const file = path.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(file) : [file];
    });
}

/**
 * Every source of the build with its modification time: the harness's own, and the package sources that
 * the last build compiled along (found from its output). The build is current only while this is unchanged.
 */
function sourceStamp(dist = DIST) {
  const shared = filesUnder(path.join(dist, "src")).map((js) =>
    path.join(REPO, path.relative(dist, js)).replace(/\.js$/, ".ts"),
  );
  return [...filesUnder(path.join(HARNESS, "src")), ...shared]
    .map((file) => `${file} ${existsSync(file) ? statSync(file).mtimeMs : "gone"}\n`)
    .join("");
}

/** The compiled harness (`harness/dist/index.js`), rebuilt when a source was added, changed or removed. */
export function loadHarness() {
  const stamp = sourceStamp();
  if (!existsSync(ENTRY) || !existsSync(STAMP) || readFileSync(STAMP, "utf8") !== stamp) {
    replaceDir(DIST, (out) => {
      const build = spawnSync(
        process.execPath,
        [require.resolve("typescript/bin/tsc"), "-p", path.join(HARNESS, "tsconfig.json"), "--outDir", out],
        { stdio: "inherit" },
      );
      if (build.status !== 0) throw new Error("could not compile the engine harness (harness/tsconfig.json)");
      writeFileSync(path.join(out, path.basename(STAMP)), sourceStamp(out));
    });
  }
  return require(ENTRY);
}
