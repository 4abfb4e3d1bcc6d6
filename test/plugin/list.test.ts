/**
 * The provider's `List` over the gRPC wire, for what `pulumi do … list` does not reach on its own: a page
 * cut by `limit` ends with a continuation that the next call resumes after (the service's `cursor`), a
 * query with unknowns answers "computed", a kind without a listing and a bad query fail by name, and
 * provider inputs sent as null (as `pulumi do` sends unset ones) fall back to the environment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import {
  type ServerTarget,
  serverTarget,
  startTestEmulator,
  userClient,
  wireServerBody,
} from "../support/emulator";
import { grpc, PluginDriver, PluginProcess, prov, toStruct, UNKNOWN } from "./pluginClient";

const SERVER = "gamehost:index:Server";

let emulator: RunningEmulator;
let target: ServerTarget;
let plugin: PluginProcess;
const made: string[] = [];

/** One `List` call: its results, continuation and computed marker, or its error. */
function list(
  token: string,
  query: Record<string, unknown>,
  page: { limit?: number; continuation?: string } = {},
): Promise<{ ids: string[]; continuation?: string; computed: boolean }> {
  const req = new prov.ListRequest();
  req.setToken(token);
  req.setQuery(toStruct(query));
  req.setLimit(page.limit ?? 0);
  req.setContinuationToken(page.continuation ?? "");
  const stream = (plugin.client as unknown as { list(r: typeof req): NodeJS.EventEmitter }).list(req);
  const ids: string[] = [];
  let continuation: string | undefined;
  let computed = false;
  return new Promise((resolve, reject) => {
    stream.on("data", (res: InstanceType<typeof prov.ListResponse>) => {
      if (res.hasResult()) ids.push(res.getResult()?.getId() ?? "");
      if (res.hasContinuation()) continuation = res.getContinuation()?.getContinuationToken();
      if (res.hasComputed()) computed = true;
    });
    stream.on("error", reject);
    stream.on("end", () =>
      resolve({ ids, ...(continuation !== undefined ? { continuation } : {}), computed }),
    );
  });
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  target = serverTarget(emulator);
  // The connection from the environment; Configure sends every input, the unset ones as null.
  plugin = await PluginProcess.start({
    GAMEHOST_BASE_URL: emulator.url,
    GAMEHOST_TOKEN: emulator.tokens.user,
  });
  await new PluginDriver(plugin).configure(
    { baseUrl: null, token: null },
    { "gamehost:config:baseUrl": "null", "gamehost:config:token": "null" },
  );
  const client = userClient(emulator);
  for (const role of ["a", "b", "c"]) {
    // Each in a millisecond of its own: pages of servers created in one millisecond are cut around them
    // (the service's cursor skips the cursor's own millisecond), which test/provider/serverListing.test.ts covers.
    const before = Date.now();
    while (Date.now() === before) await new Promise((resolve) => setImmediate(resolve));
    const server = await client.createServer(
      target.gameId,
      target.environmentId,
      wireServerBody(target.datacenter, target.build, { role, list: "wire" }),
    );
    made.unshift(server.id); // newest first, as the service lists them
  }
});
afterAll(async () => {
  await plugin?.stop();
  await emulator?.stop();
});

describe("List", () => {
  const scope = () => ({
    gameId: target.gameId,
    environmentId: target.environmentId,
    tags: { list: "wire" },
  });
  const importId = (id: string) => `${target.gameId}/${target.environmentId}/${id}`;

  it("pages by limit: a continuation after a cut page, none after the last", async () => {
    const first = await list(SERVER, scope(), { limit: 2 });
    expect(first.ids).toEqual(made.slice(0, 2).map(importId));
    expect(first.continuation).toBe(made[1]);
    const rest = await list(SERVER, scope(), { limit: 2, continuation: first.continuation ?? "" });
    expect(rest.ids).toEqual(made.slice(2).map(importId));
    expect(rest.continuation).toBeUndefined();
    const whole = await list(SERVER, scope());
    expect(whole).toEqual({ ids: made.map(importId), computed: false });
  });

  it("answers computed for a query with unknowns, without a request", async () => {
    emulator.resetRequests();
    expect(await list(SERVER, { ...scope(), gameId: UNKNOWN })).toEqual({ ids: [], computed: true });
    expect(emulator.requests).toEqual([]);
  });

  it("names a bad query's field, and a kind that cannot list", async () => {
    await expect(list(SERVER, { ...scope(), includeDestroyed: "yes" })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(/includeDestroyed/),
    });
    await expect(list("gamehost:index:LobbyHistoryExport", {})).rejects.toMatchObject({
      details: expect.stringMatching(/cannot list gamehost:index:LobbyHistoryExport/),
    });
  });
});
