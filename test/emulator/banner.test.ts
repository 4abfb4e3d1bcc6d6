import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { banner } from "../../src/emulator/cli";
import { start } from "./helpers";

let emu: RunningEmulator | undefined;
afterAll(() => emu?.stop());

/** The admin route families docs/emulator.md's admin table lists (`/__admin/<family>…`). */
function documentedFamilies(): string[] {
  const page = readFileSync(join(__dirname, "../../docs/emulator.md"), "utf8");
  const rows = page.split("\n").filter((line) => /^\| `(GET|POST|DELETE) \/__admin\//.test(line));
  return [...new Set(rows.map((row) => /\/__admin\/([a-z]+)/.exec(row)?.[1] ?? ""))];
}

it("the --admin banner names every admin route family the docs table lists (clock, watchers, outages were missing)", async () => {
  emu = await start({ admin: true });
  const line =
    banner(emu, { admin: true })
      .split("\n")
      .find((l) => l.startsWith("Admin routes:")) ?? "";
  // The dashboard's own event stream is for the dashboard, not a route to drive by hand.
  const families = documentedFamilies().filter((f) => f !== "events");
  expect(families).toContain("clock");
  expect(families.filter((f) => !new RegExp(`\\b${f}\\b`).test(line))).toEqual([]);
});
