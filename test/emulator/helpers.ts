import { request } from "node:http";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../src/emulator";

/** A response with its body parsed as JSON (or kept as text when it is not JSON). */
export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export interface CallOptions {
  /** Bearer token; `null` sends no Authorization header. */
  token?: string | null;
  /** JSON body (serialised) or a raw string. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Calls the emulator with plain fetch. */
export async function call(
  emu: RunningEmulator,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const token = opts.token === undefined ? emu.tokens.user : opts.token;
  if (token !== null) headers.authorization ??= `Bearer ${token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (CSV downloads)
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The error code of an error answer. */
/** Calls the emulator's `/__admin<path>` with its admin token. */
export function adminCall(
  emu: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResponse> {
  return call(emu, method, `/__admin${path}`, {
    token: emu.adminToken ?? null,
    ...(body !== undefined ? { body } : {}),
  });
}

/** A request with exactly these headers (fetch would not send a foreign Host); the body as text. */
export function rawRequest(
  emu: RunningEmulator,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

export function codeOf(res: ApiResponse): string | undefined {
  return (res.body as { code?: string }).code;
}

/** Starts an emulator with fast test defaults (short holds and placement). */
export function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ placementDelayMs: 20, watchHoldMs: 2_000, ...options });
}

/** Ids of the default fixture, read from the fixture itself. */
export function ids(emu: RunningEmulator) {
  const f = emu.fixture;
  const main = f.games.find((g) => g.nameId === "space-race");
  if (!main) throw new Error("default fixture lost its main game");
  const prod = main.environments.find((e) => e.nameId === "prod");
  const staging = main.environments.find((e) => e.nameId === "staging");
  if (!prod || !staging) throw new Error("default fixture lost its environments");
  const alice = f.tokens.find((t) => t.role === "user");
  const identityId = alice?.kind === "user" ? alice.identityId : "";
  const otherGame = f.games.find(
    (g) => !f.groups.find((gr) => gr.id === g.developerGroupId)?.members.includes(identityId),
  );
  if (!otherGame) throw new Error("default fixture lost the game of another group");
  return {
    game: main,
    gameId: main.id,
    prod,
    staging,
    otherGame,
    mainGroup: main.developerGroupId,
    serversPath: `/games/${main.id}/environments/${prod.id}/servers`,
    userIdentity: identityId,
  };
}

/** A valid create-server body for the main game's prod environment. */
export function serverBody(emu: RunningEmulator, overrides: Record<string, unknown> = {}) {
  const { game, prod } = ids(emu);
  return {
    datacenter: (game.datacenters[0] as { id: string }).id,
    network: { ports: { game: { protocol: "udp", internal_port: 7777 } } },
    resources: { cpu: 1000, memory: 512 },
    runtime: { build: (prod.builds[0] as { id: string }).id },
    tags: { mode: "ranked" },
    ...overrides,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export { until } from "../support/until";
