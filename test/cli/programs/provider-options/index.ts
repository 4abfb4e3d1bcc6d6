// Resource options a Pulumi user gives the dynamic face as they would the native one: an explicit gamehost
// provider (`provider`, or `providers` of a parent component), and `customTimeouts`; and explicit providers on
// the native face left without a token or a base URL. The stack's config `case` picks one; `euUrl` is where the
// explicit provider points (it has no token: an explicit provider reads none from the stack's config).
import * as pulumi from "@pulumi/pulumi";
import * as gamehost from "pulumi-gamehost";

const config = new pulumi.Config();
const which = config.require("case");
const eu = new gamehost.native.Provider("eu", { baseUrl: config.require("euUrl") });

const lookupOptions = which === "invoke" ? { provider: eu } : {};
const env = gamehost.getEnvironmentOutput({ game: "space-race", environment: "prod" }, lookupOptions);
const scope = { gameId: env.gameId, environmentId: env.environmentId };
const dc = gamehost.getDatacentersOutput({ ...scope, slug: "us-east-atl" });
const build = gamehost.getBuildsOutput(scope);
const args = {
  ...scope,
  datacenter: dc.apply((d) => d.datacenters[0]?.id ?? ""),
  tags: { role: which },
  runtime: { build: build.apply((b) => b.builds[0]?.id ?? "") },
  network: { ports: { game: { protocol: "udp" as const, internalPort: 7777, routing: { host: {} } } } },
  resources: { cpu: 250, memory: 256 },
};

class Region extends pulumi.ComponentResource {
  constructor(name: string, opts: pulumi.ComponentResourceOptions) {
    super("test:index:Region", name, {}, opts);
    new gamehost.Server(`${name}-match`, args, { parent: this });
    this.registerOutputs({});
  }
}

if (which === "explicit") new gamehost.Server("match", args, { provider: eu });
if (which === "inherited") new Region("eu", { providers: [eu] });
// A transform sets the provider after the constructor has checked the options.
if (which === "transform")
  new gamehost.Server("match", args, {
    transforms: [(a) => ({ props: a.props, opts: { ...a.opts, provider: eu } })],
  });
if (which === "timeouts") new gamehost.Server("match", args, { customTimeouts: { create: "5m" } });
if (which === "nativeToken") gamehost.native.getGamesOutput({ provider: eu });
if (which === "nativeUrl") new gamehost.native.Provider("bare", {});
// Transforms that change a gamehost resource's inputs (docs/_index.md, "Policies and
// transforms"), on both faces: a `transforms` option on a component reaching its children adds a tag, and a
// stack transformation sizes every Server.
if (which === "inputs") {
  const servers = ["pulumi-nodejs:dynamic/gamehost:Server", "gamehost:index:Server"];
  pulumi.runtime.registerStackTransformation((a) =>
    servers.includes(a.type)
      ? { props: { ...a.props, resources: { cpu: 500, memory: 256 } }, opts: a.opts }
      : undefined,
  );
  class Team extends pulumi.ComponentResource {
    constructor(name: string, opts: pulumi.ComponentResourceOptions) {
      super("test:index:Team", name, {}, opts);
      new gamehost.Server(`${name}-dynamic`, args, { parent: this });
      new gamehost.native.Server(`${name}-native`, args, { parent: this });
      this.registerOutputs({});
    }
  }
  new Team("blue", {
    transforms: [
      (a) =>
        servers.includes(a.type)
          ? { props: { ...a.props, tags: { ...a.props.tags, team: "blue" } }, opts: a.opts }
          : undefined,
    ],
  });
}
