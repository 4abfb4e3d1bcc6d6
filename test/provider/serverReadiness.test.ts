/**
 * The readiness rule, as behaviour: a server counts as ready only once it is placed (`started_at`) and
 * every port has a public address. A scripted service answers each readiness poll, so the test decides
 * exactly when which port gets its address.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Server } from "../../src/api/schemas";
import type { ServerInputs } from "../../src/kinds/server/spec";
import { json, type ScriptedServer, startScripted } from "../api/helpers/scriptedServer";
import { dist } from "../support/dist";

const impl = dist.serverImpl();

const GAME = "00000000-0000-4000-8000-000000000003";
const ENV = "00000000-0000-4000-8000-000000000005";
const SERVER = "00000000-0000-4000-8000-0000000000aa";

let service: ScriptedServer | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** The server as the service shows it after `polls` readiness polls: web placed at once, voice later. */
function serverAfter(polls: number, voiceAddressedAt: number): Server {
  const placed = polls >= 1;
  return {
    id: SERVER,
    environment: ENV,
    datacenter: "00000000-0000-4000-8000-000000000007",
    created_at: 1_700_000_000_000,
    ...(placed ? { started_at: 1_700_000_001_000 } : {}),
    tags: {},
    lifecycle: { kill_timeout: 0 },
    resources: { cpu: 100, memory: 128 },
    runtime: { build: "00000000-0000-4000-8000-000000000009", arguments: [], environment: {} },
    network: {
      mode: "bridge",
      ports: {
        web: {
          protocol: "http",
          internal_port: 8080,
          routing: { game_guard: {} },
          ...(placed ? { public_hostname: "web.example.run", public_port: 80 } : {}),
        },
        voice: {
          protocol: "udp",
          internal_port: 7777,
          routing: { host: {} },
          ...(polls >= voiceAddressedAt ? { public_hostname: "203.0.113.7", public_port: 27000 } : {}),
        },
      },
    },
  };
}

/** A service whose server gets `started_at` and the web address on the first poll, voice's on poll `n`. */
async function serviceWithVoiceAddressedAt(n: number): Promise<{ polls: () => number }> {
  let polls = 0;
  service = await startScripted((req, res) => {
    if (req.method === "GET" && req.url.includes("/servers?")) return json(res, 200, { servers: [] });
    if (req.method === "POST") return json(res, 200, { server: serverAfter(0, n) });
    if (req.method === "GET" && req.url.endsWith(`/servers/${SERVER}`)) {
      polls++;
      return json(res, 200, { server: serverAfter(polls, n) });
    }
    json(res, 404, { code: "API_NOT_FOUND", message: "no route" });
  });
  impl.configure({
    config: { get: (key: string) => ({ "gamehost:baseUrl": service?.url, "gamehost:token": "t" })[key] },
  });
  return { polls: () => polls };
}

async function checkedInputs(readyTimeoutSeconds: number): Promise<ServerInputs> {
  const { inputs, failures } = await impl.check(
    {},
    {
      gameId: GAME,
      environmentId: ENV,
      datacenter: "00000000-0000-4000-8000-000000000007",
      tags: {},
      runtime: { build: "00000000-0000-4000-8000-000000000009" },
      network: {
        ports: {
          web: { protocol: "http", internalPort: 8080 },
          voice: { protocol: "udp", internalPort: 7777, routing: { host: {} } },
        },
      },
      resources: { cpu: 100, memory: 128 },
      readyTimeoutSeconds,
    },
  );
  expect(failures).toEqual([]);
  return inputs as unknown as ServerInputs;
}

describe("Server readiness", () => {
  it("is not ready while one port of a placed server has no public address", async () => {
    const { polls } = await serviceWithVoiceAddressedAt(4);
    const { outs } = await impl.create(await checkedInputs(30));
    // Placed at poll 1 with web addressed; create kept polling until voice got its address at poll 4.
    expect(polls()).toBe(4);
    expect(outs.startedAt).toBe(1_700_000_001_000);
    expect(outs.endpoints).toEqual({ web: "web.example.run:80", voice: "203.0.113.7:27000" });
  });

  it("records a placed server whose port never gets an address as partially created", async () => {
    const { polls } = await serviceWithVoiceAddressedAt(Number.POSITIVE_INFINITY);
    const failure = (await impl.create(await checkedInputs(1)).catch((e: unknown) => e)) as {
      id?: string;
      message?: string;
      reasons?: string[];
      properties?: { startedAt?: number; endpoints?: Record<string, string> };
    };
    expect(polls()).toBeGreaterThan(1);
    expect(failure.id).toBe(SERVER);
    expect(failure.properties?.startedAt).toBe(1_700_000_001_000);
    expect(failure.properties?.endpoints).toEqual({ web: "web.example.run:80" });
    // What the engine prints of a partial create: the whole message, missing fields and fix included.
    expect(failure.reasons).toEqual([failure.message]);
    expect(failure.message).toMatch(
      /still missing ports\.voice\.public_hostname, ports\.voice\.public_port\./,
    );
    expect(failure.message).toMatch(/run `pulumi up` again to keep waiting/);
  });
});
