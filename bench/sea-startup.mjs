#!/usr/bin/env node
// 9. The plugin as a single executable (scripts/build-sea.mjs) against today's plugin (`node` running
// plugin/pulumi-resource-gamehost from the installed package), measured in the same run:
//   - Spawn to port: from just before the spawn to the port line on stdout (what the engine waits for),
//     with the engine address as argument; both interleaved, in an order that changes every run. Median,
//     fastest and slowest, and the ratio of medians (SEA / today's).
//   - Size: the SEA file, against what today's plugin needs on disk: the `node` binary plus the package's
//     production install (dist, plugin and the production dependencies in node_modules).
// `BENCH_RUNS` sets the runs per side (default 21). Builds the SEA into a temp folder first. Its figures go to
// `npm run bench`'s table (bench/run.mjs); none has a target: they are the measurement the issue asked for.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { figure } from "./lib/stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-sea-"));

function spawnToPort(command, args) {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    // No PATH: neither side may find anything it was not given.
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"], env: {} });
    child.stdout.once("data", (chunk) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      child.kill("SIGKILL");
      if (/^\d+\s*$/.test(chunk.toString())) resolve(ms);
      else reject(new Error(`${command}: ${chunk}`));
    });
    child.on("error", reject);
  });
}

function duBytes(paths) {
  const out = execFileSync("du", ["-scb", ...paths], { encoding: "utf8" });
  return Number(out.trim().split("\n").at(-1).split(/\s+/)[0]);
}

try {
  execFileSync(process.execPath, [path.join(ROOT, "scripts", "build-sea.mjs"), work], { stdio: "ignore" });
  const sea = path.join(work, "pulumi-resource-gamehost");
  const sides = {
    "today (node + plugin/pulumi-resource-gamehost)": [
      process.execPath,
      [path.join(ROOT, "plugin", "pulumi-resource-gamehost"), "127.0.0.1:1"],
    ],
    "single executable": [sea, ["127.0.0.1:1"]],
  };
  const names = Object.keys(sides);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const name of i % 2 ? [...names].reverse() : names)
      times[name].push(await spawnToPort(...sides[name]));
  }
  const median = (t) => [...t].sort((a, b) => a - b)[t.length >> 1];
  for (const name of names) {
    const t = [...times[name]].sort((a, b) => a - b);
    console.log(
      `spawn to port, ${name}: median ${median(t).toFixed(0)} ms (fastest ${t[0].toFixed(0)}, slowest ${t.at(-1).toFixed(0)}, n=${t.length})`,
    );
  }
  console.log(
    `spawn to port, ratio of medians (single executable / today): ${(median(times[names[1]]) / median(times[names[0]])).toFixed(2)}`,
  );
  figure({ name: "spawn to port, today's plugin", values: times[names[0]], unit: " ms", digits: 0 });
  figure({ name: "spawn to port, single executable", values: times[names[1]], unit: " ms", digits: 0 });
  figure({
    name: "spawn to port, single executable / today (ratio of medians)",
    values: [median(times[names[1]]) / median(times[names[0]])],
  });

  const production = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .filter((p) => p !== ROOT && fs.existsSync(p) && !fs.lstatSync(p).isSymbolicLink());
  const todayBytes =
    fs.statSync(process.execPath).size +
    duBytes([path.join(ROOT, "dist"), path.join(ROOT, "plugin"), ...production]);
  const seaBytes = fs.statSync(sea).size;
  const mib = (b) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `size, single executable: ${mib(seaBytes)} (node ${process.version} is ${mib(fs.statSync(process.execPath).size)} of it)`,
  );
  figure({ name: "size, single executable", values: [seaBytes / 1024 / 1024], unit: " MiB", digits: 1 });
  figure({
    name: "size, today (node + package + production dependencies)",
    values: [todayBytes / 1024 / 1024],
    unit: " MiB",
    digits: 1,
  });
  console.log(
    `size, today: node ${mib(fs.statSync(process.execPath).size)} + package and production dependencies ${mib(todayBytes - fs.statSync(process.execPath).size)} = ${mib(todayBytes)}`,
  );
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
