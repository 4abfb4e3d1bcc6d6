/**
 * Waits for something a test cannot be told about directly (a watcher registered, a placement run, a
 * process printing its URL): re-checks `check` every few milliseconds until it gives a value (anything but
 * `undefined` or `false`). It guesses no duration: the bound is only a guard against a hang, under the tests'
 * own timeout, and its error names what was awaited. Prefer an event or the emulator's clock where there is one.
 */
const HANG_GUARD_MS = 100_000;

export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what = "the condition",
  hangGuardMs = HANG_GUARD_MS,
): Promise<T> {
  const guard = Date.now() + hangGuardMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > guard) throw new Error(`still waiting for ${what} after ${hangGuardMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
