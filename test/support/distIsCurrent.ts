/**
 * The one guard of every test that runs the compiled package (the integration and e2e projects' globalSetup):
 * a test over a `dist/` older than `src/` would silently test old code. Each `src/**\/*.ts` must have an
 * emitted `dist/**\/*.js` at least as new, and each file of a folder the build copies as it is (the dashboard's
 * page) a copy at least as new; otherwise the run stops with one line naming the newest source
 * the build has not seen and the command to run. GAMEHOST_TEST_BUILD=1 rebuilds instead of failing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** Folders of src/ that scripts/build.mjs copies to dist/ file by file (tsc compiles the rest). */
const COPIED = [path.join("emulator", "dashboard", "static")];

/** Each source under `dir` with the file the build makes of it (relative to src/ and dist/). */
function sourcesUnder(dir: string, relative = ""): { source: string; built: string }[] {
  return readdirSync(path.join(dir, relative), { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(relative, entry.name);
    if (entry.isDirectory()) return sourcesUnder(dir, at);
    if (COPIED.some((copied) => at.startsWith(`${copied}${path.sep}`))) return [{ source: at, built: at }];
    if (!entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) return [];
    return [{ source: at, built: at.replace(/\.ts$/, ".js") }];
  });
}

/** The newest source whose compiled file is missing or older than it, or undefined when dist/ is current. */
export function staleSource(root = REPO_ROOT): string | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  for (const { source, built } of sourcesUnder(path.join(root, "src"))) {
    const file = path.join(root, "src", source);
    const emitted = path.join(root, "dist", built);
    const mtimeMs = statSync(file).mtimeMs;
    if (existsSync(emitted) && statSync(emitted).mtimeMs >= mtimeMs) continue;
    if (!newest || mtimeMs > newest.mtimeMs) newest = { file: path.relative(root, file), mtimeMs };
  }
  return newest?.file;
}

export default function setup(): void {
  const stale = staleSource();
  if (stale === undefined) return;
  if (process.env.GAMEHOST_TEST_BUILD === "1") {
    execFileSync("npm", ["run", "build"], { cwd: REPO_ROOT, stdio: "inherit" });
    return;
  }
  // One line and out: a stack trace would only bury the command to run.
  console.error(
    `dist/ is older than ${stale}: run \`npm run build\` (or set GAMEHOST_TEST_BUILD=1 to rebuild)`,
  );
  process.exit(1);
}
