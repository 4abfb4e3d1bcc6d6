/**
 * The hosting API client of a stack: `gamehost:baseUrl` and `gamehost:token` from the stack's config
 * (secrets decrypted by the CLI), else GAMEHOST_BASE_URL / GAMEHOST_TOKEN, as the providers read them.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { GamehostClient } from "../api/client";
import { readSettings, requireConnection } from "../api/config";
import { CommandError } from "./errors";
import { cliMessage } from "./workspace";

/** A client for the service the stack's servers live on. */
export async function stackClient(stack: Stack): Promise<GamehostClient> {
  let config: Record<string, { value: string }>;
  try {
    config = await stack.getAllConfig();
  } catch (error) {
    throw new CommandError(`cannot read the config of stack ${stack.name}: ${cliMessage(error)}`);
  }
  const settings = readSettings((key) => config[key]?.value);
  try {
    return new GamehostClient({ ...requireConnection(settings), userAgent: "gamehost-cli" });
  } catch (error) {
    throw new CommandError(error instanceof Error ? error.message : String(error));
  }
}
