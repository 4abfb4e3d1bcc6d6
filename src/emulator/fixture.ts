import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describeIssues } from "../api/issues";
import { toFieldIssues } from "../api/validate";
import { Fixture as FixtureSchema } from "./fixtureSchema";
import type { Fixture, FixtureInput } from "./fixtureTypes";

export type * from "./fixtureTypes";

/** Path of the fixture shipped with the package (`fixtures/default.json`). */
export const DEFAULT_FIXTURE_PATH = path.resolve(__dirname, "..", "..", "fixtures", "default.json");

/**
 * Parses a fixture object, or reads and parses a JSON file. Throws an `Error` naming the file and
 * every field at fault.
 */
export function loadFixture(source: FixtureInput | string = DEFAULT_FIXTURE_PATH): Fixture {
  let raw: unknown = source;
  let where = "fixture";
  if (typeof source === "string") {
    // As for --state and --export-dir (settings.ts): an empty path is a script's unset variable.
    if (source.trim() === "")
      throw new Error(`fixture (--fixture) must name a path, got ${JSON.stringify(source)}`);
    where = `fixture file ${source}`;
    let text: string;
    try {
      text = readFileSync(source, "utf8");
    } catch (err) {
      throw new Error(`Cannot read ${where}: ${(err as Error).message}`);
    }
    // A byte order mark, as Windows editors save UTF-8, is not JSON; Node's require() skips it too.
    if (text.startsWith("\uFEFF")) text = text.slice(1);
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new Error(
        `Invalid ${where}: not JSON${lineOf(text, (err as Error).message)} (${(err as Error).message})`,
      );
    }
  }
  const result = FixtureSchema.safeParse(raw);
  if (!result.success) throw new Error(`Invalid ${where}: ${describeIssues(toFieldIssues(result.error))}`);
  return result.data;
}

/**
 * Where a JSON.parse error is, as an editor shows it: Node 20 names only a character offset
 * ("at position 20"), which nobody can find in a file.
 */
function lineOf(text: string, message: string): string {
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return "";
  const before = text.slice(0, Number(position)).split("\n");
  return ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** Game-guard hostnames end with this domain. */
export function jobDomainOf(fixture: Fixture): string {
  return fixture.jobDomain ?? fixture.bootstrap.domains?.job ?? "job.localhost";
}

/** Hub origin without a trailing slash. */
export function hubOf(fixture: Fixture): string {
  return fixture.bootstrap.origins.hub.replace(/\/+$/, "");
}
