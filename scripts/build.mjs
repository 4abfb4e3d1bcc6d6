// `npm run build`: compiles src/ to CommonJS in dist/ (Pulumi's closure serializer needs CommonJS), with the
// dashboard's static files and executable bin targets, into a fresh folder swapped in at the end
// (scripts/lib/replace-dir.mjs): a test or `pulumi up` running from this tree during a rebuild keeps a whole
// dist/, and no output of a removed source survives.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { replaceDir } from "./lib/replace-dir.mjs";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const DIST = path.join(ROOT, "dist");
const require = createRequire(path.join(ROOT, "package.json"));

/** tsc has printed its errors: the build stops with them and nothing else. */
class CompileFailed extends Error {}

function build(out) {
  const tsc = spawnSync(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", path.join(ROOT, "tsconfig.json"), "--outDir", out],
    { stdio: "inherit" },
  );
  if (tsc.status !== 0) throw new CompileFailed();
  const dashboard = path.join("emulator", "dashboard", "static");
  cpSync(path.join(ROOT, "src", dashboard), path.join(out, dashboard), { recursive: true });
  // tsc writes files with mode 0644. npm sets the bins' mode when it installs a package, but a project that
  // links this clone (`file:` or `npm link`) runs the clone's files as they are: without this its
  // `npx gamehost-emulator` was "Permission denied".
  const { bin } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
  for (const target of Object.values(bin)) {
    const [top, ...rest] = target.split("/");
    chmodSync(top === "dist" ? path.join(out, ...rest) : path.join(ROOT, target), 0o755);
  }
}

try {
  replaceDir(DIST, build);
} catch (error) {
  if (!(error instanceof CompileFailed)) throw error;
  console.error("build: tsc failed; dist/ is left as it was");
  process.exit(1);
}
