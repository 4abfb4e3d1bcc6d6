// Benchmark program: the gamehost provider and nothing else. `up` and `destroy` of it are the CLI's fixed
// cost as issue 24 words it (start, program, plugin): the engine starts `pulumi-resource-gamehost` and
// configures it, and no server is made. `bench:count` and `bench:target` are ignored.
const pulumi = require("@pulumi/pulumi");
const gamehost = require("pulumi-gamehost");

const config = new pulumi.Config("gamehost");
new gamehost.native.Provider("gamehost", {
  baseUrl: config.require("baseUrl"),
  token: config.requireSecret("token"),
});
