// The direct baseline: the hosting API calls the Server provider makes, sent straight with undici over
// one keep-alive Agent, with the same headers and bodies, and each answer read and JSON-parsed.
import { Agent, request } from "undici";
import { require } from "./env.mjs";

const { PACKAGE_NAME, PACKAGE_VERSION } = require("pulumi-gamehost");
const IDEMPOTENCY_TAG = "pulumi-gamehost/idempotency-key";

/** Runs `task(i)` for i in [0, total) with at most `concurrency` in flight. */
export async function pool(total, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
}

/** A direct client of the servers routes of `baseUrl` (`close()` ends its sockets). */
export function directClient(baseUrl, token, target) {
  const dispatcher = new Agent();
  const base = `${baseUrl}/games/${target.gameId}/environments/${target.environmentId}/servers`;
  const headers = {
    "user-agent": `${PACKAGE_NAME}/${PACKAGE_VERSION}`,
    accept: "application/json",
    authorization: `Bearer ${token}`,
  };
  async function call(method, url, body) {
    const res = await request(url, {
      dispatcher,
      method,
      headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
      body,
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${url} → ${res.statusCode}: ${text}`);
    return JSON.parse(text);
  }
  return {
    /** What the provider's create sends: one POST with the idempotency tag (it looks up only a lost answer). */
    async create(body, key) {
      const withTag = { ...body, tags: { ...body.tags, [IDEMPOTENCY_TAG]: key } };
      return (await call("POST", base, JSON.stringify(withTag))).server;
    },
    async read(id) {
      return (await call("GET", `${base}/${id}`)).server;
    },
    async delete(id) {
      await call("DELETE", `${base}/${id}`);
    },
    close: () => dispatcher.close(),
  };
}

/** The wire body of the bench's server spec (what the provider POSTs, before the reserved tag). */
export function serverBody(target) {
  return {
    datacenter: target.datacenter,
    tags: { bench: "many" },
    runtime: { build: target.build },
    network: { ports: { game: { protocol: "udp", routing: { host: {} } } } },
    resources: { cpu: 250, memory: 256 },
  };
}

/** The same spec as Server inputs (what a program declares), for the provider side. */
export function serverInputs(target) {
  return {
    gameId: target.gameId,
    environmentId: target.environmentId,
    ...serverBody(target),
    waitForReady: false,
  };
}

/**
 * What the direct baseline does: `count` creates of `body` at concurrency `parallel` (idempotency keys
 * `<keyPrefix>-<i>`), then a delete of each; the time of each phase in ms.
 */
export async function createThenDelete(client, body, { count, parallel, keyPrefix }) {
  const ids = [];
  let start = performance.now();
  await pool(count, parallel, async (i) => {
    ids[i] = (await client.create(body, `${keyPrefix}-${i}`)).id;
  });
  const createMs = performance.now() - start;
  start = performance.now();
  await pool(count, parallel, (i) => client.delete(ids[i]));
  return { createMs, deleteMs: performance.now() - start };
}
