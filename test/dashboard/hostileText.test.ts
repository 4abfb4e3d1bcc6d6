/**
 * Names from a fixture (or a stack's tags) are data the dashboard shows, whatever they hold: a right-to-left
 * override must not reverse the ids and counts printed beside it, and a 10,000-character name must not push
 * the page wider than the window (the table's other columns out of sight).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { browserTitle, hasChromium, launchBrowser, type TestBrowser } from "../support/browser";
import { REPO_ROOT } from "../support/dist";
import { startTestEmulator, wireServerBody } from "../support/emulator";

/** U+202E RIGHT-TO-LEFT OVERRIDE, never closed: everything after it in the same paragraph reads backwards. */
const RLO = "\u202e";

let emulator: RunningEmulator;
let browser: TestBrowser;

beforeAll(async () => {
  if (!hasChromium) return;
  const fixture = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "fixtures", "default.json"), "utf8"));
  const game = fixture.games[0];
  game.displayName = `Space ${RLO}Race ${"G".repeat(10_000)}`;
  for (const d of game.datacenters) d.name = `${d.name} ${RLO}evil`;
  const env = game.environments[0];
  env.builds[0].name = "B".repeat(3_000);
  emulator = await startTestEmulator({ dashboard: true, fixture });
  const res = await fetch(`${emulator.url}/games/${game.id}/environments/${env.id}/servers`, {
    method: "POST",
    headers: { authorization: `Bearer ${emulator.tokens.user}`, "content-type": "application/json" },
    body: JSON.stringify(wireServerBody(game.datacenters[0].id, env.builds[0].id, { role: "web" })),
  });
  if (!res.ok) throw new Error(`create: ${res.status} ${await res.text()}`);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await emulator?.stop();
});

describe.skipIf(!hasChromium)(browserTitle("hostile names in the dashboard"), () => {
  it("keeps ids beside an RTL override in reading order, and long names within the window", async () => {
    const page = await browser.context.newPage();
    try {
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.goto(`${emulator.url}/__dashboard/`);
      await page.locator("#token").fill(emulator.adminToken ?? "");
      await page.keyboard.press("Enter");
      await page.locator("#games article").first().waitFor();
      // The game's id, printed after its name: its first character must be left of its last one.
      const id = emulator.fixture.games[0]?.id ?? "";
      const order: { first: number; last: number } = await page.evaluate(`(() => {
        const walk = document.createTreeWalker(document.querySelector("#games article h3"), NodeFilter.SHOW_TEXT);
        let text;
        while ((text = walk.nextNode()) && !text.data.includes(${JSON.stringify(id)}));
        const start = text.data.indexOf(${JSON.stringify(id)});
        const at = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1); return r.getBoundingClientRect().left; };
        return { first: at(start), last: at(start + ${id.length} - 1), text: text.data };
      })()`);
      expect(order.first, JSON.stringify(order)).toBeLessThan(order.last);
      const widthOf = (): Promise<{ page: number; window: number }> =>
        page.evaluate(
          "({ page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth })",
        );
      const overview = await widthOf();
      expect(overview.page).toBeLessThanOrEqual(overview.window);
      // The outage controls name each datacenter with its game.
      await page.goto(`${emulator.url}/__dashboard/#/chaos`);
      await page.locator("#datacenters li").first().waitFor();
      const chaos = await widthOf();
      expect(chaos.page).toBeLessThanOrEqual(chaos.window);
      // Beside a 3,000-character build name, the server's short id stays on one line.
      await page.goto(`${emulator.url}/__dashboard/#/servers`);
      const link = page.locator("#servers-table tbody a").first();
      await link.waitFor();
      expect(
        await page.evaluate('document.querySelector("#servers-table tbody a").getClientRects().length'),
      ).toBe(1);
      // Nor do a lobby's id and times, beside the game's 10,000-character name: lines per cell.
      await page.goto(`${emulator.url}/__dashboard/#/lobbies`);
      await page.locator("#lobbies-table tbody time").first().waitFor();
      const lines =
        await page.evaluate(`[...document.querySelector("#lobbies-table tbody tr").children].map((td) => {
        const tops = new Set();
        const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        for (let text = walk.nextNode(); text; text = walk.nextNode()) {
          const r = document.createRange();
          r.selectNodeContents(text);
          for (const rect of r.getClientRects()) tops.add(Math.round(rect.top));
        }
        return tops.size;
      })`);
      expect(lines).toEqual([1, expect.any(Number), 1, expect.any(Number), 1, 1, 1]);
    } finally {
      await page.close();
    }
  });
});
