/**
 * A user's code on `pulumi-gamehost/api`: the client, its wire types, errors and watches, type-checked in
 * fresh projects from both Pulumi templates as they are (the older one has no `esModuleInterop`: the
 * subpath's declarations must not reach zod's). The `@ts-expect-error` lines fail the check if the types
 * ever degrade to `any`.
 */
import {
  type CreateServerRequest,
  GamehostApiError,
  GamehostClient,
  GamehostValidationError,
  type GameSummary,
  type Server,
} from "pulumi-gamehost/api";

export async function gameNames(baseUrl: string, token: string): Promise<string[]> {
  const client = new GamehostClient({ baseUrl, token, maxRetries: 2, userAgent: "consumer-test" });
  try {
    const games: GameSummary[] = (await client.listGames()).games;
    // @ts-expect-error the wire format is snake_case
    games.map((g) => g.nameId);
    return games.map((g) => g.name_id);
  } catch (error) {
    if (error instanceof GamehostApiError) return [`${error.status} ${error.code}`];
    if (error instanceof GamehostValidationError) return [error.message];
    throw error;
  }
}

export async function createAndWatch(client: GamehostClient, gameId: string, environmentId: string) {
  const body: CreateServerRequest = {
    datacenter: "dc000000-0000-4000-8000-000000000001",
    tags: { role: "match" },
    runtime: { build: "b0000000-0000-4000-8000-000000000001" },
    network: { ports: { game: { protocol: "udp", internal_port: 7777, routing: { host: {} } } } },
    resources: { cpu: 1000, memory: 1024 },
  };
  // @ts-expect-error protocol is one of the service's protocols
  const wrong: CreateServerRequest = { ...body, network: { ports: { game: { protocol: "ftp" } } } };
  const server: Server = await client.createServer(gameId, environmentId, body);
  const started: number | undefined = server.started_at;
  const controller = new AbortController();
  for await (const version of client.watchGame(gameId, { signal: controller.signal })) {
    controller.abort();
    return { started, wrong, versions: version.game.versions.length };
  }
  return { started, wrong, versions: 0 };
}
