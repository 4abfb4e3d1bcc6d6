// Engine-scenario program: examples/quickstart with its data sources and resources on the face config
// `face` selects: the program-side data sources and dynamic resources (default), or the plugin's
// invokes and resources (`plugin`). Kept line for line with the example below this header.
import * as pulumi from "@pulumi/pulumi";
import * as pkg from "pulumi-gamehost";

const config = new pulumi.Config();
const gamehost = config.get("face") === "plugin" ? pkg.native : pkg;

// Names a person knows, not UUIDs: the game's name id and the environment's (prod, staging…).
const env = gamehost.getEnvironmentOutput({
  game: config.require("game"),
  environment: config.get("environment") ?? "prod",
});
const scope = { gameId: env.gameId, environmentId: env.environmentId };

// A datacenter by slug (or the first one), and the newest build carrying the given tags.
const datacenters = gamehost.getDatacentersOutput({ ...scope, slug: config.get("datacenter") });
const builds = gamehost.getBuildsOutput({
  ...scope,
  tags: config.getObject<Record<string, string>>("buildTags"),
});
const datacenter = datacenters.apply((d) => d.datacenters[0]!.id);
const build = builds.apply((b) => b.builds[0]!.id);

const common = {
  ...scope,
  datacenter,
  runtime: { build, arguments: ["--mode", "lobby"], environment: { LOG_LEVEL: "info" } },
  resources: { cpu: 1000, memory: 1024 },
  lifecycle: { killTimeout: 30_000 },
};

// A lobby server: its HTTP port is proxied by game guard (hostname + port 80).
const lobby = new gamehost.Server("lobby", {
  ...common,
  tags: { role: "lobby" },
  network: { ports: { web: { protocol: "http", internalPort: 8080, routing: { gameGuard: {} } } } },
});

// A match server: its UDP port is exposed on the node itself (host routing).
const match = new gamehost.Server("match", {
  ...common,
  tags: { role: "match" },
  network: { mode: "host", ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
  destroyKillTimeout: 5_000,
});

const games = gamehost.getGamesOutput();
const game = gamehost.getGameOutput({ gameId: env.gameId });

// Yesterday, in UTC: a fixed span, so a re-run within the day changes nothing.
const todayUtc = new Date();
todayUtc.setUTCHours(0, 0, 0, 0);
const yesterdayUtc = new Date(todayUtc.getTime() - 24 * 3600 * 1000);

const history = new gamehost.LobbyHistoryExport("yesterday", {
  gameId: env.gameId,
  queryStart: yesterdayUtc,
  queryEnd: todayUtc,
  summarize: true,
});

export const lobbyServerId = lobby.serverId;
export const matchServerId = match.serverId;
export const lobbyEndpoint = lobby.endpoints.apply((e) => e.web);
export const matchEndpoint = match.endpoints.apply((e) => e.game);
export const gameNames = games.apply((g) => g.games.map((x) => x.displayName));
export const gameName = game.apply((g) => g.game.displayName);
export const environments = game.apply((g) => g.game.namespaces.map((n) => n.nameId));
export const historyUrl = history.url;
export const historyRows = history.rowCount;
export const historySha256 = history.sha256;
