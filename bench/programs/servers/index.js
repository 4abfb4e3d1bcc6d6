// Benchmark program: `bench:count` Servers that differ only by name. By default `waitForReady: false`, so
// create is exactly one POST (with the idempotency tag) and delete is DELETE — the calls the direct baseline
// makes. `bench:waitForReady` waits for placement (full outputs); `bench:export` adds a LobbyHistoryExport.
// `bench:face` picks the dynamic resources (default, `dynamic`) or the provider plugin's (`plugin`:
// `pulumi-gamehost/native`, served by the plugin folder Pulumi.yaml names), with the same arguments.
const pulumi = require("@pulumi/pulumi");
const gamehost = require("pulumi-gamehost");

const config = new pulumi.Config("bench");
const count = config.requireNumber("count");
const target = config.requireObject("target");
const waitForReady = config.getBoolean("waitForReady") ?? false;
const face = config.get("face") ?? "dynamic";
if (face !== "dynamic" && face !== "plugin")
  throw new Error(`bench:face must be dynamic or plugin, not ${face}`);
const { Server, LobbyHistoryExport } = face === "plugin" ? gamehost.native : gamehost;

for (let i = 0; i < count; i++) {
  new Server(`s-${String(i).padStart(4, "0")}`, {
    gameId: target.gameId,
    environmentId: target.environmentId,
    datacenter: target.datacenter,
    tags: { bench: "many" },
    runtime: { build: target.build },
    network: { ports: { game: { protocol: "udp", routing: { host: {} } } } },
    resources: { cpu: 250, memory: 256 },
    waitForReady,
  });
}

if (config.getBoolean("export")) {
  new LobbyHistoryExport("history", {
    gameId: target.gameId,
    queryStart: 0,
    queryEnd: 4_102_444_800_000,
    summarize: true,
  });
}
