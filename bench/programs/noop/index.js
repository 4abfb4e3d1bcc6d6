// Benchmark program: `bench:count` dynamic resources with the same inputs and declared outputs as the
// servers program, but a provider that answers at once without any API call. Running it measures what the
// SDK, the engine (harness) and the dynamic provider host cost per resource, whatever the provider does.
const pulumi = require("@pulumi/pulumi");

let next = 0;
const provider = {
  async check(_olds, news) {
    return { inputs: news, failures: [] };
  },
  async create(inputs) {
    next += 1;
    return { id: `noop-${process.pid}-${next}`, outs: inputs };
  },
  async delete() {},
};

const OUTPUTS = ["serverId", "createdAt", "startedAt", "destroyedAt", "ports", "endpoints", "idempotencyKey"];

class Noop extends pulumi.dynamic.Resource {
  constructor(name, args) {
    const props = { ...args };
    for (const key of OUTPUTS) props[key] = undefined;
    super(provider, name, props, undefined, "bench", "Noop");
  }
}

const config = new pulumi.Config("bench");
const count = config.requireNumber("count");
const target = config.requireObject("target");
for (let i = 0; i < count; i++) {
  new Noop(`s-${String(i).padStart(4, "0")}`, {
    gameId: target.gameId,
    environmentId: target.environmentId,
    datacenter: target.datacenter,
    tags: { bench: "many" },
    runtime: { build: target.build },
    network: { ports: { game: { protocol: "udp", routing: { host: {} } } } },
    resources: { cpu: 250, memory: 256 },
    waitForReady: false,
    resourceScope: `gamehost-bench-noop/bench/s-${i}`,
  });
}
