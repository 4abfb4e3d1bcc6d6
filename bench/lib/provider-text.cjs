// Prints, as JSON, the `__provider` text the SDK serializes for each of the package's dynamic resources
// (what ends up in the state and is sent to the dynamic provider host). Runs under the SDK's mocks, in a
// process of its own, so the bench process's Pulumi runtime stays untouched.
const path = require("node:path");
const { createRequire } = require("node:module");

const repoRequire = createRequire(path.resolve(__dirname, "..", "..", "package.json"));
const pulumi = repoRequire("@pulumi/pulumi");
const gamehost = repoRequire("pulumi-gamehost");

const texts = {};
pulumi.runtime
  .setMocks(
    {
      newResource(args) {
        texts[args.type] = args.inputs.__provider;
        return { id: "id", state: args.inputs };
      },
      call: () => ({}),
    },
    "bench",
    "bench",
  )
  .then(async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const server = new gamehost.Server("s", {
      gameId: id,
      environmentId: id,
      datacenter: id,
      tags: {},
      runtime: { build: id },
      network: { ports: { game: { protocol: "udp", routing: { host: {} } } } },
      resources: { cpu: 250, memory: 256 },
    });
    const exp = new gamehost.LobbyHistoryExport("e", { gameId: id, queryStart: 0, queryEnd: 1 });
    const settled = (output) => new Promise((resolve) => output.apply(resolve));
    await Promise.all([settled(server.id), settled(exp.id)]);
    process.stdout.write(`${JSON.stringify(texts)}\n`);
  });
