/**
 * A real browser for the dashboard's tests: Debian's Chromium (`/usr/bin/chromium`, which `.ci/run`
 * installs when missing) driven by playwright-core, which downloads nothing. Headless, no network of its
 * own (no updates, sync or QUIC), and a fresh profile per launch, removed on close.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** The system browser the tests drive. */
export const CHROMIUM_PATH = process.env.GAMEHOST_TEST_CHROMIUM ?? "/usr/bin/chromium";

/** Whether the browser is installed (under CI a missing browser fails instead: see browserTitle). */
export const hasChromium = fs.existsSync(CHROMIUM_PATH);

/** Names a browser suite, and fails it under CI when the browser is missing rather than skipping it. */
export function browserTitle(title: string): string {
  if (!hasChromium && process.env.CI === "true")
    throw new Error(`${CHROMIUM_PATH} is missing: .ci/run installs it (apt-get install -y chromium)`);
  return hasChromium ? title : `${title} (skipped: no ${CHROMIUM_PATH})`;
}

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

/** A running browser with its own profile directory. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh `--user-data-dir`. `hostRules` maps made-up names to loopback
 * (`--host-resolver-rules`), so a test can open "another site" that resolves to this machine, as a
 * DNS-rebinding attacker's would.
 */
export async function launchBrowser(options: { hostRules?: string[] } = {}): Promise<TestBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-chromium-"));
  const args = [...CHROMIUM_FLAGS];
  if (options.hostRules?.length) args.push(`--host-resolver-rules=${options.hostRules.join(",")}`);
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args,
      viewport: { width: 1280, height: 800 },
      timeout: 60_000,
    });
  } catch (err) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
