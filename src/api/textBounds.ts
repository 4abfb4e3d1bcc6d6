/**
 * Bounds on the error text this package builds (issue 28 §4). A hostile or broken answer may hold
 * millions of invalid fields or a message of megabytes: listed in full, one 15 MB answer made a 377 MB
 * message, and a plugin error over about 70 KiB is lost on its way through gRPC (the CLI then shows
 * only "Program exited with non-zero exit code"). Every message stays within {@link MAX_MESSAGE_BYTES},
 * and a list of issues names the first {@link MAX_LISTED_ISSUES} and counts the rest.
 */

/**
 * The largest message, in UTF-8 bytes: room for a cause, a fix and a few fields, and far under what gRPC
 * carries in a status (its trailers, percent-encoded, stay under 16 KiB even for non-ASCII text).
 */
export const MAX_MESSAGE_BYTES = 4 * 1024;

/** Issues a message lists by name; the rest are counted ("…and 1,997 more"). */
export const MAX_LISTED_ISSUES = 5;

/** Issues an error keeps as data (its `issues` field): enough to act on, never the whole of a huge answer. */
export const MAX_KEPT_ISSUES = 100;

/** The largest single field of an error taken from an answer (a code, a ray id, one issue's path or message). */
export const MAX_FIELD_BYTES = 512;

// Built on first use: an Intl formatter costs over 10 ms at load, and every program and plugin loads this file.
let thousands: Intl.NumberFormat | undefined;

/** `1997` → `1,997`. */
export function formatCount(n: number): string {
  thousands ??= new Intl.NumberFormat("en-US");
  return thousands.format(n);
}

/** The first `maxBytes` UTF-8 bytes' worth of `text`, never splitting a character. */
function headWithin(text: string, maxBytes: number): string {
  // A UTF-16 unit takes 1 to 3 UTF-8 bytes: the longest fitting prefix lies between these two.
  let fits = Math.min(text.length, Math.floor(maxBytes / 3));
  let over = Math.min(text.length, maxBytes) + 1;
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (Buffer.byteLength(text.slice(0, mid)) <= maxBytes) fits = mid;
    else over = mid;
  }
  if (fits > 0 && fits < text.length && isHighSurrogate(text.charCodeAt(fits - 1))) fits--;
  return text.slice(0, fits);
}

/** The last `maxBytes` UTF-8 bytes' worth of `text`, never splitting a character. */
function tailWithin(text: string, maxBytes: number): string {
  let fits = Math.min(text.length, Math.floor(maxBytes / 3));
  let over = Math.min(text.length, maxBytes) + 1;
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (Buffer.byteLength(text.slice(text.length - mid)) <= maxBytes) fits = mid;
    else over = mid;
  }
  let start = text.length - fits;
  if (start > 0 && start < text.length && isLowSurrogate(text.charCodeAt(start))) start++;
  return text.slice(start);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * `text` within `maxBytes` UTF-8 bytes: as it is when it fits, else its beginning and its end (where a
 * message names the request, `[GET /path: 400 CODE]`) around a note of how much was left out.
 */
export function boundText(text: string, maxBytes = MAX_MESSAGE_BYTES): string {
  // Cheap test first: a string this short cannot pass the bound.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  const note = ` … [${formatCount(text.length)} characters in all; the middle is left out] … `;
  const room = Math.max(0, maxBytes - Buffer.byteLength(note));
  const tailBytes = Math.floor(room / 4);
  const head = headWithin(text, room - tailBytes);
  const tail = tailWithin(text.slice(head.length), tailBytes);
  return `${head}${note}${tail}`;
}

/** A field taken from an answer (a code, a ray id, an issue's path) within {@link MAX_FIELD_BYTES}. */
export function boundField(text: string): string {
  return boundText(text, MAX_FIELD_BYTES);
}
