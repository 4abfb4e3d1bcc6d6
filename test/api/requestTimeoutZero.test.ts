/**
 * `gamehost:requestTimeoutMs` (the client's `requestTimeoutMs`) 0 turns the wait for response headers off,
 * as the reference says (callTimeoutMs still bounds the call); a positive value ends the wait.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { startScripted } from "./helpers/scriptedServer";

const TOKEN = "tok-requestTimeoutZero";

/** What a call answered late (undici checks the headers timeout on a coarse, about 1 s, clock). */
async function answerLate(requestTimeoutMs: number): Promise<string> {
  const server = await startScripted((_req, res) => {
    setTimeout(() => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "API_NOT_FOUND", message: "late" }));
    }, 2_500);
  });
  try {
    const client = new GamehostClient({ baseUrl: server.url, token: TOKEN, requestTimeoutMs, maxRetries: 0 });
    return await client.getBootstrap().then(
      () => "answered",
      (e: Error) => e.message,
    );
  } finally {
    await server.close();
  }
}

describe("requestTimeoutMs", () => {
  it("0 waits for the headers without limit, as the reference says; 100 ends the wait", async () => {
    const short = await answerLate(100);
    expect(short).toMatch(/Headers Timeout/i);
    expect(short).not.toContain(TOKEN);
    const off = await answerLate(0);
    expect(off).toContain("API_NOT_FOUND");
    const schema = JSON.parse(readFileSync(join(__dirname, "../../plugin/schema.json"), "utf8")) as {
      config: { variables: Record<string, { description: string }> };
    };
    expect(schema.config.variables.requestTimeoutMs?.description).toContain("0 turns it off");
  });
});
