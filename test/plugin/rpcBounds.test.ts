/**
 * Every RPC of the plugin honours a deadline and Cancel (issue 18 §3): Invoke and Read, which the
 * engine gives no timeout, get the provider's own; Cancel and a cancelled gRPC call end them at once
 * and close the HTTP request they hold. The provider is served in-process over real gRPC, against an
 * HTTP server that never answers.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceError } from "@grpc/grpc-js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../src/api/transport";
import { emptyproto, grpc, provproto, structproto } from "../../src/plugin/proto";
import { GamehostProvider } from "../../src/plugin/provider";
import { closedPort } from "../api/helpers/scriptedServer";
import { until } from "../support/until";
import { type ProviderClient, serveInProcess } from "./inProcess";

const GAME = "00000000-0000-4000-8000-000000000003";
const ENV = "00000000-0000-4000-8000-000000000005";
const SERVER_ID = "00000000-0000-4000-8000-000000000011";

type Client = ProviderClient;

interface Hanging {
  url: string;
  /** Requests received and not yet closed by the client. */
  open: Set<IncomingMessage>;
  received: number;
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  await closeSharedDispatchers();
});

async function hangingService(): Promise<Hanging> {
  const svc: Hanging = { url: "", open: new Set<IncomingMessage>(), received: 0 };
  const server = createServer((req) => {
    svc.received += 1;
    svc.open.add(req);
    req.socket.once("close", () => svc.open.delete(req));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  svc.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return svc;
}

function serve(provider: GamehostProvider, baseUrl: string): Promise<Client> {
  // Per-call bounds far away: only the RPC's own deadline, or a cancel, may end the wait.
  const config = { baseUrl, token: "t", requestTimeoutMs: "60000", callTimeoutMs: "60000", maxRetries: "0" };
  return serveInProcess(provider, config, (stop) => cleanup.push(stop));
}

function invokeRequest(tok: string, args: Record<string, unknown> = {}) {
  const req = new provproto.InvokeRequest();
  req.setTok(tok);
  req.setArgs(structproto.Struct.fromJavaScript(args as never));
  return req;
}

/** Resolves with the call's error (or rejects if it succeeded). */
function failureOf(start: (cb: (err: ServiceError | null) => void) => void): Promise<ServiceError> {
  return new Promise((resolve, reject) =>
    start((err) => (err ? resolve(err) : reject(new Error("expected the call to fail")))),
  );
}

// The first call of a worker loads the provider's call path (the HTTP client, the schemas: the plugin loads them
// lazily), which took seconds on a loaded machine, longer than the deadlines below: the request never reached the
// service and "closes the request it held" had none to close. One call to a closed port loads it first.
beforeAll(async () => {
  const client = await serve(new GamehostProvider(), `http://127.0.0.1:${await closedPort()}`);
  await failureOf((cb) => client.invoke(invokeRequest("gamehost:index:getGames"), cb));
}, 120_000);

describe("Invoke", () => {
  it("ends at its deadline with DEADLINE_EXCEEDED, naming it, and closes the request it held", async () => {
    const svc = await hangingService();
    const client = await serve(new GamehostProvider({ rpcTimeoutMs: 1000 }), svc.url);
    const err = await failureOf((cb) => client.invoke(invokeRequest("gamehost:index:getGames"), cb));
    expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(err.details).toBe(
      "Invoke of gamehost:index:getGames did not finish within 1s: retry it; if the service is this slow, raise gamehost:callTimeoutMs (GAMEHOST_CALL_TIMEOUT_MS).",
    );
    expect(svc.received).toBe(1);
    await until(() => svc.open.size === 0);
  });

  it("ends at once on Cancel with CANCELLED, and closes the request it held", async () => {
    const svc = await hangingService();
    const client = await serve(new GamehostProvider(), svc.url);
    const pending = failureOf((cb) =>
      client.invoke(invokeRequest("gamehost:index:getGame", { gameId: GAME }), cb),
    );
    await until(() => svc.open.size === 1);
    await new Promise<void>((resolve, reject) =>
      client.cancel(new emptyproto.Empty(), (err) => (err ? reject(err) : resolve())),
    );
    const err = await pending;
    expect(err.code).toBe(grpc.status.CANCELLED);
    expect(err.details).toBe("The operation was cancelled by the engine.");
    await until(() => svc.open.size === 0);
  });

  it("stops its work when the engine cancels the gRPC call itself", async () => {
    const svc = await hangingService();
    const client = await serve(new GamehostProvider(), svc.url);
    const call = client.invoke(invokeRequest("gamehost:index:getGames"), () => undefined);
    await until(() => svc.open.size === 1);
    call.cancel();
    await until(() => svc.open.size === 0);
  });

  it("honours a deadline set on the gRPC call", async () => {
    const svc = await hangingService();
    const client = await serve(new GamehostProvider(), svc.url);
    client.invoke(
      invokeRequest("gamehost:index:getGames"),
      new grpc.Metadata(),
      { deadline: Date.now() + 1000 },
      () => undefined,
    );
    await until(() => svc.received === 1);
    await until(() => svc.open.size === 0);
  });
});

describe("Read", () => {
  it("has a deadline too, though the engine gives Read no timeout", async () => {
    const svc = await hangingService();
    const client = await serve(new GamehostProvider({ rpcTimeoutMs: 300 }), svc.url);
    const req = new provproto.ReadRequest();
    req.setType("gamehost:index:Server");
    req.setId(`${GAME}/${ENV}/${SERVER_ID}`);
    req.setUrn("urn:pulumi:dev::bounds::gamehost:index:Server::s");
    const err = await failureOf((cb) => client.read(req, cb));
    expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(err.details).toContain(`Read of gamehost:index:Server ${GAME}/${ENV}/${SERVER_ID} did not finish`);
    await until(() => svc.open.size === 0);
  });
});
