/**
 * The first program of docs/client.md as written: type-checked (strict, as an ES module, for its top-level
 * await) against `pulumi-gamehost/api`, then run by `node` as a user runs it, against the emulator (its
 * address and user token in place of the page's `http://127.0.0.1:8787` and `emu_user_alice`). It prints the
 * name ids of the caller's games.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inspect, promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GamehostClient } from "../../src/api";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { docBlock } from "../support/docBlocks";
import { linkNodeModules } from "../support/examples";
import { writeCheckedModule } from "../support/moduleScript";

const PAGE = "docs/client.md";
let emulator: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startEmulator({ placementDelayMs: 20, watchHoldMs: 200 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-client-docs-"));
  linkNodeModules(dir);
});
afterAll(async () => {
  await emulator?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it(`${PAGE}'s first program type-checks and prints the caller's games`, { timeout: 240_000 }, async () => {
  // The page's opening block, before its first heading.
  const block = docBlock(PAGE, "", "typescript");
  for (const written of ["http://127.0.0.1:8787", "emu_user_alice"]) expect(block.text).toContain(written);
  const source = block.text
    .replaceAll("http://127.0.0.1:8787", emulator.url)
    .replaceAll("emu_user_alice", emulator.tokens.user);
  const js = writeCheckedModule(dir, "index", source);
  // Asynchronously: the emulator answers from this process's event loop.
  const run = await promisify(execFile)(process.execPath, [js], { cwd: dir, timeout: 60_000 });
  // What `console.log` prints for the name ids the user's token sees.
  const { games } = await new GamehostClient({
    baseUrl: emulator.url,
    token: emulator.tokens.user,
  }).listGames();
  expect(games.length).toBeGreaterThan(0);
  expect(run.stdout).toBe(`${inspect(games.map((g) => g.name_id))}\n`);
});
