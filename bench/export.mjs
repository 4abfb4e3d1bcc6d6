#!/usr/bin/env node
// 6. Export: a 1 000 000-lobby export written by the emulator (fixture `lobbyGenerators`), then summarized
// the way LobbyHistoryExport does (`openExport` + `summarizeCsv` from dist, over HTTP from the emulator)
// in a child process of its own: MB/s and peak RSS, against reading the same file from disk with a
// plain stream (another child). Also, to explain the ratio: the same HTTP download with nothing done per
// chunk (the delivery's ceiling), summarizeCsv over the file, and SHA-256 alone; and the emulator's write
// rate against a plain stream copy.
import { execFileSync } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { request } from "undici";
import { BENCH_DIR, machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, fmt, line, paired, quantile, spread } from "./lib/stats.mjs";

const LOBBIES = Number(process.env.BENCH_LOBBIES ?? 1_000_000);
const ROUNDS = 3;
const END_TS = 1_750_000_000_000;
const TARGET_RATIO = 0.5;
const TARGET_PEAK_MB = 150;
const MB = 1e6;

line(`# 6. export — ${LOBBIES.toLocaleString("en-US")} lobbies — ${JSON.stringify(machine())}`);
const exportDir = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-export-"));
const emulator = await startEmulatorProcess(
  { exportDir, requestTimeCapMs: 600_000 },
  { lobbyGenerators: [{ count: LOBBIES, seed: 42, endTs: END_TS }] },
);
const { gameId } = serverTarget(emulator.fixture);

/** One pass over the export in a fresh child process (see lib/summarize-child.mjs). */
function pass(mode, ...args) {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", path.join(BENCH_DIR, "lib", "summarize-child.mjs"), mode, ...args.map(String)],
    { encoding: "utf8", maxBuffer: 1 << 20 },
  );
  return JSON.parse(out.trim().split("\n").pop());
}
const rate = (r) => r.bytes / MB / (r.ms / 1000);

try {
  // The emulator writes the CSV while answering the export call (once: a 1M-row write takes seconds).
  const writeStart = performance.now();
  const res = await request(`${emulator.url}/cloud/games/${gameId}/matchmaker/lobbies/export-history`, {
    method: "POST",
    headers: { authorization: `Bearer ${emulator.tokens.user}`, "content-type": "application/json" },
    body: JSON.stringify({ query_start: 0, query_end: END_TS + 1 }),
  });
  const answer = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`export failed: ${res.statusCode} ${JSON.stringify(answer)}`);
  const writeMs = performance.now() - writeStart;
  const url = answer.url;
  const file = path.join(exportDir, new URL(url).pathname.split("/")[2], "export.csv");
  const copies = [];
  const size = statSync(file).size;
  // Write baseline: the same bytes copied with a plain stream (read from the page cache, written to disk).
  for (let r = 0; r < ROUNDS; r++) {
    const copy = path.join(exportDir, `copy-${r}.csv`);
    const start = performance.now();
    await pipeline(createReadStream(file), createWriteStream(copy, { highWaterMark: 1024 * 1024 }));
    copies.push(performance.now() - start);
    rmSync(copy);
  }
  const writeRate = size / MB / (writeMs / 1000);
  const copyRates = copies.map((ms) => size / MB / (ms / 1000));
  line(`export file: ${fmt(size / MB, 1)} MB, ${LOBBIES.toLocaleString("en-US")} rows`);
  line(
    `emulator write (generate + CSV + disk, inside the export call): ${fmt(writeMs / 1000)} s = ${fmt(writeRate, 1)} MB/s`,
  );
  line(`plain stream copy of the same bytes: ${spread(copyRates, 0, " MB/s")}`);
  figure({
    name: "emulator export write rate / plain stream copy rate",
    values: copyRates.map((c) => writeRate / c),
  });

  // Warm the page cache for both sides, then alternate summarizer (over HTTP) and plain disk reads.
  pass("plain", file);
  const http = [];
  const plain = [];
  const result = await paired(ROUNDS, {
    subject: async () => {
      const r = pass("summarize-http", url, size);
      http.push(r);
      return rate(r);
    },
    baseline: async () => {
      const r = pass("plain", file);
      plain.push(r);
      return rate(r);
    },
  });
  const summary = http[0].result;
  // The default fixture's own lobbies are in the span too.
  if (summary.rowCount < LOBBIES) throw new Error(`summary counted ${summary.rowCount} rows`);
  const peak = http.map((r) => r.peakRss / MB);
  const lifetime = http.map((r) => r.lifetimePeakRss / MB);
  // Flat memory: the highest RSS seen in the second half of the file, against the RSS at 20 %.
  const growth = http.map((r) => {
    const at20 = r.rssAt.find((m) => m.percent >= 20)?.rss ?? r.startRss;
    return (Math.max(...r.rssAt.filter((m) => m.percent >= 50).map((m) => m.rss)) - at20) / MB;
  });
  line(
    `summarizer (openExport + summarizeCsv): ${spread(result.subject, 1, " MB/s")}; rows ${summary.rowCount}, sha256 ${summary.sha256.slice(0, 12)}…`,
  );
  line(`plain read stream: ${spread(result.baseline, 0, " MB/s")}`);
  line(`ratio summarizer/plain ${spread(result.ratio, 3)} (target ≥ ${TARGET_RATIO})`);
  line(
    `summarizer peak RSS during the pass ${spread(peak, 1, " MB")} (target < ${TARGET_PEAK_MB} MB); at start ${spread(
      http.map((r) => r.startRss / MB),
      1,
      " MB",
    )}; process high-water mark (start-up included) ${spread(lifetime, 1, " MB")}`,
  );
  line(
    `  RSS growth from 20 % to the highest in 50–100 % of the file: ${spread(growth, 1, " MB")} (flat ⇔ ≈ 0)`,
  );
  line(
    `  RSS by progress (round 1): ${http[0].rssAt.map((m) => `${m.percent}%:${fmt(m.rss / MB, 0)}`).join(" ")} MB`,
  );
  figure({
    name: "summarizer rate / plain disk read rate (1M-lobby export)",
    values: result.ratio,
    digits: 3,
    target: `≥ ${TARGET_RATIO}`,
    met: quantile(result.ratio, 0.5) >= TARGET_RATIO,
  });
  figure({ name: "summarizer rate (MB/s)", values: result.subject, unit: " MB/s", digits: 1 });
  figure({
    name: "summarizer peak RSS (MB)",
    values: peak,
    unit: " MB",
    digits: 1,
    target: `< ${TARGET_PEAK_MB} MB, flat`,
    met: Math.max(...lifetime) < TARGET_PEAK_MB && Math.max(...growth) < 10,
  });
  figure({
    name: "summarizer RSS growth, 20 % → max over 50–100 % of the file (MB)",
    values: growth,
    unit: " MB",
    digits: 1,
  });

  // Where the time goes (one round each, from the warm page cache).
  const download = pass("download-http", url, size);
  if (download.bytes !== size) throw new Error(`download read ${download.bytes} of ${size} bytes`);
  const file1 = pass("summarize-file", file);
  const hash = pass("hash", file);
  // Same bytes whichever way they arrive: the HTTP pass and the file pass must agree, and both must hash
  // like a plain SHA-256 of the file.
  if (
    file1.result.rowCount !== summary.rowCount ||
    file1.result.sha256 !== summary.sha256 ||
    hash.result.sha256 !== summary.sha256
  ) {
    throw new Error(
      `summaries disagree: http ${JSON.stringify(summary)}, file ${JSON.stringify(file1.result)}, sha256 ${hash.result.sha256}`,
    );
  }
  const plainMedian = quantile(result.baseline, 0.5);
  for (const [label, r] of [
    ["openExport download alone (no summarizing)", download],
    ["summarizeCsv over the file", file1],
    ["SHA-256 alone", hash],
  ]) {
    line(
      `  ${label}: ${fmt(rate(r), 1)} MB/s (${fmt(rate(r) / plainMedian, 3)} of plain), peak RSS ${fmt(r.lifetimePeakRss / MB, 1)} MB`,
    );
    figure({ name: `${label} rate / plain disk read rate`, values: [rate(r) / plainMedian], digits: 3 });
  }
} finally {
  await emulator.stop();
  rmSync(exportDir, { recursive: true, force: true });
}
