/**
 * A data source's failure that reaches a resource input: the SDK prefixes its message in place
 * (`error serializing property "gameId": …`, once for each input it reaches); the user reads the data
 * source's message alone, naming the argument and what is allowed.
 */
import { describe, expect, it } from "vitest";
import { GamehostError } from "../../src/api/errors";
import { parseWith } from "../../src/api/validate";
import { getGame } from "../../src/kinds/functions";

/** What the SDK's `serializeFilteredProperties` does to a rejection it meets serializing input `key`. */
function sdkPrefix(error: Error, key: string): void {
  error.message = `error serializing property "${key}": ${error.message}`;
}

describe("a data source's failure met by a resource input", () => {
  it("keeps the message naming the argument and what is allowed, without the SDK's prefixes", () => {
    let error: unknown;
    try {
      parseWith(getGame.args, { gameId: "my-game" }, "arguments of getGame");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GamehostError);
    const failure = error as GamehostError;
    const alone = failure.message;
    expect(alone).toMatch(/^Invalid arguments of getGame: gameId: must be a UUID/);
    sdkPrefix(failure, "gameId");
    sdkPrefix(failure, "gameId");
    sdkPrefix(failure, "environmentId");
    expect(failure.message).toBe(alone);
  });
});
