/**
 * The requests monitor's Pause freezes the list to read it; Resume shows what came meanwhile, rather than
 * leaving a silent gap in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { browserTitle, hasChromium, launchBrowser, type TestBrowser } from "../support/browser";
import { startTestEmulator } from "../support/emulator";

let emulator: RunningEmulator;
let browser: TestBrowser;

beforeAll(async () => {
  if (!hasChromium) return;
  emulator = await startTestEmulator({ dashboard: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await emulator?.stop();
});

const listGames = (path: string) =>
  fetch(`${emulator.url}${path}`, { headers: { authorization: `Bearer ${emulator.tokens.user}` } });

describe.skipIf(!hasChromium)(browserTitle("pausing the requests monitor"), () => {
  it("holds the list while paused and shows the requests made meanwhile on resume", async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${emulator.url}/__dashboard/#/requests`);
      await page.locator("#token").fill(emulator.adminToken ?? "");
      await page.keyboard.press("Enter");
      await (await listGames("/cloud/games")).text();
      const rows = page.locator("#requests-table tbody tr");
      await expect.poll(() => rows.allInnerTexts()).toEqual([expect.stringContaining("/cloud/games")]);

      await page.locator("#requests-pause").click();
      await (await listGames("/cloud/bootstrap")).text();
      // The stream gathers for 250 ms; twice that and the paused list must still hold one row.
      await page.waitForTimeout(600);
      expect(await rows.count()).toBe(1);

      await page.locator("#requests-pause").click();
      await expect.poll(() => rows.count()).toBe(2);
      expect(await rows.first().innerText()).toContain("/cloud/bootstrap");
    } finally {
      await page.close();
    }
  });
});
