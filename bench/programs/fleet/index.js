// Benchmark program: one Fleet of `bench:count` servers in one datacenter, the same spec as the servers
// program (`waitForReady: false`, so each server is one POST and one DELETE, the calls the direct baseline
// makes). `bench:face` picks the dynamic resource (default) or the plugin's. The rollout bench sets
// `bench:build` (the build to run), `bench:rollout` (the bounds) and `bench:waitForReady`.
const pulumi = require("@pulumi/pulumi");
const gamehost = require("pulumi-gamehost");

const config = new pulumi.Config("bench");
const target = config.requireObject("target");
const { Fleet } = config.get("face") === "plugin" ? gamehost.native : gamehost;
const rollout = config.getObject("rollout");

new Fleet("fleet", {
  gameId: target.gameId,
  environmentId: target.environmentId,
  template: {
    tags: { bench: "fleet" },
    runtime: { build: config.get("build") ?? target.build },
    network: { ports: { game: { protocol: "udp", routing: { host: {} } } } },
    resources: { cpu: 250, memory: 256 },
  },
  datacenters: { [target.datacenter]: config.requireNumber("count") },
  waitForReady: config.getBoolean("waitForReady") ?? false,
  ...(rollout ? { rollout } : {}),
});
