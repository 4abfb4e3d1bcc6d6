/**
 * A user's code on `pulumi-gamehost/api` (with the project's own zod) and `pulumi-gamehost/emulator`,
 * type-checked in fresh template projects. The `@ts-expect-error` lines fail the check if the types ever
 * degrade to `any`.
 */
import { GamehostClient, GamehostValidationError, type GameSummary, parseWith } from "pulumi-gamehost/api";
import { type RunningEmulator, startEmulator } from "pulumi-gamehost/emulator";
import { z } from "zod";

const userSchema = z.object({ name: z.string(), level: z.number().int() });

export const user: { name: string; level: number } = parseWith(userSchema, { name: "ada", level: 3 }, "user");

// @ts-expect-error level is a number
export const wrong: { level: string } = parseWith(userSchema, { name: "ada", level: 3 }, "user");

export async function gameNames(): Promise<string[]> {
  const emulator: RunningEmulator = await startEmulator({ port: 0 });
  try {
    const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
    const games: GameSummary[] = (await client.listGames()).games;
    // @ts-expect-error the wire format is snake_case
    games.map((g) => g.nameId);
    return games.map((g) => g.name_id);
  } catch (error) {
    if (error instanceof GamehostValidationError) return [error.message];
    throw error;
  } finally {
    await emulator.stop();
  }
}
