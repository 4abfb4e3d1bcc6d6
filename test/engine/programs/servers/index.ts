// Engine-scenario program: one Server per entry of the config object `servers` (name -> ServerArgs), so a
// test changes tags, knobs or bad values between runs without editing the program. Config `face` picks the
// dynamic resource (default) or the plugin's (`plugin`); `options` (name -> { import, customTimeouts })
// gives resource options; `lookups` (name -> id) reads existing servers with the plugin face's `get`.
import * as pulumi from "@pulumi/pulumi";
import * as gamehost from "pulumi-gamehost";

const config = new pulumi.Config();
const declared = config.requireObject<Record<string, gamehost.ServerArgs>>("servers");
const options = config.getObject<Record<string, pulumi.CustomResourceOptions>>("options") ?? {};
const Server = config.get("face") === "plugin" ? gamehost.native.Server : gamehost.Server;

const servers = Object.entries(declared).map(([name, args]) => ({
  name,
  server: new Server(name, args, options[name]),
}));

const lookups = Object.entries(config.getObject<Record<string, string>>("lookups") ?? {}).map(
  ([name, id]) => ({
    name,
    server: gamehost.native.Server.get(name, id),
  }),
);

export const serverIds = pulumi.all(Object.fromEntries(servers.map((s) => [s.name, s.server.serverId])));
export const endpoints = pulumi.all(Object.fromEntries(servers.map((s) => [s.name, s.server.endpoints])));
export const idempotencyKeys = pulumi.all(
  Object.fromEntries(servers.map((s) => [s.name, s.server.idempotencyKey])),
);
export const found = pulumi.all(
  Object.fromEntries(
    lookups.map((l) => [l.name, pulumi.all([l.server.serverId, l.server.tags, l.server.endpoints])]),
  ),
);
