import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parse } from "csv-parse";

/** Size, digest and data-row count of a CSV file. */
export interface CsvSummary {
  rowCount: number;
  byteLength: number;
  sha256: string;
}

/**
 * Summarizes a CSV stream in one pass: bytes are hashed and counted as they flow into the CSV
 * parser, which counts records (quoted newlines included), so memory stays flat whatever the size.
 */
export async function summarizeCsv(source: NodeJS.ReadableStream): Promise<CsvSummary> {
  const hash = createHash("sha256");
  let byteLength = 0;
  let records = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      byteLength += chunk.length;
      callback(null, chunk);
    },
  });
  const parser = parse({ relax_column_count: true });
  const counter = new Transform({
    objectMode: true,
    transform(_record, _encoding, callback) {
      records++;
      callback();
    },
  });
  await pipeline(source, tap, parser, counter);
  return { rowCount: Math.max(0, records - 1), byteLength, sha256: hash.digest("hex") };
}
