/**
 * The order the service sorts names in (docs/service-contract.md §4, §7): Rust's order of strings, by their
 * UTF-8 bytes (which is their order by Unicode code points). No locale's collation: upper case comes before
 * lower case, and `Ä` after `z`.
 */
export function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
