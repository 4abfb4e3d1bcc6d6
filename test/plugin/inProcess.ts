/**
 * The provider served in this process over real gRPC (a loopback port), configured with `config`: for
 * tests that need the wire but not the plugin executable.
 */
import { grpc, provproto, provrpc, structproto } from "../../src/plugin/proto";
import type { GamehostProvider } from "../../src/plugin/provider";

export type ProviderClient = InstanceType<typeof provrpc.ResourceProviderClient>;

/**
 * Serves `provider`, connects a client and sends Configure with `config`. `stop` (handed to `onStop`
 * before Configure, so a failed Configure is cleaned up too) closes the client and the server.
 */
export async function serveInProcess(
  provider: GamehostProvider,
  config: Record<string, string>,
  onStop: (stop: () => void) => void,
): Promise<ProviderClient> {
  const server = new grpc.Server();
  server.addService(provrpc.ResourceProviderService, provider.service());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  onStop(() => {
    client.close();
    server.forceShutdown();
  });
  const configure = new provproto.ConfigureRequest();
  configure.setArgs(structproto.Struct.fromJavaScript(config));
  await new Promise<void>((resolve, reject) =>
    client.configure(configure, (err) => (err ? reject(err) : resolve())),
  );
  return client;
}
