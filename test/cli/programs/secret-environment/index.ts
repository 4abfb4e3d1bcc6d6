// A server and a fleet whose environment holds a secret from the stack's config (`dbPassword`, set with
// --secret), as a user keeps a database password; config `face: plugin` uses the plugin's classes.
import * as pulumi from "@pulumi/pulumi";
import * as gamehost from "pulumi-gamehost";

const config = new pulumi.Config();
const face = config.get("face") === "plugin" ? gamehost.native : gamehost;
const env = gamehost.getEnvironmentOutput({ game: "space-race", environment: "prod" });
const scope = { gameId: env.gameId, environmentId: env.environmentId };
const build = gamehost.getBuildsOutput(scope);
const spec = {
  runtime: {
    build: build.apply((b) => b.builds[0]?.id ?? ""),
    environment: { DB_PASSWORD: config.requireSecret("dbPassword") },
  },
  network: { ports: { game: { protocol: "udp" as const, internalPort: 7777, routing: { host: {} } } } },
  resources: { cpu: 250, memory: 256 },
};
const dc = gamehost.getDatacentersOutput({ ...scope, slug: "us-east-atl" });

const server = new face.Server("match", {
  ...scope,
  datacenter: dc.apply((d) => d.datacenters[0]?.id ?? ""),
  tags: { role: "secret-env" },
  ...spec,
});
const fleet = new face.Fleet("pool", {
  ...scope,
  datacenters: { "us-east-atl": 1 },
  template: { tags: { role: "secret-env-fleet" }, ...spec },
});

export const serverId = server.serverId;
export const runtime = server.runtime;
export const generation = fleet.generation;
