/**
 * A user's program on the plugin face (`pulumi-gamehost/native`), type-checked in fresh template projects.
 * The `@ts-expect-error` lines fail the check if the types ever degrade to `any`.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as native from "pulumi-gamehost/native";

const provider = new native.Provider("eu", { baseUrl: "https://api.example.gg" });
const env = native.getEnvironmentOutput({ game: "space-race", environment: "prod" }, { provider });

const serverArgs = {
  gameId: env.gameId,
  environmentId: env.environmentId,
  datacenter: "dc",
  tags: { role: "match" },
  runtime: { build: "build" },
  network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
  resources: { cpu: 1000, memory: 1024 },
} as const;
const match = new native.Server("match", serverArgs, { provider, customTimeouts: { create: "2m" } });

const adopted = native.Server.get("adopted", "game/env/server", undefined, { provider });

export const endpoint: pulumi.Output<string | undefined> = match.endpoints.apply((e) => e.game);
export const adoptedId: pulumi.Output<string> = adopted.serverId;

const cpuAsText = { cpu: "1000", memory: 1024 };
// @ts-expect-error resources.cpu is a number
export const wrong = new native.Server("wrong", { ...serverArgs, resources: cpuAsText });
