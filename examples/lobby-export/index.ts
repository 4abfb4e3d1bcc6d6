import * as pulumi from "@pulumi/pulumi";
import * as gamehost from "pulumi-gamehost";

const config = new pulumi.Config();

// The game by its name id (or UUID), among the caller's games: no UUID to paste.
const wanted = config.require("game");
const gameId = gamehost.getGamesOutput().apply((list) => {
  const found = list.games.find((g) => g.nameId === wanted || g.gameId === wanted);
  // A GamehostError is printed as its message alone, at once: a plain Error comes with a stack trace, and
  // the SDK's formatting of a RunError thrown here takes a minute and gigabytes (docs/known-issues.md).
  if (!found) {
    const names = list.games.map((g) => g.nameId).join(", ");
    throw new gamehost.GamehostError(
      `config game: no game "${wanted}" among your games (available: ${names})`,
    );
  }
  return found.gameId;
});

// `triggers` re-exports on demand: bump `generation` to get a fresh URL for the same span.
const history = new gamehost.LobbyHistoryExport("history", {
  gameId,
  queryStart: config.require("from"),
  queryEnd: config.require("to"),
  triggers: { generation: config.get("generation") || "1" },
  summarize: true,
});

export const url = history.url;
export const expiresAt = history.expiresAt;
export const rows = history.rowCount;
export const bytes = history.byteLength;
export const sha256 = history.sha256;
