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
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new Error(`Invalid ${where}: not JSON (${(err as Error).message})`);
    }
  }
  const result = FixtureSchema.safeParse(raw);
  if (!result.success) throw new Error(`Invalid ${where}: ${describeIssues(toFieldIssues(result.error))}`);
  return result.data;
}

/** Game-guard hostnames end with this domain. */
export function jobDomainOf(fixture: Fixture): string {
  return fixture.jobDomain ?? fixture.bootstrap.domains?.job ?? "job.localhost";
}

/** Hub origin without a trailing slash. */
export function hubOf(fixture: Fixture): string {
  return fixture.bootstrap.origins.hub.replace(/\/+$/, "");
}
