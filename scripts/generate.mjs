#!/usr/bin/env node
// `npm run generate`: writes what the kind definitions and the package schema determine — plugin/schema.json,
// the TypeScript types every face uses (src/types/), the TypeScript faces (classes, shims, host modules,
// data-source wrappers: src/dynamic/generated, src/native/generated), the shim subpaths of package.json and
// the reference pages (docs/reference/) — from the sources in src/ (no build needed: a renamed kind that does
// not compile yet still generates). `--check` writes nothing and exits 1 naming each stale file (the test
// suite runs it, so nothing generated can drift).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { referencePages } from "./generate/docs.mjs";
import { argsOf, faceModules, withShimSubpaths } from "./generate/faces.mjs";
import { typeModules } from "./generate/typescript.mjs";
import { SCHEMA_FILES, wireModules } from "./generate/wire.mjs";
import { sourceRequire } from "./lib/require-source.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(repo, "package.json"));
const fromSource = sourceRequire(repo);
const src = (module) => fromSource(path.join(repo, "src", module));
const check = process.argv.includes("--check");

/** Formats a file as the repo's biome settings do, so the generated files pass `biome check`. */
function formatted(file, text) {
  const biome = spawnSync(
    process.execPath,
    [require.resolve("@biomejs/biome/bin/biome"), "format", `--stdin-file-path=${file}`],
    { cwd: repo, input: text, encoding: "utf8" },
  );
  if (biome.status !== 0) throw new Error(`biome could not format ${file}:\n${biome.stderr}`);
  return biome.stdout;
}

/** A mistake the generator can name: one line, no stack (the stack would point into the registry, not at it). */
function fail(message) {
  console.error(`generate: ${message}`);
  process.exit(1);
}

const isKind = (value) =>
  typeof value === "object" &&
  value !== null &&
  typeof value.name === "string" &&
  typeof value.hostSubpath === "string" &&
  typeof value.create === "function";

/**
 * The registry's mistakes README "Adding a kind" invites: an entry of KINDS that is not a kind (its import names
 * no export: without a type check that is `undefined`, and the registry failed reading its name), or a kind in a
 * `src/kinds/<kind>/implementation.ts` that KINDS does not list (nothing was generated for it, silently).
 */
function registryMistake(kinds) {
  const text = readFileSync(path.join(repo, "src", "kinds", "index.ts"), "utf8");
  const at = kinds.findIndex((kind) => !isKind(kind));
  if (at >= 0) {
    const listed = /export const KINDS[^=]*=\s*\[([^\]]*)\]/
      .exec(text)?.[1]
      .split(",")
      .map((n) => n.trim());
    const name = listed?.[at] || `entry ${at}`;
    const from = new RegExp(`import\\s*{[^}]*\\b${name}\\b[^}]*}\\s*from\\s*"([^"]+)"`).exec(text)?.[1];
    const what = kinds[at] === undefined ? "undefined" : "not a kind (what defineKind returns)";
    return `KINDS in src/kinds/index.ts lists ${name}, which is ${what}${
      from && kinds[at] === undefined ? `: ${from} exports no ${name} (a misnamed export or import?)` : ""
    }`;
  }
  // A schema import that names no export of its spec is `undefined` here, as an entry of KINDS above.
  const isSchema = (value) => typeof value === "object" && value !== null && "_zod" in value;
  for (const kind of kinds) {
    if (!Array.isArray(kind.inputs) && isSchema(kind.inputs))
      return `the kind ${kind.name}'s inputs is one schema, not a list of them: write \`inputs: [Schema]\``;
    const sources = [
      ...(Array.isArray(kind.inputs) ? kind.inputs : [kind.inputs]).map((source, i) => [
        `inputs[${i}]`,
        source,
      ]),
      ["computed", kind.computed],
    ];
    const [field, value] = sources.find(([, source]) => !isSchema(source)) ?? [];
    if (field)
      return `the kind ${kind.name}'s ${field} is ${value === undefined ? "undefined" : typeof value}, not a zod schema (an import that names no export?)`;
  }
  // A kind copied from another keeps its name or subpath: the second overwrote the first's schema entry, or re-pointed
  // the first's released shim subpath at its own host module (every stack's shim would have loaded the copy).
  for (const [i, kind] of kinds.entries()) {
    const earlier = kinds.slice(0, i);
    if (earlier.some((other) => other.name === kind.name))
      return `two kinds have the same name "${kind.name}": give each its own`;
    const sharing = earlier.find((other) => other.hostSubpath === kind.hostSubpath);
    if (sharing)
      return (
        `the kinds ${sharing.name} and ${kind.name} have the same hostSubpath "${kind.hostSubpath}": give ` +
        `${kind.name} its own (a released subpath never changes: stack states require it)`
      );
  }
  const kindsDir = path.join(repo, "src", "kinds");
  for (const dir of readdirSync(kindsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    const file = path.join(kindsDir, dir.name, "implementation.ts");
    if (!existsSync(file)) continue;
    for (const [exported, value] of Object.entries(fromSource(file)))
      if (isKind(value) && !kinds.includes(value))
        return (
          `src/kinds/${dir.name}/implementation.ts exports the kind ${value.name} (${exported}), which KINDS in ` +
          'src/kinds/index.ts does not list: add it there (README "Adding a kind", step 2)'
        );
  }
  return undefined;
}

const { KINDS, FUNCTIONS } = src("kinds/index.ts");
const mistake = registryMistake(KINDS);
if (mistake) fail(mistake);

const { packageSchema } = src("plugin/schema.ts");
let schema;
try {
  schema = packageSchema();
} catch (error) {
  if (error?.name !== "UndescribableProperty") throw error;
  fail(error.message);
}
const { CONFIG_KEYS } = src("api/config.ts");
const configEnv = Object.fromEntries(Object.entries(CONFIG_KEYS).map(([name, { env }]) => [name, env]));

/** Generated directories (every file in them is generated) and files, by repo-relative path. */
const outputs = new Map([
  ["plugin/schema.json", formatted("plugin/schema.json", JSON.stringify(schema, null, 2))],
]);
const directories = [
  "src/types/generated",
  "src/api/generated",
  "docs/reference",
  "src/dynamic/generated",
  "src/dynamic/generated/host",
  "src/native/generated",
];
for (const [file, text] of Object.entries(typeModules(schema))) {
  const at = `src/types/generated/${file}`;
  outputs.set(at, formatted(at, text));
}
const wireSources = SCHEMA_FILES.map((file) =>
  readFileSync(path.join(repo, "src", "api", "schemas", file), "utf8"),
);
const wireTypes = wireModules(require("zod").z, src("api/schemas/index.ts"), wireSources);
for (const [file, text] of Object.entries(wireTypes)) {
  const at = `src/api/generated/${file}`;
  outputs.set(at, formatted(at, text));
}
// The TypeScript faces of every kind and data source, from their definitions.
/** Where a kind's definition is exported: found by identity among the loaded sources of src/kinds/. */
function definitionOf(kind) {
  for (const [file, module] of Object.entries(fromSource.cache)) {
    if (!file.startsWith(path.join(repo, "src", "kinds")) || !file.endsWith(".ts")) continue;
    const name = Object.keys(module.exports).find((key) => module.exports[key] === kind);
    if (name)
      return { module: path.relative(repo, file).replace(/\.ts$/, "").split(path.sep).join("/"), name };
  }
  throw new Error(`the definition of kind ${kind.name} is exported by no module of src/kinds/`);
}
for (const [at, text] of Object.entries(faceModules(repo, KINDS, FUNCTIONS, schema, definitionOf)))
  outputs.set(at, formatted(at, text));
// What the TypeScript classes accept beyond the schema's types (a kind's `ACCEPTS_BEYOND_SCHEMA`, field → what
// else it takes), for the reference to say.
const typescriptAccepts = Object.fromEntries(
  KINDS.flatMap((kind) => {
    const args = argsOf(repo, kind);
    const accepts = args && src(`${args.module.replace("../", "")}.ts`).ACCEPTS_BEYOND_SCHEMA;
    return accepts ? [[kind.name, accepts]] : [];
  }),
);
// package.json's shim subpaths: `./provider/<hostSubpath>` of every kind, and their typesVersions.
const manifestText = readFileSync(path.join(repo, "package.json"), "utf8");
outputs.set(
  "package.json",
  formatted("package.json", JSON.stringify(withShimSubpaths(JSON.parse(manifestText), KINDS), null, 2)),
);
for (const [file, text] of Object.entries(referencePages(schema, typescriptAccepts, configEnv)))
  outputs.set(`docs/reference/${file}`, text);

const stale = [];
for (const [file, text] of outputs) {
  const at = path.join(repo, file);
  if (existsSync(at) && readFileSync(at, "utf8") === text) continue;
  stale.push(file);
  if (!check) {
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(at, text);
  }
}
for (const dir of directories) {
  const at = path.join(repo, dir);
  const files = existsSync(at) ? readdirSync(at, { withFileTypes: true }) : [];
  for (const file of files.filter((entry) => entry.isFile()).map((entry) => entry.name)) {
    const relative = `${dir}/${file}`;
    if (outputs.has(relative)) continue;
    stale.push(`${relative} (no longer generated)`);
    if (!check) rmSync(path.join(at, file));
  }
}

if (check && stale.length > 0) {
  console.error(
    `Generated files are out of date: ${stale.join(", ")}. Run \`npm run generate\` and commit them.`,
  );
  process.exit(1);
}
console.log(stale.length === 0 ? "generated files are up to date" : `wrote ${stale.join(", ")}`);
