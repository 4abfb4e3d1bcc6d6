import * as pulumi from "@pulumi/pulumi";
import * as gamehost from "pulumi-gamehost";

const config = new pulumi.Config();

// `triggers` re-exports on demand: bump `generation` to get a fresh URL for the same span.
const history = new gamehost.LobbyHistoryExport("history", {
  gameId: config.require("gameId"),
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
