/**
 * The two failures a `gamehost` command reports as one line. Their own module, free of the Automation API,
 * so that the command line loads them before it knows which command runs (and what that command needs).
 */

/** A failure the command reports as one line (exit code 1). */
export class CommandError extends Error {
  override readonly name = "CommandError";
}

/** A bad command line (a flag's value, a missing flag): one line naming the flag and what is allowed, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
