/**
 * A create the emulator could not keep, through the real `pulumi` CLI (issue #28, finding 1): while
 * its state file cannot be written, the emulator answers 503 `EMULATOR_STATE_NOT_SAVED` and shows
 * nothing, so the provider, on either face, can never adopt a server whose create failed. Here the
 * first two writes fail (ENOSPC at the state file's I/O seam of the compiled emulator): `pulumi up`
 * ends with exactly one server, the one a 200 answered, and it is still there after the emulator
 * restarts. (Before, the create answered 500 with the server kept in memory and listed; the lookup
 * after the ambiguous answer adopted it, and a restart lost it.)
 */
import * as fs from "node:fs";
import { open } from "node:fs/promises";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import type { stateIo as StateIo } from "../../src/emulator/stateFile";
import { FACES, SERVERS_KEY, SERVERS_PROGRAM, SERVERS_PROJECT, serverArgs } from "../engine/helpers";
import { REPO_ROOT, requireFromRepo } from "../support/dist";
import { liveServers, startTestEmulator } from "../support/emulator";
import { freePort } from "../support/freePort";
import { programProject, realCli, realCliTitle, tempRoot } from "../support/realPulumi";
import { configure } from "./helpers";

/** The compiled emulator's own seam: the module instance its state file uses. */
const { stateIo } = requireFromRepo(path.join(REPO_ROOT, "dist/emulator/stateFile.js")) as {
  stateIo: typeof StateIo;
};

/** The next `count` journal writes put half their line on disk, then fail as a full disk does. */
function failNextWrites(count: number): void {
  let left = count;
  vi.spyOn(stateIo, "open").mockImplementation((async (file: string, flags: string) => {
    const handle = await open(file, flags);
    if (left <= 0 || !file.includes(".journal.")) return handle;
    left--;
    const write = handle.write.bind(handle) as (b: Buffer, o: number, l: number) => Promise<unknown>;
    handle.write = (async (buffer: Buffer, offset = 0) => {
      await write(buffer, offset, Math.floor((buffer.length - offset) / 2));
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    }) as unknown as typeof handle.write;
    return handle;
  }) as typeof stateIo.open);
}

describe.skipIf(!realCli)(realCliTitle("a create the emulator could not keep"), () => {
  let emulator: RunningEmulator;
  let root: string;
  let stateFile: string;

  beforeAll(async () => {
    root = tempRoot("state-not-saved");
    stateFile = path.join(root, "emulator-state.json");
    // A port the OS does not hand out by itself: the restart below takes it again (test/support/freePort.ts).
    emulator = await startTestEmulator({ stateFile, port: Number(await freePort()) });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await emulator?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it.each(FACES)(
    "the %s face: 503s are never adopted; up ends with the one server a 200 answered, kept across a restart",
    {
      timeout: 300_000,
    },
    async (face) => {
      const cli = programProject(root, `servers-${face}`, SERVERS_PROGRAM, {
        name: SERVERS_PROJECT,
        plugin: true,
      });
      await configure(cli, {
        "gamehost:baseUrl": { value: emulator.url },
        "gamehost:token": { value: emulator.tokens.user, secret: true },
        [`${SERVERS_PROJECT}:face`]: { value: face },
        [SERVERS_KEY]: { value: JSON.stringify({ web: serverArgs(emulator, { tags: { face } }) }) },
      });
      emulator.resetRequests();
      failNextWrites(2);
      try {
        await cli.ok(["up", "--yes", "--skip-preview"]);
      } finally {
        vi.restoreAllMocks();
      }
      const posts = emulator.requests.filter((r) => r.method === "POST" && r.path.endsWith("/servers"));
      expect(posts.map((r) => r.status)).toEqual([503, 503, 200]);
      const ids = (await cli.outputsJson()).serverIds as Record<string, string>;
      const mine = liveServers(emulator).filter((s) => s.tags.face === face);
      expect(mine.map((s) => s.id)).toEqual([ids.web]);
      // What the stack holds is what the emulator keeps: there after a restart on its state file.
      const port = Number(new URL(emulator.url).port);
      await emulator.stop();
      emulator = await startTestEmulator({ stateFile, port });
      expect(
        liveServers(emulator)
          .filter((s) => s.tags.face === face)
          .map((s) => s.id),
      ).toEqual([ids.web]);
      await cli.ok(["destroy", "--yes", "--skip-preview"]);
      cli.expectNoLeak(emulator.tokens.user);
    },
  );
});
