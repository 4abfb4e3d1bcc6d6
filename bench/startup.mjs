#!/usr/bin/env node
// 13. Start-up that every `preview` and `up` pays once, whatever the stack's size (issue 24: most of a
// Fleet's fixed cost). Each figure is a fresh `node` process, `BENCH_RUNS` of them (default 10), median
// [min–max]:
//   - the program loading the package: `require("pulumi-gamehost")` and `require("pulumi-gamehost/native")`
//     after `@pulumi/pulumi` (which every program loads anyway, timed too as the baseline of the ratio);
//   - the plugin: spawn to its port line (what the engine waits for), and spawn to the answer of its first
//     call (GetPluginInfo: the provider's handlers are loaded by then, as for Configure and Check).
// `node bench/startup.mjs [root…]` measures the package built in each `root` (default: this repository),
// interleaved run by run, so that two builds are compared under the same load.
import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { BENCH_DIR } from "./lib/env.mjs";
import { figure, line, spread } from "./lib/stats.mjs";

const REPO = path.join(BENCH_DIR, "..");
const ROOTS = (process.argv.length > 2 ? process.argv.slice(2) : [REPO]).map((r) => path.resolve(r));
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const sdkRequire = createRequire(
  createRequire(path.join(REPO, "package.json")).resolve("@pulumi/pulumi/package.json"),
);
const grpc = sdkRequire("@grpc/grpc-js");
const provrpc = sdkRequire("./proto/provider_grpc_pb");
const emptyproto = sdkRequire("google-protobuf/google/protobuf/empty_pb");

/** ms to require `specifier` in a fresh process whose cwd is ROOT, after `@pulumi/pulumi`. */
function requireMs(ROOT, specifier) {
  const script = `require("@pulumi/pulumi");const t=process.hrtime.bigint();require(${JSON.stringify(specifier)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  return Number(execFileSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" }));
}

/** ms to require `@pulumi/pulumi` in a fresh process (the part of a program's start-up that is not ours). */
function sdkMs(ROOT) {
  const script = `const t=process.hrtime.bigint();require("@pulumi/pulumi");process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  return Number(execFileSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" }));
}

/** `{port, ready}`: ms from spawn to the port line, and to the answer of GetPluginInfo. */
function pluginStart(ROOT) {
  const start = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - start) / 1e6;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "plugin", "pulumi-resource-gamehost"), "127.0.0.1:1"],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    child.on("error", reject);
    child.stdout.once("data", (chunk) => {
      const port = since();
      const client = new provrpc.ResourceProviderClient(
        `127.0.0.1:${chunk.toString().trim()}`,
        grpc.credentials.createInsecure(),
      );
      client.getPluginInfo(new emptyproto.Empty(), (error) => {
        const ready = since();
        client.close();
        child.kill("SIGKILL");
        if (error) reject(error);
        else resolve({ port, ready });
      });
    });
  });
}

const results = ROOTS.map(() => ({ sdk: [], root: [], native: [], port: [], ready: [] }));
for (let i = 0; i < RUNS; i++) {
  const order = ROOTS.map((_, k) => k);
  if (i % 2) order.reverse();
  for (const k of order) {
    const ROOT = ROOTS[k];
    const r = results[k];
    r.sdk.push(sdkMs(ROOT));
    r.root.push(requireMs(ROOT, "pulumi-gamehost"));
    r.native.push(requireMs(ROOT, "pulumi-gamehost/native"));
    const { port, ready } = await pluginStart(ROOT);
    r.port.push(port);
    r.ready.push(ready);
  }
}
ROOTS.forEach((ROOT, k) => {
  const r = results[k];
  line(`# 13. Start-up of ${ROOT} (${RUNS} runs each)`);
  const rows = [
    ["require @pulumi/pulumi (every program; not ours)", r.sdk],
    ['then require("pulumi-gamehost")', r.root],
    ['then require("pulumi-gamehost/native")', r.native],
    ["plugin: spawn to port line", r.port],
    ["plugin: spawn to its first answer (GetPluginInfo)", r.ready],
  ];
  for (const [name, values] of rows) {
    line(`  ${name}: ${spread(values, 0, " ms")}`);
    if (ROOT === REPO) figure({ name: `start-up: ${name}`, values, unit: " ms", digits: 0 });
  }
});
