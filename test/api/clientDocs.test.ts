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
import { startProxy } from "./helpers/forwardProxy";

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

it(`${PAGE}'s Proxies program downloads an export with its API calls through HTTP_PROXY`, {
  timeout: 240_000,
}, async () => {
  const block = docBlock(PAGE, "Proxies", "typescript");
  const js = writeCheckedModule(dir, "proxies", block.text);
  const proxy = await startProxy();
  try {
    // A host name only the proxy resolves: the program reaches the emulator through it or not at all.
    const baseUrl = emulator.url.replace("127.0.0.1", "gamehost.test");
    const run = await promisify(execFile)(process.execPath, [js], {
      cwd: dir,
      timeout: 60_000,
      env: {
        ...process.env,
        GAMEHOST_BASE_URL: baseUrl,
        GAMEHOST_TOKEN: emulator.tokens.user,
        HTTP_PROXY: proxy.url,
        NO_PROXY: "",
      },
    });
    expect(run.stdout).toMatch(/^[1-9]\d* bytes of CSV\n$/);
    expect(proxy.seen.map((r) => `${r.method} ${r.target}`)).toContain(
      `POST ${baseUrl}/cloud/games/9a000000-0000-4000-8000-000000000001/matchmaker/lobbies/export-history`,
    );
  } finally {
    await proxy.close();
  }
});
