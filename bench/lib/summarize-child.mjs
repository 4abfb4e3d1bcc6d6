#!/usr/bin/env node
// One pass over an export CSV in a process of its own, so its RSS is the reader's alone. Modes:
//   summarize-http <url>  the provider's path: GamehostClient.openExport(url) → summarizeCsv (dist)
//   summarize-file <path> summarizeCsv over a file stream
//   plain <path>          a plain fs read stream, bytes counted (the disk-rate baseline)
//   hash <path>           a plain read stream hashed with SHA-256 (the floor of any summarizer)
//   scan <path>           prototype: SHA-256 + a quote-aware byte scan counting records (no CSV parser)
// Prints one JSON line: {mode, bytes, ms, startRss, loadPeakRss, peakRss, lifetimePeakRss, rssAt, result}.
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import { REPO, require } from "./env.mjs";

const [mode, arg] = process.argv.slice(2);
// Only the summarize modes load the package (the baselines stay plain Node).
const summarizing = mode.startsWith("summarize");
const { GamehostClient } = summarizing ? require("pulumi-gamehost/api") : {};
const { summarizeCsv } = summarizing
  ? require(path.join(REPO, "dist", "provider", "lobbyHistoryExport", "summary.js"))
  : {};

globalThis.gc?.();
const startRss = process.memoryUsage.rss();
/** Highest RSS so far (start-up and module loading included). */
const loadPeakRss = process.resourceUsage().maxRSS * 1024;
const expected = mode === "summarize-http" ? Number(process.argv[4]) : statSync(arg).size;
let seen = 0;
let peakRss = startRss;
/** RSS when each further 10 % of the file had been read. */
const rssAt = [];
let nextPercent = 10;
const sampler = setInterval(() => {
  const rss = process.memoryUsage.rss();
  peakRss = Math.max(peakRss, rss);
  while (nextPercent <= 100 && (seen / expected) * 100 >= nextPercent) {
    rssAt.push({ percent: nextPercent, rss });
    nextPercent += 10;
  }
}, 10);

/** Counts the bytes flowing through `stream` (for progress marks), passing it on unchanged. */
function counted(stream) {
  stream.on("data", (chunk) => {
    seen += chunk.length;
  });
  return stream;
}

/** Records of a CSV: newlines outside double quotes (a doubled quote inside quotes toggles twice). */
function scanRecords(stream) {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    let records = 0;
    let quoted = false;
    let last = 0x0a;
    stream.on("data", (chunk) => {
      hash.update(chunk);
      if (!quoted && chunk.indexOf(0x22) === -1) {
        // No quote in sight: every newline ends a record (native search, no per-byte loop).
        for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) records++;
      } else {
        for (let i = 0; i < chunk.length; i++) {
          const c = chunk[i];
          if (c === 0x22) quoted = !quoted;
          else if (c === 0x0a && !quoted) records++;
        }
      }
      last = chunk[chunk.length - 1];
    });
    stream.on("end", () =>
      resolve({ rowCount: records + (last === 0x0a ? 0 : 1) - 1, sha256: hash.digest("hex") }),
    );
    stream.on("error", reject);
  });
}

async function run() {
  switch (mode) {
    case "summarize-http": {
      const client = new GamehostClient({ baseUrl: new URL(arg).origin, token: "unused" });
      return summarizeCsv(counted(await client.openExport(arg)));
    }
    case "summarize-file":
      return summarizeCsv(counted(createReadStream(arg)));
    case "plain":
      return new Promise((resolve, reject) => {
        const s = counted(createReadStream(arg));
        s.on("end", () => resolve({ byteLength: seen }));
        s.on("error", reject);
      });
    case "hash":
      return new Promise((resolve, reject) => {
        const hash = createHash("sha256");
        const s = counted(createReadStream(arg));
        s.on("data", (chunk) => hash.update(chunk));
        s.on("end", () => resolve({ sha256: hash.digest("hex") }));
        s.on("error", reject);
      });
    case "scan":
      return scanRecords(counted(createReadStream(arg)));
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

const start = performance.now();
const result = await run();
const ms = performance.now() - start;
clearInterval(sampler);
if (nextPercent <= 100) rssAt.push({ percent: 100, rss: process.memoryUsage.rss() });
// `peakRss`: highest RSS sampled during the pass; `lifetimePeakRss`: the kernel's high-water mark, start-up
// included.
const lifetimePeakRss = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  `${JSON.stringify({ mode, bytes: seen, ms, startRss, loadPeakRss, peakRss, lifetimePeakRss, rssAt, result })}\n`,
);
