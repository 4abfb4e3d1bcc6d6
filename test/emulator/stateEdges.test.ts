/**
 * Journal edge cases (issue #28, finding 8), met where users meet them, at the CLI's start: each
 * stops it with exit code 1 and a message naming the file, and leaves the files as they were.
 */
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { journalsOf } from "../../src/emulator/stateFormat";
import { call, ids, serverBody, start } from "./helpers";

const CLI = path.resolve(__dirname, "../../dist/emulator/cli.js");
const dir = mkdtempSync(path.join(os.tmpdir(), "gamehost-emulator-edges-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A state file with two servers created, its emulator stopped. */
async function stateWithServers(name: string): Promise<string> {
  const sub = path.join(dir, name);
  mkdirSync(sub);
  const stateFile = path.join(sub, "state.json");
  const emu = await start({ stateFile, placement: "never" });
  try {
    for (let i = 0; i < 2; i++) {
      expect((await call(emu, "POST", ids(emu).serversPath, { body: serverBody(emu) })).status).toBe(200);
    }
  } finally {
    await emu.stop();
  }
  return stateFile;
}

/** Runs the CLI on `stateFile`, expecting it to refuse to start; its stderr. */
function refusedStart(stateFile: string): string {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const before = readdirSync(path.dirname(stateFile)).sort();
  const result = spawnSync(process.execPath, [CLI, "--state", stateFile], {
    encoding: "utf8",
    timeout: 10_000,
  });
  expect(result.status).toBe(1);
  // Nothing removed or added (the lock it took is released).
  expect(readdirSync(path.dirname(stateFile)).sort()).toEqual(before);
  return result.stderr;
}

const journalOf = (stateFile: string) => journalsOf(stateFile).at(-1)?.file as string;

describe("a journal's edge cases stop the start, naming the file", () => {
  it("a complete last line that fails validation is damage, not a torn write", async () => {
    const stateFile = await stateWithServers("invalid-last");
    const journal = journalOf(stateFile);
    const lines = readFileSync(journal, "utf8").split("\n").length - 1;
    appendFileSync(journal, '[{"server":{"gameId":"x"}}]\n');
    expect(refusedStart(stateFile)).toContain(
      `Corrupt emulator state journal ${journal}, line ${lines + 1} of ${lines + 1}:`,
    );
  });

  it("a last line without its newline is still a torn write: skipped with a warning", async () => {
    const stateFile = await stateWithServers("torn-last");
    appendFileSync(journalOf(stateFile), '[{"server":{"gameId":"x"}}]');
    const warnings: string[] = [];
    const emu = await start({ stateFile, placement: "never", onWarning: (m) => warnings.push(m) });
    try {
      expect(emu.servers()).toHaveLength(2);
    } finally {
      await emu.stop();
    }
    expect(warnings).toEqual([expect.stringContaining("skipped the last line of")]);
  });

  it("a directory named like a journal", async () => {
    const stateFile = await stateWithServers("dir-journal");
    const planted = `${stateFile}.journal.7`;
    mkdirSync(planted);
    const stderr = refusedStart(stateFile);
    expect(stderr).toContain(`Unexpected directory ${planted} beside the emulator state file ${stateFile}`);
    expect(stderr).not.toContain("EISDIR");
  });

  it.each([
    ["100000000000000000000000", "past 2^53"],
    ["1e+23", "as the emulator once wrote it"],
    ["007", "with leading zeros"],
  ])("a journal numbered %s (%s)", async (generation) => {
    const stateFile = await stateWithServers(`generation-${generation}`);
    const planted = `${stateFile}.journal.${generation}`;
    writeFileSync(planted, "");
    expect(refusedStart(stateFile)).toContain(
      `Unexpected file ${planted} beside the emulator state file ${stateFile}: a journal's generation is a whole number from 0 to 9007199254740991`,
    );
  });

  it("a snapshot whose generation is past 2^53", async () => {
    const stateFile = await stateWithServers("snapshot-generation");
    const snapshot = JSON.parse(readFileSync(stateFile, "utf8"));
    writeFileSync(stateFile, JSON.stringify({ ...snapshot, generation: 1e23 }));
    const stderr = refusedStart(stateFile);
    expect(stderr).toContain(`Invalid emulator state file ${stateFile}`);
    expect(stderr).toContain("generation");
  });
});
