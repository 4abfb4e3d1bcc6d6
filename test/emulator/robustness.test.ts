/**
 * The emulator under hostile or heavy clients: malformed and oversized bodies, any content type,
 * a client trickling its body, thousands of held watches, clients leaving mid-watch and a burst of
 * creates. Each time it answers properly and keeps serving everyone else.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { Agent, request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { call, codeOf, ids, serverBody, sleep, start, until } from "./helpers";

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

/** An agent with its own, unlimited, connection pool: one socket per held watch. */
let agent: Agent;
beforeAll(() => {
  agent = new Agent({ keepAliveTimeout: 1_000 });
});
afterAll(async () => {
  await agent.close();
});

interface RawReply {
  status: number;
  body: unknown;
}

/** A request with full control of headers and body framing (no content type added). */
function rawRequest(
  running: RunningEmulator,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: readonly (string | Buffer)[],
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${running.url}${path}`, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // kept as text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const auth = (running: RunningEmulator) => ({ authorization: `Bearer ${running.tokens.user}` });

/** The emulator still answers a plain request correctly. */
async function expectServing(running: RunningEmulator): Promise<void> {
  const res = await call(running, "GET", "/cloud/bootstrap", { token: null });
  expect(res.status).toBe(200);
}

describe("malformed and oversized bodies", () => {
  it("answers malformed JSON with 400 API_BAD_BODY saying the body is not JSON", async () => {
    emu = await start();
    const path = ids(emu).serversPath;
    const bodies = ['{"datacenter":', "{'a':1}", "\uFEFF{}", "[1,2", "undefined", "{}{}", "\u0000"];
    for (const body of bodies) {
      const res = await call(emu, "POST", path, { body });
      expect(res.status, body).toBe(400);
      expect(codeOf(res)).toBe("API_BAD_BODY");
      expect((res.body as { message: string }).message).toMatch(/not valid JSON/);
    }
    // Bytes that are not UTF-8 at all.
    const bad = await rawRequest(emu, "POST", path, { ...auth(emu), "content-type": "application/json" }, [
      Buffer.from([0xff, 0xfe, 0x7b, 0xc3, 0x28]),
    ]);
    expect(bad.status).toBe(400);
    expect((bad.body as { code: string }).code).toBe("API_BAD_BODY");
    await expectServing(emu);
  });

  it("accepts a body of exactly the limit and answers one byte more with 413, declared or chunked", async () => {
    const limit = 64 * 1024;
    emu = await start({ bodyLimitBytes: limit });
    const path = ids(emu).serversPath;
    const json = JSON.stringify(serverBody(emu));
    const padded = (size: number) => `${json}${" ".repeat(size - Buffer.byteLength(json))}`;
    const headers = { ...auth(emu), "content-type": "application/json" };

    const atLimit = await rawRequest(emu, "POST", path, headers, [padded(limit)]);
    expect(atLimit.status).toBe(200);

    const declared = await rawRequest(
      emu,
      "POST",
      path,
      { ...headers, "content-length": String(limit + 1) },
      [padded(limit + 1)],
    );
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ code: "API_BAD_BODY" });
    expect((declared.body as { message: string }).message).toContain(String(limit));

    // Chunked: no length up front, so the limit is found while reading, several chunks in.
    const chunk = "x".repeat(16 * 1024);
    const chunked = await rawRequest(
      emu,
      "POST",
      path,
      { ...headers, "transfer-encoding": "chunked" },
      Array.from({ length: 40 }, () => chunk),
    );
    expect(chunked.status).toBe(413);
    expect(chunked.body).toMatchObject({ code: "API_BAD_BODY" });

    // Nothing oversized was created, and the emulator goes on serving.
    expect(emu.servers()).toHaveLength(1);
    await expectServing(emu);
  });

  it("reads the body whatever the Content-Type says, or without one", async () => {
    emu = await start();
    const path = ids(emu).serversPath;
    const body = JSON.stringify(serverBody(emu));
    const types = [
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/jsonx",
      "json",
      "APPLICATION/JSON",
    ];
    for (const type of types) {
      const res = await rawRequest(emu, "POST", path, { ...auth(emu), "content-type": type }, [body]);
      expect(res.status, type).toBe(200);
    }
    const none = await rawRequest(emu, "POST", path, auth(emu), [body]);
    expect(none.status).toBe(200);
    // Broken JSON stays broken under any label.
    const bad = await rawRequest(emu, "POST", path, { ...auth(emu), "content-type": "text/plain" }, ["{"]);
    expect(bad.body).toMatchObject({ code: "API_BAD_BODY" });
    expect(emu.servers()).toHaveLength(types.length + 1);
  });
});

/** Writes raw bytes on a fresh connection and returns everything the server sent back. */
function rawExchange(running: RunningEmulator, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(running.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (d: Buffer) => {
      answer += d.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.on("connect", () => socket.end(bytes));
  });
}

describe("malformed HTTP", () => {
  it("answers garbage and oversized headers with a 4xx and goes on serving", async () => {
    emu = await start();
    expect(await rawExchange(emu, "GARBAGE\r\n\r\n")).toMatch(/^HTTP\/1\.1 4\d\d /);
    const huge = `GET /cloud/bootstrap HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(64 * 1024)}\r\n\r\n`;
    expect(await rawExchange(emu, huge)).toMatch(/^HTTP\/1\.1 4\d\d /);
    const badLength = `POST ${ids(emu).serversPath} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}`;
    expect(await rawExchange(emu, badLength)).toMatch(/^HTTP\/1\.1 4\d\d /);
    await expectServing(emu);
  });
});

describe("slow and departing clients", () => {
  it("serves others while one client trickles its body, then answers that client too", async () => {
    emu = await start();
    const running = emu;
    const path = ids(emu).serversPath;
    const body = Buffer.from(JSON.stringify(serverBody(emu)));
    const socket = connect(emu.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (d: Buffer) => {
      answer += d.toString("utf8");
    });
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${emu.tokens.user}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    // Half the body, then a pause in which twenty other requests are answered.
    const half = Math.floor(body.length / 2);
    for (let i = 0; i < half; i += 16) socket.write(body.subarray(i, Math.min(i + 16, half)));
    const others = await Promise.all(Array.from({ length: 20 }, () => call(running, "GET", "/cloud/games")));
    expect(others.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(answer).toBe("");
    for (let i = half; i < body.length; i += 64) {
      socket.write(body.subarray(i, Math.min(i + 64, body.length)));
      await sleep(5);
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(emu.servers()).toHaveLength(1);
  });

  it("frees a held watch as soon as its client disconnects, without leaking", async () => {
    // A hold longer than the test may run: the watchers are freed by the disconnects or not at all.
    emu = await start({ watchHoldMs: 600_000 });
    const running = emu;
    const { gameId } = ids(emu);
    const first = await call(emu, "GET", `/cloud/games/${gameId}`);
    const index = (first.body as { watch: { index: string } }).watch.index;
    emu.resetRequests();
    const count = 200;
    const controllers = Array.from({ length: count }, () => new AbortController());
    const watches = controllers.map((c) =>
      request(`${running.url}/cloud/games/${gameId}?watch_index=${index}`, {
        dispatcher: agent,
        headers: auth(running),
        signal: c.signal,
      }).then(
        () => "answered",
        () => "aborted",
      ),
    );
    await until(() => (running.watcherCount() === count ? true : undefined));
    for (const c of controllers) c.abort();
    expect(await Promise.all(watches)).toEqual(Array(count).fill("aborted"));
    await until(() => (running.watcherCount() === 0 ? true : undefined));
    await until(() => (running.requests.length === count ? true : undefined));
    expect(running.requests.every((r) => r.status === 0)).toBe(true);

    // A new watch is still held and woken normally.
    const held = call(running, "GET", `/cloud/games/${gameId}?watch_index=${index}`);
    await until(() => (running.watcherCount() === 1 ? true : undefined));
    running.mutate.setGameLogo(gameId, "https://cdn.example.game/99.png");
    const res = await held;
    expect((res.body as { game: { logo_url: string } }).game.logo_url).toBe(
      "https://cdn.example.game/99.png",
    );
    expect(running.watcherCount()).toBe(0);
  });
});

describe("load", () => {
  const WATCHERS = 2_000;

  /** Starts `n` watches of the games list at `index`; resolves with each answer's status and body. */
  function watchGames(running: RunningEmulator, index: string, n: number) {
    return Array.from({ length: n }, () =>
      request(`${running.url}/cloud/games?watch_index=${index}`, {
        dispatcher: agent,
        headers: auth(running),
      }).then(async (res) => ({ status: res.statusCode, body: (await res.body.json()) as GamesAnswer })),
    );
  }

  interface GamesAnswer {
    games: { game_id: string; logo_url?: string }[];
    watch: { index: string };
  }

  it(`holds ${WATCHERS} watches of the games list at once and wakes them all with one change`, async () => {
    emu = await start({ watchHoldMs: 15_000 });
    const running = emu;
    const { gameId } = ids(emu);
    const index = ((await call(emu, "GET", "/cloud/games")).body as GamesAnswer).watch.index;
    const answers = watchGames(running, index, WATCHERS);
    await until(() => (running.watcherCount() === WATCHERS ? true : undefined));

    // Everyone else is served while the watches are held (all of them still are, after).
    await expectServing(running);
    expect((await call(running, "GET", `/cloud/games/${gameId}`)).status).toBe(200);
    expect(running.watcherCount()).toBe(WATCHERS);

    running.mutate.setGameLogo(gameId, "https://cdn.example.game/777.png");
    const results = await Promise.all(answers);
    expect(results.every((r) => r.status === 200)).toBe(true);
    for (const { body } of results) {
      expect(body.games.find((g) => g.game_id === gameId)?.logo_url).toBe("https://cdn.example.game/777.png");
      expect(Number(body.watch.index)).toBeGreaterThan(Number(index));
    }
    expect(running.watcherCount()).toBe(0);
  });

  it(`answers ${WATCHERS} watches with a short hold when it ends, each with a fresh index`, async () => {
    emu = await start({ watchHoldMs: 300 });
    const running = emu;
    const index = ((await call(emu, "GET", "/cloud/games")).body as GamesAnswer).watch.index;
    const startedAt = Date.now();
    const results = await Promise.all(watchGames(running, index, WATCHERS));
    expect(results.every((r) => r.status === 200)).toBe(true);
    // Each answered when its 300 ms hold ended: a fresh index is the emulator's clock at the answer plus
    // one. (How long 2,000 answers take on a loaded machine is a benchmark's question, not this test's.)
    for (const { body } of results) {
      expect(Number(body.watch.index)).toBeGreaterThan(Number(index));
      expect(Number(body.watch.index) - 1).toBeGreaterThanOrEqual(startedAt + 300);
    }
    expect(running.watcherCount()).toBe(0);
    await expectServing(running);
  });

  it("accepts a burst of concurrent creates, each once, and places them on distinct host ports", async () => {
    emu = await start({ placementDelayMs: 10 });
    const running = emu;
    const burst = 150;
    const body = serverBody(emu, {
      network: { ports: { game: { protocol: "udp", routing: { host: {} } } } },
    });
    const results = await Promise.all(
      Array.from({ length: burst }, (_, i) =>
        call(running, "POST", ids(running).serversPath, { body: { ...body, tags: { n: String(i) } } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(burst).fill(200));
    const created = results.map((r) => (r.body as { server: { id: string } }).server.id);
    expect(new Set(created).size).toBe(burst);
    expect(running.servers()).toHaveLength(burst);

    const placed = await until(() => {
      const servers = running.servers();
      return servers.every((s) => s.started_at !== undefined) ? servers : undefined;
    }, "every server placed");
    const endpoints = placed.map(
      (s) => `${s.network.ports.game?.public_hostname}:${s.network.ports.game?.public_port}`,
    );
    expect(new Set(endpoints).size).toBe(burst);
    await expectServing(running);
  });
});
