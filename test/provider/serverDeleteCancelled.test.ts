/**
 * A cancel (a Ctrl-C of `pulumi destroy`) that comes while a server's DELETE is in flight: the service may
 * have done it. Failing the delete kept a server the service had destroyed in the state (a 100-server
 * destroy cut short left 2 such, which `gamehost drift` then called "destroyed out of band"). The delete
 * asks the service: a server it destroyed is deleted, and only one still live fails as cancelled.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import type { OperationContext } from "../../src/kinds/kind";
import { serverKind } from "../../src/kinds/server/implementation";
import type { ServerOutputs } from "../../src/kinds/server/spec";
import { ENV, GAME, json, type SeenRequest, useScriptedServers } from "../api/helpers/scriptedServer";

const SERVER = "00000000-0000-4000-8000-0000000000cc";
const DC = "00000000-0000-4000-8000-000000000007";
const BUILD = "00000000-0000-4000-8000-000000000009";

const scripted = useScriptedServers();

const serverBody = (destroyedAt: number | undefined) => ({
  server: {
    id: SERVER,
    created_at: Date.now() - 60_000,
    datacenter: DC,
    environment: ENV,
    lifecycle: {},
    network: { ports: { game: { protocol: "udp", internal_port: 7777, routing: { host: {} } } } },
    resources: { cpu: 100, memory: 128 },
    runtime: { build: BUILD },
    tags: {},
    ...(destroyedAt !== undefined ? { destroyed_at: destroyedAt } : {}),
  },
});

/**
 * The service: a DELETE is done at once (when `commits`) and its answer held until the test has cancelled;
 * a GET answers the server as it then is.
 */
function service(commits: boolean, cancel: () => void) {
  let destroyedAt: number | undefined;
  return (req: SeenRequest, res: ServerResponse) => {
    if (req.method === "DELETE") {
      if (commits) destroyedAt = Date.now();
      cancel();
      // The answer comes after the cancel (or never, were it not for the test's end).
      setTimeout(() => json(res, 200, {}), 2_000);
      return;
    }
    if (req.method === "GET") return json(res, 200, serverBody(destroyedAt));
    return json(res, 400, { code: "API_BAD_QUERY", message: "unexpected" });
  };
}

const outputs = { gameId: GAME, environmentId: ENV } as unknown as ServerOutputs;

async function deleteCancelled(commits: boolean) {
  const controller = new AbortController();
  const s = await scripted(
    service(commits, () => controller.abort(new Error("The operation was cancelled by the engine."))),
  );
  const client = new GamehostClient({ baseUrl: s.url, token: "tok-abcdefgh", retry: { maxRetries: 0 } });
  const ctx: OperationContext = { client: () => client, signal: controller.signal };
  const outcome = await serverKind.delete(ctx, SERVER, outputs).then(
    () => "deleted",
    (e: unknown) => (e as Error).message,
  );
  return { outcome, requests: s.seen.map((r) => r.method) };
}

describe("a server's delete cancelled while its DELETE is in flight", () => {
  it("is done when the service destroyed the server", async () => {
    const { outcome, requests } = await deleteCancelled(true);
    expect(outcome).toBe("deleted");
    expect(requests).toEqual(["DELETE", "GET"]);
  });

  it("fails as cancelled when the server is still live", async () => {
    const { outcome } = await deleteCancelled(false);
    expect(outcome).toBe("The operation was cancelled by the engine.");
  });
});
