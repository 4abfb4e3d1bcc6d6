/**
 * getEnvironment's "no such game" with a game's cloud token: the token sees its one game, so the game the
 * user named (another of their games) is missing for the token, not misspelt. The message says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { closeSharedDispatchers } from "../../src/api/transport";
import { type RunningEmulator, startEmulator } from "../../src/emulator";
import { getEnvironment } from "../../src/kinds/functions";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ placementDelayMs: 0 });
});
afterAll(async () => {
  await emulator.stop();
  await closeSharedDispatchers();
});

const client = (token: string) => new GamehostClient({ baseUrl: emulator.url, token, maxRetries: 0 });

describe("getEnvironment", () => {
  it("with a game's cloud token, says the token sees its own game only", async () => {
    const [spaceRace, puzzleQuest] = emulator.fixture.games;
    const cloud = emulator.tokens.cloud[puzzleQuest!.id]!;
    await expect(
      getEnvironment.run(client(cloud), { game: spaceRace!.nameId, environment: "prod" }),
    ).rejects.toThrow(
      `No game "${spaceRace!.nameId}" in the caller's games (available: ${puzzleQuest!.nameId}): a game's cloud token sees its own game only; look another up with a group member's user token.`,
    );
  });

  it("with a user token, lists the games there are and nothing more", async () => {
    await expect(
      getEnvironment.run(client(emulator.tokens.user), { game: "space-rase", environment: "prod" }),
    ).rejects.toThrow(
      /^No game "space-rase" in the caller's games \(available: puzzle-quest, space-race\)\.$/,
    );
  });
});
