/**
 * The dynamic face has no Cancel and no customTimeouts, so a LobbyHistoryExport's `summarize` download
 * has a deadline of its own (issue 28): a download host that streams a CSV forever fails the create with
 * an error naming the deadline and how to change it, and the download is closed.
 */
import { describe, expect, it } from "vitest";
import { check, configure, create } from "../../src/dynamic/generated/host/lobbyHistoryExport";
import { json, useScriptedServers } from "../api/helpers/scriptedServer";

const GAME = "00000000-0000-4000-8000-000000000003";
const scripted = useScriptedServers();

describe("summarize on the dynamic face", () => {
  it("ends an endless CSV download at the call deadline, naming it and how to change it", async () => {
    let open = false;
    const s = await scripted((req, res) => {
      if (req.method === "POST") {
        return json(res, 200, {
          url: `http://${req.headers.host}/dl/export.csv?X-Amz-Signature=abcdef0123456789`,
        });
      }
      // The download: a header row, then a row every 5 ms, forever.
      open = true;
      res.writeHead(200, { "content-type": "text/csv" });
      res.write("lobby_id,created_at\n");
      const timer = setInterval(() => res.write("l,2026-11-24T10:00:00Z\n"), 5);
      res.on("close", () => {
        clearInterval(timer);
        open = false;
      });
    });
    configure({
      config: {
        get: (key) =>
          ({ "gamehost:baseUrl": s.url, "gamehost:token": "tok-abcdefgh", "gamehost:callTimeoutMs": "800" })[
            key
          ],
      },
    });
    const { inputs, failures } = await check(
      {},
      { gameId: GAME, queryStart: 0, queryEnd: 1_000, summarize: true },
    );
    expect(failures).toEqual([]);
    const started = Date.now();
    const error = (await create(inputs).catch((e: unknown) => e)) as Error;
    const took = Date.now() - started;
    expect(error.name).toBe("GamehostDeadlineError");
    expect(error.message).toBe(
      "The lobby-history CSV download (summarize) did not finish within 800 ms, the deadline of a download on the dynamic provider (it has neither Cancel nor customTimeouts): raise gamehost:callTimeoutMs (GAMEHOST_CALL_TIMEOUT_MS; 0 turns it off), set summarize to false, or use the plugin's LobbyHistoryExport with customTimeouts. [GET /dl/export.csv: no complete answer within 800 ms]",
    );
    // Not before the deadline; that the deadline, not the stalled download, ended it the error says (a stall
    // would run into the test's timeout).
    expect(took).toBeGreaterThanOrEqual(700);
    await expect.poll(() => open).toBe(false);
    configure({ config: { get: () => undefined } });
  });

  it("summarizes a download that ends within the deadline", async () => {
    const s = await scripted((req, res) => {
      if (req.method === "POST") return json(res, 200, { url: `http://${req.headers.host}/dl/e.csv?sig=x` });
      res.writeHead(200, { "content-type": "text/csv" });
      res.end("lobby_id,created_at\na,1\nb,2\n");
    });
    configure({
      config: {
        get: (key) =>
          ({ "gamehost:baseUrl": s.url, "gamehost:token": "tok-abcdefgh", "gamehost:callTimeoutMs": "5000" })[
            key
          ],
      },
    });
    const { inputs } = await check({}, { gameId: GAME, queryStart: 0, queryEnd: 1_000, summarize: true });
    const { outs } = await create(inputs);
    expect(outs.rowCount).toBe(2);
    configure({ config: { get: () => undefined } });
  });
});
