// Engine-scenario program: one Server per entry of the config object `servers` (name -> ServerArgs), so a
// test changes tags, knobs or bad values between runs without editing the program.
import * as pulumi from "@pulumi/pulumi";
import * as gamehost from "pulumi-gamehost";

const config = new pulumi.Config();
const declared = config.requireObject<Record<string, gamehost.ServerArgs>>("servers");

const servers = Object.entries(declared).map(([name, args]) => ({
  name,
  server: new gamehost.Server(name, args),
}));

export const serverIds = pulumi.all(Object.fromEntries(servers.map((s) => [s.name, s.server.serverId])));
export const endpoints = pulumi.all(Object.fromEntries(servers.map((s) => [s.name, s.server.endpoints])));
