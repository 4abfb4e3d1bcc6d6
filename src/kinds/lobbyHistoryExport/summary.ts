import { createHash } from "node:crypto";

/** Size, digest and data-row count of a CSV file. */
export interface CsvSummary {
  rowCount: number;
  byteLength: number;
  sha256: string;
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Counts CSV records chunk by chunk: a record ends at a newline outside double quotes (RFC 4180; a
 * doubled quote inside a quoted field toggles twice, so it needs no special case). Only records are
 * counted, no fields are built, which is why this replaces a CSV parser here: csv-parse ran at 4 % of
 * the disk rate on a million-lobby export (BENCHMARKS.md, bench 6), this runs at the hashing rate.
 */
class RecordCounter {
  records = 0;
  private quoted = false;
  private lastByte = NEWLINE;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    let at = 0;
    while (at < chunk.length) {
      const quote = chunk.indexOf(QUOTE, at);
      if (!this.quoted) {
        const end = quote === -1 ? chunk.length : quote;
        for (
          let nl = chunk.indexOf(NEWLINE, at);
          nl !== -1 && nl < end;
          nl = chunk.indexOf(NEWLINE, nl + 1)
        ) {
          this.records++;
        }
      }
      if (quote === -1) break;
      this.quoted = !this.quoted;
      at = quote + 1;
    }
    this.lastByte = chunk[chunk.length - 1]!;
  }

  /** Records in everything pushed, counting a last line that has no newline. */
  total(): number {
    return this.records + (this.lastByte === NEWLINE ? 0 : 1);
  }
}

/**
 * Summarizes a CSV stream in one pass: each chunk is hashed, measured and scanned for record ends as
 * it arrives and then dropped, so memory stays flat whatever the size.
 */
export async function summarizeCsv(source: AsyncIterable<Buffer | string>): Promise<CsvSummary> {
  const hash = createHash("sha256");
  const counter = new RecordCounter();
  let byteLength = 0;
  for await (const piece of source) {
    const chunk = typeof piece === "string" ? Buffer.from(piece) : piece;
    hash.update(chunk);
    byteLength += chunk.length;
    counter.push(chunk);
  }
  // The first record is the header row.
  return { rowCount: Math.max(0, counter.total() - 1), byteLength, sha256: hash.digest("hex") };
}
