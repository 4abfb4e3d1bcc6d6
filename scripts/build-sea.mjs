// Builds `pulumi-resource-gamehost` as a Node.js single executable application (SEA): the plugin, its
// dependencies and the Node.js runtime running this script in one file, for users with no Node.js installed
// (YAML, Python, Go). esbuild bundles dist/plugin/main.js into one CommonJS file (a SEA can require only Node's
// built-in modules), `node --experimental-sea-config` makes the preparation blob (with V8's code cache, which
// shortens start-up), and postject injects it into a copy of this `node` binary. The binary is for this
// platform and architecture (linux-x64 on the release runner), like the node it copies.
//
//   node scripts/build-sea.mjs [out dir]      (default release/sea; run `npm run build` first)
//
// Prints the binary's path and size.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { isBuiltin } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { inject } from "postject";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "release", "sea"));
const MAIN = path.join(ROOT, "dist", "plugin", "main.js");
// Node's SEA fuse (https://nodejs.org/api/single-executable-applications.html).
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

if (!fs.existsSync(MAIN)) throw new Error(`${path.relative(ROOT, MAIN)} is missing: run npm run build first`);
fs.mkdirSync(OUT, { recursive: true });
const work = fs.mkdtempSync(path.join(OUT, ".build-"));
try {
  const entry = path.join(work, "entry.js");
  fs.writeFileSync(
    entry,
    `require(${JSON.stringify(MAIN)}).main().catch((error) => {
  process.stderr.write(\`pulumi-resource-gamehost: \${error && error.message ? error.message : error}\\n\`);
  process.exit(1);
});
`,
  );
  // src/plugin/proto.ts loads the SDK's stubs relative to the installed @pulumi/pulumi at run time (so that
  // they share its google-protobuf); in the bundle there is one copy of each, required statically.
  const staticProto = path.join(work, "proto.js");
  fs.writeFileSync(
    staticProto,
    [
      `exports.grpc = require("@grpc/grpc-js");`,
      ...[
        ["provproto", "@pulumi/pulumi/proto/provider_pb"],
        ["provrpc", "@pulumi/pulumi/proto/provider_grpc_pb"],
        ["pluginproto", "@pulumi/pulumi/proto/plugin_pb"],
        ["statusproto", "@pulumi/pulumi/proto/status_pb"],
        ["engineproto", "@pulumi/pulumi/proto/engine_pb"],
        ["enginerpc", "@pulumi/pulumi/proto/engine_grpc_pb"],
        ["structproto", "google-protobuf/google/protobuf/struct_pb"],
        ["emptyproto", "google-protobuf/google/protobuf/empty_pb"],
        ["anyproto", "google-protobuf/google/protobuf/any_pb"],
      ].map(([name, module]) => `exports.${name} = require(${JSON.stringify(module)});`),
      "",
    ].join("\n"),
  );
  const bundle = path.join(work, "bundle.js");
  const pluginDir = path.dirname(MAIN);
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    format: "cjs",
    outfile: bundle,
    nodePaths: [path.join(ROOT, "node_modules")],
    logLevel: "error",
    plugins: [
      {
        name: "static-proto",
        setup(build) {
          build.onResolve({ filter: /^\.\/proto$/ }, (args) =>
            path.dirname(args.importer) === pluginDir ? { path: staticProto } : undefined,
          );
        },
      },
    ],
  });
  // What the bundle still requires must be Node's own: anything else would fail only when reached.
  const foreign = [...fs.readFileSync(bundle, "utf8").matchAll(/\brequire\("([^"]+)"\)/g)]
    .map((m) => m[1])
    .filter((m) => !m.startsWith("node:") && !isBuiltin(m)); // node:sqlite (undici's cache) is newer than Node 20
  if (foreign.length > 0) throw new Error(`the bundle still requires ${[...new Set(foreign)].join(", ")}`);

  const blob = path.join(work, "sea-prep.blob");
  const config = path.join(work, "sea-config.json");
  fs.writeFileSync(
    config,
    JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
  );
  execFileSync(process.execPath, ["--experimental-sea-config", config], { stdio: "ignore" });

  const binary = path.join(OUT, "pulumi-resource-gamehost");
  const partial = `${binary}.partial`;
  fs.copyFileSync(process.execPath, partial);
  fs.chmodSync(partial, 0o755);
  await inject(partial, "NODE_SEA_BLOB", fs.readFileSync(blob), { sentinelFuse: FUSE });
  fs.renameSync(partial, binary);
  const mb = (fs.statSync(binary).size / 1024 / 1024).toFixed(1);
  process.stdout.write(`${path.relative(process.cwd(), binary)}: ${mb} MiB (node ${process.version})\n`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
