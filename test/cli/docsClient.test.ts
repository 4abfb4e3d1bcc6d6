/**
 * docs/client.md's watch program (under "Watches") as written: type-checked strictly and run by `node` against
 * an emulator (its address and user token in place of the page's `http://127.0.0.1:8787` and `emu_user_alice`).
 * It must print the game's environments at once, hold while nothing changes, print them again when an
 * environment `qa` is created, and end by itself (the abort ends the loop without an error).
 */
import * as fs from "node:fs";
import { inspect } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GamehostClient } from "../../src/api";
import type { RunningEmulator } from "../../src/emulator";
import { docBlock } from "../support/docBlocks";
import { startTestEmulator } from "../support/emulator";
import { linkNodeModules } from "../support/examples";
import { tempRoot } from "../support/realPulumi";
import { until } from "../support/until";
import { startScript } from "./docCommands";

const PAGE = "docs/client.md";
let emulator: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startTestEmulator({ watchHoldMs: 2_000 });
  dir = tempRoot("docs-client");
  linkNodeModules(dir);
});
afterAll(async () => {
  await emulator?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it(`${PAGE}, Watches: prints the environments, then again once qa exists, and ends`, {
  timeout: 240_000,
}, async () => {
  const block = docBlock(PAGE, "Watches", "typescript");
  for (const written of ["http://127.0.0.1:8787", "emu_user_alice"]) expect(block.text).toContain(written);
  const source = block.text
    .replaceAll("http://127.0.0.1:8787", emulator.url)
    .replaceAll("emu_user_alice", emulator.tokens.user);
  const game = emulator.fixture.games.find((g) => block.text.includes(`"${g.id}"`));
  expect(game?.nameId, "the program watches space-race").toBe("space-race");
  // What the program prints: the game's environments in the service's order, as `console.log` shows an array.
  const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
  const printed = async () =>
    inspect((await client.getGame(game?.id as string)).game.namespaces.map((n) => n.name_id));
  const before = await printed();
  expect(before).not.toContain("qa");

  const script = startScript(dir, "watch", source);
  try {
    const [first] = await script.lines(1);
    expect(first).toBe(before);
    // The loop holds a watch now, and skips holds that end without a change: nothing more is printed.
    await until(() => emulator.watcherCount() > 0, "the program's watch");
    expect(script.stdout.split("\n")).toHaveLength(2);

    emulator.mutate.createEnvironment(game?.id as string, {
      nameId: "qa",
      displayName: "QA",
      versionId: game?.versions[0]?.id as string,
    });
    const [, second] = await script.lines(2);
    const after = await printed();
    expect(after).toContain("'qa'");
    expect(second).toBe(after);
    expect(await script.exited, script.stderr).toBe(0);
    expect(script.stdout.split("\n")).toHaveLength(3);
  } finally {
    script.kill();
  }
});
