/**
 * A user's code on `pulumi-gamehost/api/schemas` (the zod schemas, with the project's own zod), beside
 * `pulumi-gamehost/emulator`. The schemas read zod's typings, which the older template reads only with
 * `esModuleInterop`. The `@ts-expect-error` lines fail the check if the types ever degrade to `any`.
 */
import { GamehostClient, type ListGamesResponse } from "pulumi-gamehost/api";
import { CreateServerRequest, parseWith } from "pulumi-gamehost/api/schemas";
import { type RunningEmulator, startEmulator } from "pulumi-gamehost/emulator";
import { z } from "zod";

const userSchema = z.object({ name: z.string(), level: z.number().int() });

export const user: { name: string; level: number } = parseWith(userSchema, { name: "ada", level: 3 }, "user");

// @ts-expect-error level is a number
export const wrong: { level: string } = parseWith(userSchema, { name: "ada", level: 3 }, "user");

/** The schema's type is the client's declaration. */
export const checked = (body: unknown) => parseWith(CreateServerRequest, body, "body").runtime.build;

export async function games(): Promise<ListGamesResponse> {
  const emulator: RunningEmulator = await startEmulator({ port: 0 });
  try {
    return await new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user }).listGames();
  } finally {
    await emulator.stop();
  }
}
