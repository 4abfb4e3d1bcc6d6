/**
 * Issue 28 through the real `pulumi` CLI, where users meet it:
 * - a fake service answers the quickstart's data source with 2,000 invalid games (about 32 KB): the
 *   preview shows the cause, a few fields and a count, on both faces (before, the cause was lost on its
 *   way through gRPC and the CLI printed only "Program exited with non-zero exit code: 1");
 * - a token set with a trailing newline (pasted from a file) fails the preview at configuration, naming
 *   gamehost:token, never "the service may have created this server".
 */
import * as fs from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { startTestEmulator } from "../support/emulator";
import { quickstartOnFace } from "../support/examples";
import { CliProject, realCli, realCliTitle, tempRoot } from "../support/realPulumi";

const FACES = ["dynamic", "plugin"] as const;

/** A service whose every answer is 2,000 games that lack every required field but their id. */
async function invalidGamesService(): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify({
    games: Array.from({ length: 2_000 }, (_, i) => ({ game_id: `g${i}`.padEnd(6, "-") })),
    groups: [],
    watch: { index: "1" },
  });
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!realCli)(realCliTitle("bounded and checked errors under the CLI (issue 28)"), () => {
  let root: string;
  let emulator: RunningEmulator;
  beforeAll(async () => {
    root = tempRoot("error-bounds");
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it.each(FACES)(
    "shows the cause of a 32 KB answer of 2,000 invalid games in the preview (%s face)",
    {
      timeout: 300_000,
    },
    async (face) => {
      const service = await invalidGamesService();
      try {
        const cli = new CliProject(quickstartOnFace(root, face), root);
        await cli.configure({
          "gamehost:baseUrl": { value: service.url },
          "gamehost:token": { value: "tok-invalid-games", secret: true },
          "gamehost-quickstart:game": { value: "space-race" },
        });
        const output = await cli.fails(["preview"]);
        expect(output).toMatch(
          /Invalid response of GET \/cloud\/games: games\.0\.developer: .*…and 9,995 more/,
        );
        expect(output).not.toContain("games.5.");
        expect(output.length).toBeLessThan(20_000);
      } finally {
        await service.close();
      }
    },
  );

  it("fails at configuration on a token ending in a newline, naming gamehost:token (plugin face)", {
    timeout: 300_000,
  }, async () => {
    const tokenRoot = path.join(root, "token");
    fs.mkdirSync(tokenRoot, { recursive: true });
    const cli = new CliProject(quickstartOnFace(tokenRoot, "plugin"), tokenRoot);
    await cli.configure({
      "gamehost:baseUrl": { value: emulator.url },
      "gamehost-quickstart:game": { value: "space-race" },
    });
    // The value as pasted from a file that ends in a newline (`pulumi config set` from stdin trims it; an
    // argument keeps it).
    await cli.ok(["config", "set", "--secret", "--", "gamehost:token", `${emulator.tokens.user}\n`]);
    emulator.resetRequests();
    const output = await cli.fails(["preview"]);
    expect(output).toContain("gamehost:token ends with a control character, U+000A (a newline)");
    expect(output).toContain("`pulumi config set --secret gamehost:token <value>`");
    expect(output).not.toMatch(/may have created/);
    expect(emulator.requests).toEqual([]);
    cli.expectNoLeak(emulator.tokens.user);
  });
});
