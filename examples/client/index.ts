/**
 * The typed client of `pulumi-gamehost/api`, end to end: find a game's environment by name, start a server
 * in one of its datacenters, wait for it to be placed, read it back, destroy it, meet a not-found error,
 * and take one version of a watch. docs/client.md walks through it; the test suite runs it against the
 * emulator (test/api/clientExample.test.ts).
 *
 * Run it against the emulator (`npx gamehost-emulator` prints the URL and a user token):
 *   GAMEHOST_BASE_URL=http://127.0.0.1:8787 GAMEHOST_TOKEN=emu_user_alice npx tsx examples/client/index.ts
 */
import { randomUUID } from "node:crypto";
import { GamehostApiError, GamehostClient, type Server } from "pulumi-gamehost/api";

/** What the walk-through found, for its caller (and the test) to check. */
export interface Walkthrough {
  game: string;
  environment: string;
  serverId: string;
  endpoint: string;
  notFoundCode: string;
  watchedVersions: number;
}

/** Polls a server until the service has placed it (`started_at` set), or `timeoutMs` passes. */
async function whenStarted(
  client: GamehostClient,
  scope: { gameId: string; environmentId: string },
  server: Server,
  timeoutMs: number,
): Promise<Server> {
  const deadline = Date.now() + timeoutMs;
  let current = server;
  while (current.started_at === undefined) {
    if (Date.now() > deadline) throw new Error(`server ${server.id} did not start within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    current = await client.getServer(scope.gameId, scope.environmentId, server.id);
  }
  return current;
}

/** The walk-through. With no options the client reads GAMEHOST_BASE_URL and GAMEHOST_TOKEN. */
export async function walkthrough(
  options: { baseUrl?: string; token?: string; environment?: string; log?: (line: string) => void } = {},
): Promise<Walkthrough> {
  const log = options.log ?? console.log;
  // Explicit options win over the GAMEHOST_* environment variables.
  const client = new GamehostClient({
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
    userAgent: "client-example",
  });

  // GET /cloud/games, then GET /cloud/games/{game_id}: names a person knows, resolved to ids.
  const { games } = await client.listGames();
  const summary = games[0];
  if (!summary) throw new Error("this token sees no game");
  const { game } = await client.getGame(summary.game_id);
  const environment =
    game.namespaces.find((n) => n.name_id === (options.environment ?? "prod")) ?? game.namespaces[0];
  if (!environment) throw new Error(`game ${game.name_id} has no environment`);
  log(`game ${game.display_name} (${game.game_id}), environment ${environment.name_id}`);

  // GET …/datacenters and …/builds: the ids a server needs.
  const [datacenter] = await client.listDatacenters(game.game_id, environment.namespace_id);
  const [build] = await client.listBuilds(game.game_id, environment.namespace_id);
  if (!datacenter || !build) throw new Error(`environment ${environment.name_id} has no datacenter or build`);

  // POST …/servers: never retried by the client (see docs/client.md, "Retries").
  const created = await client.createServer(game.game_id, environment.namespace_id, {
    datacenter: datacenter.id,
    tags: { example: "client" },
    runtime: { build: build.id },
    network: { ports: { game: { protocol: "udp", internal_port: 7777, routing: { host: {} } } } },
    resources: { cpu: 250, memory: 256 },
  });
  const scope = { gameId: game.game_id, environmentId: environment.namespace_id };
  const server = await whenStarted(client, scope, created, 30_000);
  const port = server.network.ports.game;
  const endpoint = `${port?.public_hostname}:${port?.public_port}`;
  log(`server ${server.id} started in ${datacenter.slug}: ${endpoint}`);

  // GET …/servers with a tag filter finds it again; DELETE destroys it.
  const tagged = await client.listServers(game.game_id, environment.namespace_id, {
    tags: { example: "client" },
  });
  log(`servers tagged example=client: ${tagged.length}`);
  await client.deleteServer(game.game_id, environment.namespace_id, server.id);

  // A not-found answer is a GamehostApiError with the service's code.
  let notFoundCode = "";
  try {
    await client.getServer(game.game_id, environment.namespace_id, randomUUID());
  } catch (error) {
    if (!(error instanceof GamehostApiError) || !error.isNotFound) throw error;
    notFoundCode = error.code;
    log(`unknown server: ${error.code} (ray id ${error.rayId})`);
  }

  // A watch yields the current version at once, then each new one; aborting its signal ends it.
  const stop = new AbortController();
  let watchedVersions = 0;
  for await (const version of client.watchGame(game.game_id, { signal: stop.signal })) {
    watchedVersions += 1;
    log(`game version ${version.watch.index}: ${version.game.versions.length} published versions`);
    stop.abort();
  }

  return {
    game: game.name_id,
    environment: environment.name_id,
    serverId: server.id,
    endpoint,
    notFoundCode,
    watchedVersions,
  };
}

if (require.main === module) {
  walkthrough().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
