// The one way this repo launches a real browser (the dashboard's tests and bench/dashboard.mjs): Debian's
// Chromium (`/usr/bin/chromium`, which `.ci/run` installs when missing) driven by playwright-core, which
// downloads nothing. Headless, no network of its own (no updates, sync or QUIC), and a fresh profile per
// launch, removed on close.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

/** The system browser (GAMEHOST_TEST_CHROMIUM overrides it). */
export const CHROMIUM_PATH = process.env.GAMEHOST_TEST_CHROMIUM ?? "/usr/bin/chromium";

/** Whether the browser is installed. */
export const hasChromium = existsSync(CHROMIUM_PATH);

/** The flags of every launch: no sandbox (containers), no GPU, nothing phoning home. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches Chromium with a fresh profile directory (named from `profilePrefix`) and a 1280×800 viewport;
 * `args` are added to CHROMIUM_FLAGS, `timeout` is playwright's launch timeout (its default when absent).
 * `close()` ends the browser and removes the profile; a failed launch removes it too.
 */
export async function launchChromium({ profilePrefix = "gamehost-chromium-", args = [], timeout } = {}) {
  const profile = mkdtempSync(path.join(os.tmpdir(), profilePrefix));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_FLAGS, ...args],
      viewport: { width: 1280, height: 800 },
      ...(timeout === undefined ? {} : { timeout }),
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
