// Secret-sweep fixture: everything that handles the token or a secret URL, with both URLs exported.
// Config `face: plugin` uses the provider plugin's resources and invokes instead of the dynamic ones.
const pulumi = require("@pulumi/pulumi");
const gamehost = require("pulumi-gamehost");

const config = new pulumi.Config();
const face = config.get("face") === "plugin" ? gamehost.native : gamehost;
const gameId = config.require("gameId");

const server = new face.Server("match", {
  gameId,
  environmentId: config.require("environmentId"),
  datacenter: config.require("datacenterId"),
  tags: { role: `secret-sweep-${config.get("face") ?? "dynamic"}` },
  runtime: { build: config.require("buildId") },
  network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
  resources: { cpu: 250, memory: 256 },
});

const history = new face.LobbyHistoryExport("history", {
  gameId,
  queryStart: 0,
  queryEnd: 1_800_000_000_000,
  summarize: true,
});

const session = face.createPaymentPortalSessionOutput({
  groupId: config.require("groupId"),
  intent: "payment_method_update",
});

exports.serverId = server.serverId;
exports.historyUrl = history.url;
exports.historyRows = history.rowCount;
exports.portalUrl = session.url;
