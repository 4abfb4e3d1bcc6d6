/**
 * A real browser for the dashboard's tests: the repo's one Chromium launch (scripts/lib/chromium.mjs, which
 * bench/dashboard.mjs uses too), with a fresh profile per launch, removed on close.
 */
import {
  CHROMIUM_FLAGS,
  CHROMIUM_PATH,
  hasChromium,
  type LaunchedChromium,
  launchChromium,
} from "../../scripts/lib/chromium.mjs";

export { CHROMIUM_FLAGS, CHROMIUM_PATH, hasChromium };

/** Names a browser suite, and fails it under CI when the browser is missing rather than skipping it. */
export function browserTitle(title: string): string {
  if (!hasChromium && process.env.CI === "true")
    throw new Error(`${CHROMIUM_PATH} is missing: .ci/run installs it (apt-get install -y chromium)`);
  return hasChromium ? title : `${title} (skipped: no ${CHROMIUM_PATH})`;
}

/** A running browser with its own profile directory. */
export type TestBrowser = LaunchedChromium;

/**
 * Launches Chromium with a fresh `--user-data-dir`. `hostRules` maps made-up names to loopback
 * (`--host-resolver-rules`), so a test can open "another site" that resolves to this machine, as a
 * DNS-rebinding attacker's would.
 */
export function launchBrowser(options: { hostRules?: string[] } = {}): Promise<TestBrowser> {
  const args = options.hostRules?.length ? [`--host-resolver-rules=${options.hostRules.join(",")}`] : [];
  return launchChromium({ args, timeout: 60_000 });
}
