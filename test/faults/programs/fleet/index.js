// Fault-campaign fixture: `count` identical game servers (server-0 … server-N-1), each tagged with the
// campaign case so that one case's servers never match another's idempotency key or orphan count.
const pulumi = require("@pulumi/pulumi");
const gamehost = require("pulumi-gamehost");

const config = new pulumi.Config();
// `face: plugin` declares the provider plugin's Server instead of the dynamic one.
const Server = config.get("face") === "plugin" ? gamehost.native.Server : gamehost.Server;
const count = config.requireNumber("count");
const caseName = config.require("case");
const readyTimeoutSeconds = config.getNumber("readyTimeoutSeconds");

const servers = [];
for (let i = 0; i < count; i++) {
  servers.push(
    new Server(`server-${i}`, {
      gameId: config.require("gameId"),
      environmentId: config.require("environmentId"),
      datacenter: config.require("datacenterId"),
      tags: { campaign: caseName, slot: String(i) },
      runtime: { build: config.require("buildId") },
      network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
      resources: { cpu: 250, memory: 256 },
      ...(readyTimeoutSeconds !== undefined ? { readyTimeoutSeconds } : {}),
    }),
  );
}

exports.serverIds = pulumi.all(servers.map((s) => s.serverId));
