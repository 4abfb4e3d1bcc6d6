#!/usr/bin/env node
// `npm run bench` (after `npm run build`): runs the benchmarks one after another, each in a process of
// its own, streams their reports, and ends with a table of every figure (median [min–max] over rounds,
// target, met?). Options: `--only 1,4` runs a subset; `--json <file>` also writes the figures as JSON.
// Benchmarks are not tests: nothing here runs under vitest or `npm test`.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { BENCH_DIR, loadHarness, machine } from "./lib/env.mjs";
import { fmt } from "./lib/stats.mjs";

const BENCHES = [
  { id: 1, script: "provider-overhead.mjs", title: "Provider overhead" },
  { id: 2, script: "many-resources.mjs", title: "Many resources" },
  { id: 3, script: "state-size.mjs", title: "State size" },
  { id: 4, script: "emulator-throughput.mjs", title: "Emulator throughput" },
  { id: 5, script: "watch.mjs", title: "Watch" },
  { id: 6, script: "export.mjs", title: "Export" },
  { id: 7, script: "plugin-vs-dynamic.mjs", title: "Plugin vs dynamic host" },
  { id: 8, script: "real-cli.mjs", title: "Through the real Pulumi CLI" },
  { id: 9, script: "sea-startup.mjs", title: "The plugin as a single executable" },
  { id: 10, script: "dashboard.mjs", title: "Dashboard cost" },
  { id: 11, script: "fleet.mjs", title: "A Fleet through the real Pulumi CLI" },
  { id: 12, script: "reconcile.mjs", title: "Reconcile (the gamehost command) through the real Pulumi CLI" },
  { id: 13, script: "startup.mjs", title: "Start-up: the package in a program, the plugin" },
];

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const only = option("--only")?.split(",").map(Number);
const jsonOut = option("--json");
const selected = BENCHES.filter((b) => !only || only.includes(b.id));

function run(bench) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(BENCH_DIR, bench.script)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const figures = [];
    let pending = "";
    child.stdout.on("data", (chunk) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop();
      for (const text of lines) {
        if (text.startsWith("BENCH_FIGURE ")) figures.push(JSON.parse(text.slice("BENCH_FIGURE ".length)));
        else process.stdout.write(`${text}\n`);
      }
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(figures) : reject(new Error(`${bench.script} exited with code ${code}`)),
    );
  });
}

const started = Date.now();
const info = { ...machine(), date: new Date().toISOString(), command: "npm run bench" };
process.stdout.write(`machine: ${JSON.stringify(info)}\n`);
loadHarness(); // compile the engine harness once, before any bench needs it
const results = [];
let failed = false;
for (const bench of selected) {
  const t0 = Date.now();
  process.stdout.write(`\n`);
  try {
    const figures = await run(bench);
    results.push({ ...bench, seconds: (Date.now() - t0) / 1000, figures });
  } catch (err) {
    failed = true;
    process.stdout.write(`!! ${bench.title}: ${err.message}\n`);
    results.push({ ...bench, seconds: (Date.now() - t0) / 1000, figures: [], error: err.message });
  }
}

const num = (f, v) => fmt(v, f.digits);
process.stdout.write(
  `\n## Figures (median [min–max] over rounds)\n\n| # | figure | value | target | met |\n|---|---|---|---|---|\n`,
);
for (const r of results) {
  for (const f of r.figures) {
    const range = f.n > 1 && f.min !== f.max ? ` [${num(f, f.min)}–${num(f, f.max)}]` : "";
    const value = `${num(f, f.median)}${range}${f.unit}`;
    const met = f.met === null ? "" : f.met ? "yes" : "**no**";
    process.stdout.write(`| ${r.id} | ${f.name} | ${value} | ${f.target ?? ""} | ${met} |\n`);
  }
  if (r.error) process.stdout.write(`| ${r.id} | ${r.title} failed: ${r.error} | | | |\n`);
}
const total = (Date.now() - started) / 1000;
process.stdout.write(
  `\n${results.map((r) => `${r.id}: ${fmt(r.seconds, 1)} s`).join(", ")}; total ${fmt(total, 1)} s\n`,
);
if (jsonOut)
  writeFileSync(jsonOut, `${JSON.stringify({ ...info, totalSeconds: total, results }, null, 2)}\n`);
if (failed) process.exitCode = 1;
