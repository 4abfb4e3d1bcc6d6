#!/usr/bin/env node
// One pass over an export CSV in a process of its own, so its RSS is the reader's alone. Modes:
//   summarize-http <url>  the provider's path: GamehostClient.openExport(url) → summarizeCsv (dist)
//   summarize-file <path> summarizeCsv over a file stream
//   download-http <url>   GamehostClient.openExport(url), bytes counted only (the HTTP delivery's ceiling)
//   plain <path>          a plain fs read stream, bytes counted (the disk-rate baseline)
//   hash <path>           a plain read stream hashed with SHA-256 (the floor of any summarizer)
// Prints one JSON line: {mode, bytes, ms, startRss, loadPeakRss, peakRss, lifetimePeakRss, rssAt, result}.
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import { REPO, require } from "./env.mjs";

const [mode, arg] = process.argv.slice(2);
// Only the modes that go through the package load it (the baselines stay plain Node).
const summarizing = mode.startsWith("summarize") || mode === "download-http";
const { GamehostClient } = summarizing ? require("pulumi-gamehost/api") : {};
const { summarizeCsv } = summarizing
  ? require(path.join(REPO, "dist", "kinds", "lobbyHistoryExport", "summary.js"))
  : {};

globalThis.gc?.();
const startRss = process.memoryUsage.rss();
/** Highest RSS so far (start-up and module loading included). */
const loadPeakRss = process.resourceUsage().maxRSS * 1024;
const expected = mode.endsWith("-http") ? Number(process.argv[4]) : statSync(arg).size;
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
    case "download-http": {
      const client = new GamehostClient({ baseUrl: new URL(arg).origin, token: "unused" });
      for await (const _chunk of counted(await client.openExport(arg))) {
        // Bytes only: the HTTP delivery's own ceiling, with nothing done per chunk.
      }
      return { byteLength: seen };
    }
    case "hash": {
      // Consumed with for-await, as summarizeCsv consumes: hashing inside a flowing 'data' handler
      // measured ~30 % slower here (most likely the next disk read waits for the handler): no ceiling.
      const hash = createHash("sha256");
      for await (const chunk of counted(createReadStream(arg))) hash.update(chunk);
      return { sha256: hash.digest("hex") };
    }
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
