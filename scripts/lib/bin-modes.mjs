// Makes the package's bin targets executable after a build. tsc writes dist/ afresh with mode 0644; npm sets
// the mode when it installs a package, but a project that links this clone (`file:` or `npm link`) runs
// the clone's files as they are, so after `npm run build` its `npx gamehost-emulator` was "Permission denied".
import { chmodSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { bin } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
for (const target of Object.values(bin)) chmodSync(path.join(root, target), 0o755);
