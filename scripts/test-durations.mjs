#!/usr/bin/env node
// Records each test file's duration from a Vitest JSON report into test/support/fileDurations.json, which the
// suite's sequencer (test/support/longestFirst.mts) reads to start the longest files first on a fresh clone.
// Refresh it after a full run on an otherwise idle machine (CI's figures are the ones that matter):
//   npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/vitest.json
//   npm run test:durations -- /tmp/vitest.json
// Files the report does not cover keep their figure; files that no longer exist are dropped.
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const target = path.join(root, "test", "support", "fileDurations.json");
const reportFile = process.argv[2];
if (!reportFile) {
  console.error("usage: npm run test:durations -- <vitest JSON report>");
  process.exit(2);
}
const report = JSON.parse(fs.readFileSync(reportFile, "utf8"));
if (!Array.isArray(report.testResults)) {
  console.error(`${reportFile} is not a Vitest JSON report (no testResults)`);
  process.exit(2);
}
const durations = fs.existsSync(target) ? JSON.parse(fs.readFileSync(target, "utf8")) : {};
for (const result of report.testResults) {
  const file = path.relative(root, result.name).split(path.sep).join("/");
  durations[file] = Math.round((result.endTime - result.startTime) / 100) / 10;
}
const kept = Object.fromEntries(
  Object.entries(durations)
    .filter(([file]) => fs.existsSync(path.join(root, file)))
    .sort(([a], [b]) => a.localeCompare(b)),
);
fs.writeFileSync(target, `${JSON.stringify(kept, null, 2)}\n`);
console.log(`${Object.keys(kept).length} files in ${path.relative(root, target)}`);
