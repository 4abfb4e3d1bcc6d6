/**
 * `pulumi refresh` and `pulumi destroy` do not run the program: the provider they start is configured with
 * what the last run of the program recorded in the state (the stack's `gamehost:*` config, or an explicit
 * provider's arguments), not with a token or base URL set since. A refusal of the token, or a base URL
 * nothing answers at, in a read or a delete says so, since "set gamehost:token" alone sends a user who has
 * just set it round in circles (docs/installation-configuration.md, "Rotating the token").
 */

import type { GamehostClient } from "../api/client";
import { clientOrigins } from "../api/clientOrigins";
import { GamehostApiError, GamehostNetworkError } from "../api/errors";
import { causeOf, requestOf } from "../api/errors/base";
import { AUTH_CODES, ERROR_CODES } from "../api/errors/codes";
import { errorCode, UNREACHABLE } from "../api/errors/connectionCodes";

const RECORDED = "Without --run-program";

/** What of an operation's context this needs (a kind's `OperationContext` is one). */
interface ClientContext {
  client(): GamehostClient;
}

/** The codes by which the service refuses a token (or its identity) rather than the request. */
const TOKEN_REFUSALS: ReadonlySet<string> = new Set([
  ...AUTH_CODES,
  ERROR_CODES.groupNotMember,
  ERROR_CODES.forbidden,
]);

/**
 * Whether this process has checked a resource. The engine checks resources only in runs that register
 * them (`pulumi up` and `preview`, `pulumi import`), and configures their provider with the stack's config
 * as it is now, so a token refused there is the one just set: the advice to run `pulumi up` first would be
 * wrong (a replacement's delete in an `up`, say). A `refresh --run-program` checks none, so it still gets
 * the advice (conditional on the flag it was given). One provider process serves one engine run.
 */
let resourceChecked = false;

/** Notes a check of a resource (see {@link resourceChecked}). */
export function noteResourceChecked(): void {
  resourceChecked = true;
}

/** How the advice names each setting: the commands that send the state's, and the setting in words. */
const TOLD = {
  token: { commands: "`pulumi refresh` and `pulumi destroy` send", words: "token" },
  baseUrl: {
    commands: "`pulumi refresh` (also the refresh of `pulumi up --refresh`) and `pulumi destroy` use",
    words: "base URL",
  },
} as const;

/**
 * What to tell of `setting` when it came from Pulumi config (the stack's or an explicit provider's arguments,
 * both kept in the state) in a run that checked no resource (`pulumi refresh`, `pulumi destroy`,
 * `gamehost drift`); else undefined. A setting from a `GAMEHOST_*` variable is read anew by every command.
 */
function recordedAdvice(ctx: ClientContext, setting: keyof typeof TOLD): string | undefined {
  if (resourceChecked) return undefined;
  let origins: ReturnType<typeof clientOrigins>;
  try {
    origins = clientOrigins(ctx.client());
  } catch {
    return undefined;
  }
  if (!origins?.pulumi || origins.pulumiDo || origins.sources[setting] !== "config") return undefined;
  const kept =
    origins.provider !== undefined
      ? `the ${setting} provider "${origins.provider}" had at the last \`pulumi up\``
      : `the gamehost:${setting} of the last \`pulumi up\``;
  const { commands, words } = TOLD[setting];
  return (
    `${RECORDED}, ${commands} ${kept} (kept in the state), not one set since: ` +
    `after changing the ${words}, run \`pulumi up\` first.`
  );
}

/**
 * `error` with the state's part in it told, when it is a refusal of a token, or a base URL nothing answers
 * at, that came from the state (see {@link recordedAdvice}). Any other error unchanged.
 */
export function withRecordedSettings(ctx: ClientContext, error: unknown): unknown {
  if (error instanceof GamehostNetworkError) return withRecordedBaseUrl(ctx, error);
  if (!(error instanceof GamehostApiError) || !TOKEN_REFUSALS.has(error.code)) return error;
  if (error.message.includes(RECORDED)) return error; // told already (a fleet's server, then the fleet)
  const advice = recordedAdvice(ctx, "token");
  if (!advice) return error;
  const cause = error.message.slice(0, error.message.length - error.exchange.length).trimEnd();
  error.restate(`${cause} ${advice}`);
  return error;
}

/**
 * "Nothing answers at <url>" from a base URL that came from Pulumi config, with the state's part told: the
 * emulator restarted on another port, the user set the new `gamehost:baseUrl`, and `pulumi refresh` still
 * calls the old one (the last up's), so "check gamehost:baseUrl" alone sent them round in circles.
 */
function withRecordedBaseUrl(ctx: ClientContext, error: GamehostNetworkError): GamehostNetworkError {
  const code = errorCode(error.cause);
  if (typeof code !== "string" || !UNREACHABLE.has(code)) return error;
  if (error.message.includes(RECORDED)) return error;
  const advice = recordedAdvice(ctx, "baseUrl");
  if (!advice) return error;
  error.message = `${causeOf(error.message)} ${advice}${requestOf(error.message)}`;
  return error;
}

/** `work` (a read or a delete of a recorded resource), its refusals told as above. */
export async function withRecordedSettingsOf<T>(ctx: ClientContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw withRecordedSettings(ctx, error);
  }
}
