/**
 * The dashboard's server side without a browser: its pages and their headers, who is refused, the live
 * event stream, the requests monitor, and the chaos routes the page calls (kill, outage, latency and
 * status faults). The browser scenarios are in test/dashboard/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { RequestMonitor } from "../../src/emulator/dashboard/requestMonitor";
import { World } from "../../src/emulator/world";
import { adminCall, call, codeOf, ids, rawRequest, serverBody, start, until } from "./helpers";

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await start({ dashboard: true, placementDelayMs: 30 });
});
afterAll(() => emu.stop());

const admin = (method: string, path: string, body?: unknown) => adminCall(emu, method, path, body);

/** A request with exactly these headers (fetch would not send a foreign Host). */
const raw = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  rawRequest(emu, method, path, headers, body);

/** The live stream as the page reads it: events by name, and every byte received. */
async function openStream(token = emu.adminToken ?? "") {
  const abort = new AbortController();
  const res = await fetch(`${emu.url}/__admin/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  const events: { name: string; data: unknown }[] = [];
  let text = "";
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          const piece = decoder.decode(chunk, { stream: true });
          text += piece;
          buffer += piece;
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const name = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (name && data) events.push({ name, data: JSON.parse(data) });
            end = buffer.indexOf("\n\n");
          }
        }
      } catch {
        // aborted
      }
    })();
  }
  return {
    res,
    events,
    text: () => text,
    close: () => abort.abort(),
  };
}

interface ServerEvent {
  id: string;
  startedAt?: number;
  destroyedAt?: number;
  exit?: string;
  ports: Record<string, { endpoint?: string }>;
}

describe("dashboard pages", () => {
  it("are served with a strict CSP, no inline script, and only under a loopback name", async () => {
    const page = await raw("GET", "/__dashboard/", { host: `127.0.0.1:${emu.port}` });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    // Every script is a file of the page's own; no inline script or handler attribute.
    expect(page.text.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="app.mjs">']);
    expect(page.text).not.toMatch(/\son[a-z]+=/i);
    for (const asset of ["app.mjs", "style.css", "icon.svg"]) {
      expect((await raw("GET", `/__dashboard/${asset}`, { host: "localhost" })).status, asset).toBe(200);
    }
    // DNS rebinding: a page of another name that resolves to 127.0.0.1 gets nothing.
    const rebound = await raw("GET", "/__dashboard/app.mjs", { host: `evil.example:${emu.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.text).not.toContain("sessionStorage");
    // Other sites' pages cannot load its files (a link from elsewhere may still open the login page).
    const embedded = await raw("GET", "/__dashboard/app.mjs", {
      host: "localhost",
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "no-cors",
    });
    expect(embedded.status).toBe(403);
    const linked = await raw("GET", "/__dashboard/", {
      host: "localhost",
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
    });
    expect(linked.status).toBe(200);
    expect((await raw("POST", "/__dashboard/", { host: "localhost" }, "x")).status).toBe(405);
    expect((await raw("GET", "/__dashboard/../package.json", { host: "localhost" })).status).not.toBe(200);
  });

  it("/ sends a browser to the dashboard; API clients still get the service's 404", async () => {
    const browser = await raw("GET", "/", { host: "127.0.0.1", accept: "text/html,*/*" });
    expect([browser.status, browser.headers.location]).toEqual([303, "/__dashboard/"]);
    const client = await call(emu, "GET", "/");
    expect([client.status, codeOf(client)]).toEqual([404, "API_NOT_FOUND"]);
  });

  it("are absent without dashboard: true", async () => {
    const plain = await start({ admin: true });
    try {
      const res = await call(plain, "GET", "/__dashboard/", { token: null });
      expect([res.status, codeOf(res)]).toEqual([404, "API_NOT_FOUND"]);
      expect(plain.dashboardUrl).toBeUndefined();
    } finally {
      await plain.stop();
    }
    expect(emu.dashboardUrl).toBe(`${emu.url}/__dashboard/`);
  });
});

describe("the live stream", () => {
  it("needs the admin token, from the page's own origin", async () => {
    expect((await call(emu, "GET", "/__admin/events", { token: null })).status).toBe(401);
    expect((await call(emu, "GET", "/__admin/events", { token: "emu_admin_wrong" })).status).toBe(401);
    const crossSite = await call(emu, "GET", "/__admin/faults", {
      token: emu.adminToken ?? null,
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const sameSite = await call(emu, "GET", "/__admin/faults", {
      token: emu.adminToken ?? null,
      headers: { "sec-fetch-site": "same-site" },
    });
    expect(sameSite.status).toBe(403);
  });

  it("sends a snapshot, then each server as it is created and placed, and each request with who sent it", async () => {
    const stream = await openStream();
    try {
      expect(stream.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(stream.res.headers.get("content-security-policy")).toContain("default-src 'none'");
      const snapshot = await until(() => stream.events.find((e) => e.name === "snapshot"));
      expect(Object.keys(snapshot.data as object).sort()).toEqual(
        ["exports", "games", "lobbies", "now", "requests", "servers", "status"].sort(),
      );
      const created = await call(emu, "POST", ids(emu).serversPath, {
        body: serverBody(emu, { tags: { probe: "stream" } }),
      });
      const id = (created.body as { server: { id: string } }).server.id;
      const placed = await until(() =>
        stream.events
          .filter((e) => e.name === "servers")
          .flatMap((e) => e.data as ServerEvent[])
          .find((s) => s.id === id && s.startedAt !== undefined),
      );
      const port = emu.servers().find((s) => s.id === id)?.network.ports.game;
      expect(placed.ports.game?.endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);
      const requests = await until(() =>
        stream.events
          .filter((e) => e.name === "requests")
          .flatMap((e) => e.data as { route: string; identity: string; status: number; ms: number }[])
          .find((r) => r.route.startsWith("POST /games/")),
      );
      expect(requests.status).toBe(200);
      expect(requests.identity).toMatch(/^user /);
      expect(requests.ms).toBeGreaterThanOrEqual(0);
      // Who sent a request, never their token; nor the admin token, nor an export's signed URL.
      expect(stream.text()).not.toContain(emu.tokens.user);
      expect(stream.text()).not.toContain(emu.adminToken);
    } finally {
      stream.close();
    }
  });
});

describe("held watchers", () => {
  it("show in the stream's status with what they wait on, and leave it when they end", async () => {
    const stream = await openStream();
    const abort = new AbortController();
    try {
      const first = await call(emu, "GET", `/cloud/games/${ids(emu).gameId}`);
      const index = (first.body as { watch: { index: string } }).watch.index;
      const held = call(emu, "GET", `/cloud/games/${ids(emu).gameId}?watch_index=${index}`, {
        signal: abort.signal,
      }).catch(() => undefined);
      const status = (e: { name: string; data: unknown }) =>
        e.data as { watcherCount: number; watchers: { keys: string[]; since: number }[] };
      const holding = await until(
        () => stream.events.filter((e) => e.name === "status" && status(e).watcherCount === 1).map(status)[0],
        "a status naming the held watch",
      );
      expect(holding.watchers).toEqual([{ keys: [`game:${ids(emu).gameId}`], since: expect.any(Number) }]);
      abort.abort();
      await held;
      await until(
        () =>
          (stream.events.at(-1)?.name === "status" &&
            status(stream.events.at(-1) as never).watcherCount === 0) ||
          undefined,
        "a status without the watch",
      );
    } finally {
      abort.abort();
      stream.close();
    }
  });
});

describe("chaos routes", () => {
  async function liveServer(tags: Record<string, string>) {
    const created = await call(emu, "POST", ids(emu).serversPath, { body: serverBody(emu, { tags }) });
    const id = (created.body as { server: { id: string } }).server.id;
    await until(() => emu.servers().find((s) => s.id === id && s.started_at !== undefined));
    return id;
  }

  it("kill: the server's process exits as in a crash (destroyed at once, no kill timeout)", async () => {
    const id = await liveServer({ probe: "kill" });
    const killed = await admin("POST", `/servers/${id}/kill`, {});
    expect(killed.status).toBe(200);
    expect((killed.body as { exit: string }).exit).toBe("crashed");
    const server = emu.servers().find((s) => s.id === id);
    expect(server?.destroyed_at).toBeDefined();
    expect(emu.killDeadline(id)).toBe(server?.destroyed_at);
    // The API shows it destroyed, as after any exit.
    const got = await call(emu, "GET", `${ids(emu).serversPath}/${id}`);
    expect((got.body as { server: { destroyed_at?: number } }).server.destroyed_at).toBe(
      server?.destroyed_at,
    );
    // Unknown id: the service's not-found.
    const unknown = await admin("POST", `/servers/${crypto.randomUUID()}/kill`, {});
    expect([unknown.status, codeOf(unknown)]).toEqual([400, "SERVERS_SERVER_NOT_FOUND"]);
  });

  it("outage: running servers of the datacenter die, new ones wait unplaced until it ends", async () => {
    const datacenter = (ids(emu).game.datacenters[0] as { id: string }).id;
    const running = await liveServer({ probe: "outage" });
    const down = await admin("POST", "/outages", { datacenter });
    expect(down.status).toBe(200);
    expect((down.body as { outages: string[]; killed: number }).outages).toEqual([datacenter]);
    expect(emu.servers().find((s) => s.id === running)?.destroyed_at).toBeDefined();
    const created = await call(emu, "POST", ids(emu).serversPath, {
      body: serverBody(emu, { tags: { probe: "during-outage" } }),
    });
    const waiting = (created.body as { server: { id: string } }).server.id;
    await new Promise((r) => setTimeout(r, 200));
    expect(emu.servers().find((s) => s.id === waiting)?.started_at).toBeUndefined();
    const up = await admin("DELETE", `/outages/${datacenter}`);
    expect((up.body as { outages: string[] }).outages).toEqual([]);
    await until(() => emu.servers().find((s) => s.id === waiting && s.started_at !== undefined));
    const unknown = await admin("POST", "/outages", { datacenter: crypto.randomUUID() });
    expect([unknown.status, codeOf(unknown)]).toEqual([400, "CLUSTER_DATACENTER_NOT_FOUND"]);
  });

  it("latency and status faults: the request waits then is served; a status error answers that status", async () => {
    expect(
      (await admin("POST", "/faults", { kind: "latency", latencyMs: 300, path: "/cloud/games" })).status,
    ).toBe(200);
    const t0 = performance.now();
    const slow = await call(emu, "GET", "/cloud/games");
    expect(slow.status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    await admin("POST", "/faults", { kind: "error_status", status: 503, path: "/cloud/games" });
    const failed = await call(emu, "GET", "/cloud/games");
    expect([failed.status, codeOf(failed)]).toEqual([503, "ERROR"]);
    expect((await call(emu, "GET", "/cloud/games")).status).toBe(200);
    const wrong = await admin("POST", "/faults", { kind: "rate_limit", latencyMs: 10 });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain("latencyMs");
    const badStatus = await admin("POST", "/faults", { kind: "error_status", status: 418 });
    expect(badStatus.status).toBe(400);
  });
});

describe("the requests monitor", () => {
  it("keeps a fixed number of requests and names senders without their tokens", () => {
    const fixture = emu.fixture;
    const monitor = new RequestMonitor(new World(fixture), () => 0, 10);
    const user = fixture.tokens.find((t) => t.role === "user")?.token ?? "";
    for (let i = 0; i < 25; i++)
      monitor.record(
        { method: "GET", route: "GET /cloud/games", path: "/cloud/games", status: 200 },
        1,
        `Bearer ${user}`,
      );
    monitor.record({ method: "GET", route: "GET /x", path: "/x", status: 401 }, 1, undefined);
    monitor.record({ method: "GET", route: "GET /x", path: "/x", status: 400 }, 1, "Bearer nope");
    const recent = monitor.recent();
    expect(recent).toHaveLength(10);
    expect(recent.map((r) => r.seq)).toEqual([17, 18, 19, 20, 21, 22, 23, 24, 25, 26]);
    expect(recent.slice(-2).map((r) => r.identity)).toEqual(["none", "unknown token"]);
    expect(recent[0]?.identity).toMatch(/^user /);
    expect(JSON.stringify(recent)).not.toContain(user);
    expect(monitor.drain().length).toBeLessThanOrEqual(10);
  });
});
