/**
 * A Server create adopts a server found by its idempotency key only when it never learnt what its POST
 * did (issue 28 §1): a lost answer, the service's own time cap, a gateway without the service's answer.
 * An error answer from the service says the create failed, and it is never adopted; but only a 429 and the
 * emulator's 503 `EMULATOR_STATE_NOT_SAVED` say nothing was kept. After any other 5xx (`ERROR` is "any
 * internal error", which may come after the server was made) the create deletes what carries its key, then
 * posts again: a server the service kept despite its error would otherwise run, billed, in no state. A 4xx
 * fails at once.
 */
import { execFile } from "node:child_process";
import type { ServerResponse } from "node:http";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostApiError, GamehostNetworkError } from "../../src/api/errors";
import type { OperationContext } from "../../src/kinds/kind";
import { serverKind } from "../../src/kinds/server/implementation";
import { IDEMPOTENCY_TAG, type ServerInputs } from "../../src/kinds/server/spec";
import { json, type SeenRequest, useScriptedServers } from "../api/helpers/scriptedServer";
import { EMPTY_GAME_LIST, SELF_SIGNED_CERT, startSelfSigned } from "../api/helpers/selfSignedServer";
import { REPO_ROOT } from "../support/dist";

const execFileAsync = promisify(execFile);

const GAME = "00000000-0000-4000-8000-000000000003";
const ENV = "00000000-0000-4000-8000-000000000005";
const DC = "00000000-0000-4000-8000-000000000007";
const BUILD = "00000000-0000-4000-8000-000000000009";
const LIED_ABOUT = "00000000-0000-4000-8000-0000000000aa";
const MADE = "00000000-0000-4000-8000-0000000000bb";

const scripted = useScriptedServers();

function inputs(): ServerInputs {
  const { inputs, failures } = serverKind.check(
    {},
    {
      gameId: GAME,
      environmentId: ENV,
      datacenter: DC,
      runtime: { build: BUILD },
      network: { ports: { game: { protocol: "udp", internalPort: 7777 } } },
      resources: { cpu: 100, memory: 128 },
      tags: {},
      waitForReady: false,
    },
    {},
  );
  expect(failures).toEqual([]);
  return inputs;
}

/** The server a POST body describes, as the service answers it. */
function serverOf(body: string, id: string) {
  const sent = JSON.parse(body) as Record<string, unknown> & { tags: Record<string, string> };
  return {
    id,
    created_at: Date.now(),
    datacenter: DC,
    environment: ENV,
    lifecycle: {},
    network: { ports: { game: { protocol: "udp", internal_port: 7777, routing: { game_guard: {} } } } },
    resources: { cpu: 100, memory: 128 },
    runtime: { build: BUILD },
    tags: sent.tags,
  };
}

/**
 * A service whose first POST fails with `first`, and which lists a server carrying the key anyway (as
 * the emulator did when its journal write failed): adopting it would take a server the service disowned.
 */
function service(first: (res: ServerResponse) => void) {
  let posted = "";
  return (req: SeenRequest, res: ServerResponse) => {
    if (req.method === "POST") {
      const isFirst = posted === "";
      posted = req.body;
      if (isFirst) return first(res);
      return json(res, 200, { server: serverOf(req.body, MADE) });
    }
    if (req.method === "GET" && posted) return json(res, 200, { servers: [serverOf(posted, LIED_ABOUT)] });
    if (req.method === "DELETE") return json(res, 200, {});
    return json(res, 400, { code: "API_BAD_QUERY", message: "unexpected" });
  };
}

const context = (url: string): OperationContext => {
  const client = new GamehostClient({ baseUrl: url, token: "tok-abcdefgh", retry: { maxRetries: 0 } });
  return { client: () => client };
};

const lookups = (seen: SeenRequest[]) => seen.filter((r) => r.method === "GET").length;
const posts = (seen: SeenRequest[]) => seen.filter((r) => r.method === "POST").length;

describe("a create the service answered with an error", () => {
  it("is posted again without a lookup after the emulator's 503 EMULATOR_STATE_NOT_SAVED (it made nothing)", async () => {
    const s = await scripted(
      service((res) => json(res, 503, { code: "EMULATOR_STATE_NOT_SAVED", message: "not saved" })),
    );
    const checked = inputs();
    const { id, outputs } = await serverKind.create(context(s.url), checked);
    expect(id).toBe(MADE);
    expect(lookups(s.seen)).toBe(0);
    expect(posts(s.seen)).toBe(2);
    expect(outputs.idempotencyKey).toBe(checked.idempotencyKey);
    // Both POSTs carry the create's own key: a retry of the same create.
    const keys = s.seen.map((r) => (JSON.parse(r.body) as { tags: Record<string, string> }).tags);
    expect(keys.map((t) => t[IDEMPOTENCY_TAG])).toEqual([checked.idempotencyKey, checked.idempotencyKey]);
  });

  it.each([
    ["500 ERROR", 500, "ERROR"],
    ["503 with a code of the service's", 503, "API_SERVICE_UNAVAILABLE"],
  ])(
    "deletes what the failed POST kept, never adopting it, then posts again: %s",
    async (_label, status, code) => {
      const s = await scripted(service((res) => json(res, status, { code, message: "failed" })));
      const checked = inputs();
      const { id } = await serverKind.create(context(s.url), checked);
      expect(id).toBe(MADE);
      expect(s.seen.map((r) => `${r.method} ${r.url.split("?")[0]?.split("/").pop()}`)).toEqual([
        "POST servers",
        "GET servers",
        `DELETE ${LIED_ABOUT}`,
        "POST servers",
      ]);
    },
  );

  it("fails on a 4xx at once, naming the service's answer, without a lookup", async () => {
    const s = await scripted(
      service((res) => json(res, 400, { code: "API_BAD_BODY", message: "resources.cpu too small" })),
    );
    const error = await serverKind.create(context(s.url), inputs()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GamehostApiError);
    expect((error as Error).message).toContain("resources.cpu too small");
    expect(lookups(s.seen)).toBe(0);
    expect(posts(s.seen)).toBe(1);
  });

  it("reports the last error after every attempt failed, and leaves none of the servers those POSTs kept", async () => {
    const kept: string[] = [];
    const s = await scripted((req, res) => {
      if (req.method === "POST") {
        // Each failed POST keeps a server anyway, as an internal error after the write would.
        kept.push(`00000000-0000-4000-8000-${String(kept.length + 1).padStart(12, "0")}`);
        return json(res, 500, { code: "ERROR", message: "An internal error" });
      }
      if (req.method === "DELETE") {
        kept.splice(kept.indexOf(req.url.split("/").pop() ?? ""), 1);
        return json(res, 200, {});
      }
      return json(res, 200, { servers: kept.map((id) => serverOf(s.seen[0]?.body ?? "{}", id)) });
    });
    const error = await serverKind.create(context(s.url), inputs()).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, code: "ERROR" });
    expect((error as Error).message).not.toMatch(/may have created/);
    expect(posts(s.seen)).toBeGreaterThan(1);
    expect(kept).toEqual([]);
  });

  it("says where to look when the lookup after a 500 fails, and posts no more", async () => {
    const s = await scripted((req, res) => {
      if (req.method === "POST") return json(res, 500, { code: "ERROR", message: "An internal error" });
      return json(res, 500, { code: "ERROR", message: "list failed too" });
    });
    const checked = inputs();
    const error = await serverKind.create(context(s.url), checked).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/may have created this server/);
    expect((error as Error).message).toContain(`${IDEMPOTENCY_TAG}=${checked.idempotencyKey}`);
    expect(posts(s.seen)).toBe(1);
  });
});

describe("a create whose outcome was never told", () => {
  it.each([
    ["the connection reset after the request was sent", (res: ServerResponse) => res.socket?.destroy()],
    [
      "a gateway's 504 without the service's answer",
      (res: ServerResponse) => {
        res.writeHead(504, { "content-type": "text/html" });
        res.end("<html>Gateway Timeout</html>");
      },
    ],
    [
      "the service's own time cap (500 API_REQUEST_TIMEOUT)",
      (res: ServerResponse) => json(res, 500, { code: "API_REQUEST_TIMEOUT", message: "took too long" }),
    ],
  ])("looks the server up by key and adopts it: %s", async (_label, first) => {
    const s = await scripted(service(first));
    const { id } = await serverKind.create(context(s.url), inputs());
    expect(id).toBe(LIED_ABOUT);
    expect(lookups(s.seen)).toBe(1);
    expect(posts(s.seen)).toBe(1);
  });

  it("treats a 502 that carries the service's own error body as the service's answer: what it kept is deleted", async () => {
    const s = await scripted(service((res) => json(res, 502, { code: "ERROR", message: "upstream" })));
    const { id } = await serverKind.create(context(s.url), inputs());
    expect(id).toBe(MADE);
    expect(s.seen.filter((r) => r.method === "DELETE").map((r) => r.url.split("/").pop())).toEqual([
      LIED_ABOUT,
    ]);
  });
});

describe("a create the engine cancels (the plugin's Cancel)", () => {
  /** A service that commits the POST at once and answers it only after the test has cancelled. */
  function committingSlowly(cancelled: Promise<void>, posted: () => void) {
    return async (req: SeenRequest, res: ServerResponse) => {
      if (req.method !== "POST") return json(res, 400, { code: "API_BAD_QUERY", message: "unexpected" });
      posted();
      await cancelled;
      json(res, 200, { server: serverOf(req.body, MADE) });
    };
  }

  it.each([
    ["not waiting for readiness: it returns the server", false],
    ["waiting for readiness: it records the server as a partial create", true],
  ])("while its POST is in flight keeps the POST's answer, %s", async (_label, waitForReady) => {
    const cancel = new AbortController();
    let cancelled!: () => void;
    const afterCancel = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const s = await scripted(
      committingSlowly(afterCancel, () => {
        cancel.abort(new Error("The operation was cancelled by the engine."));
        cancelled();
      }),
    );
    const ctx = { ...context(s.url), signal: cancel.signal };
    const outcome = await serverKind.create(ctx, { ...inputs(), waitForReady }).then(
      (done) => ({ id: done.id }),
      (error: unknown) => ({ error }),
    );
    // The server the service made is in the outcome: recorded in the stack, never orphaned.
    if (waitForReady) {
      expect(outcome).toMatchObject({ error: { name: "PartialCreateError", id: MADE } });
      expect(String((outcome as { error: Error }).error.message)).toContain("cancelled by the engine");
    } else expect(outcome).toEqual({ id: MADE });
    expect(posts(s.seen)).toBe(1);
  });

  it("before its POST posts nothing", async () => {
    const s = await scripted((_req, res) => json(res, 200, { server: {} }));
    const cancel = new AbortController();
    cancel.abort(new Error("The operation was cancelled by the engine."));
    const error = await serverKind
      .create({ ...context(s.url), signal: cancel.signal }, inputs())
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain("cancelled by the engine");
    expect(s.seen).toEqual([]);
  });
});

describe("a create the TLS handshake refused", () => {
  it("fails at once, saying nothing was sent: posting again cannot get past the certificate", async () => {
    const tls = await startSelfSigned();
    try {
      const error = await serverKind.create(context(tls.url), inputs()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GamehostNetworkError);
      expect((error as Error).message).toMatch(
        /^The certificate of .* is not trusted, so nothing was sent: /,
      );
      expect((error as Error).message).not.toMatch(/may have created|taken effect/);
      // One handshake: no second POST, no lookup by key.
      expect(tls.connections()).toBe(1);
    } finally {
      await tls.close();
    }
  });

  it("goes through with the authority's certificate in NODE_EXTRA_CA_CERTS, as the message says", async () => {
    const tls = await startSelfSigned();
    try {
      // Node reads the variable as it starts: a process of its own, as pulumi starts the plugin and host.
      const script = `const { GamehostClient } = require(${JSON.stringify(path.join(REPO_ROOT, "dist", "api"))});
        new GamehostClient({ baseUrl: process.argv[1], token: "t", maxRetries: 0 }).listGames()
          .then((games) => console.log(JSON.stringify(games)), (e) => console.log(e.message));`;
      const run = (env: NodeJS.ProcessEnv) =>
        execFileAsync(process.execPath, ["-e", script, tls.url], { env: { ...process.env, ...env } });
      expect((await run({ NODE_EXTRA_CA_CERTS: SELF_SIGNED_CERT })).stdout.trim()).toBe(
        JSON.stringify(EMPTY_GAME_LIST),
      );
      expect((await run({ NODE_EXTRA_CA_CERTS: undefined })).stdout).toMatch(
        /^The certificate of .* is not trusted/,
      );
    } finally {
      await tls.close();
    }
  });

  it("fails at once on an https:// base URL at a server without TLS", async () => {
    const s = await scripted(service((res) => json(res, 500, { code: "ERROR", message: "unreached" })));
    const https = s.url.replace(/^http:/, "https:");
    const error = await serverKind.create(context(https), inputs()).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/answers without TLS/);
    expect((error as GamehostNetworkError).mayHaveCommitted).toBe(false);
    expect(s.connections()).toBe(1);
  });
});
