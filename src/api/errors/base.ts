import type { InspectOptions } from "node:util";
import { boundText } from "../textBounds";

/**
 * What a failure's message says of its cause: the message without the closing `[request: answer]` that every
 * error of this package ends with, which differs per request (its path, its ray id) for one cause.
 */
export const causeOf = (message: string) => message.replace(/ \[[^\]]*\]$/, "");
/** The closing ` [request: status code, ray id]` of a message ({@link causeOf}'s complement), or `""`. */
export const requestOf = (message: string) => message.slice(causeOf(message).length);

/**
 * Base class of every error this package throws. Each message names the cause and the fix on its own,
 * so a Pulumi program that fails with one prints the message alone: the SDK's language host prints
 * only the message of an error it recognizes as a `RunError` (by this duck-typed brand, the way it
 * recognizes its own across SDK copies), instead of a stack trace and every field.
 *
 * A program may throw it for its own failures too (a config value that names no game, say): the CLI prints
 * the message alone, at once. A `pulumi.RunError` thrown from an `apply` or after an `await` is also printed
 * alone, but only after the SDK's formatting of it has run for a minute and gigabytes (docs/known-issues.md).
 */
export class GamehostError extends Error {
  override name = "GamehostError";
  constructor(message: string, options?: { cause?: unknown }) {
    // Bounded before Error captures it in the stack (see textBounds.ts).
    super(boundText(message), options);
    Object.defineProperty(this, "__pulumiRunError", { value: true, enumerable: false });
    // The SDK prefixes the message of an error that fails an input (`error serializing property "x": …`)
    // in place, once for every resource input the same rejected Output reaches: the message names the
    // cause and the fix on its own, so it is kept alone.
    let text = this.message;
    Object.defineProperty(this, "message", {
      get: () => text,
      set: (value: string) => {
        const before = text;
        text = boundText(withoutSdkContext(String(value)));
        // The SDK prints an error that fails the program after its main returned (a data source's Output
        // rejecting) by its stack, whose first line V8 wrote from the message when the stack was first
        // read: kept in step, or a restated message (a data source's 429) printed the words it replaced.
        const stack = this.stack;
        const header = `${this.name}: ${before}`;
        if (typeof stack === "string" && stack.startsWith(header))
          this.stack = `${this.name}: ${text}${stack.slice(header.length)}`;
      },
      enumerable: false,
      configurable: true,
    });
  }

  /**
   * `util.inspect` shows the error as it would, without colours. The SDK formats a program's uncaught
   * error with `util.inspect(err, { colors: true })` even when it prints the message alone, and Node's
   * colouring of stack frames never ends on a source-mapped SDK frame (`node_modules/@pulumi/output.ts`):
   * the program would grow to GBs and die unreported (docs/known-issues.md).
   */
  [Symbol.for("nodejs.util.inspect.custom")](
    _depth: number,
    options: InspectOptions,
    inspect: (value: unknown, options: InspectOptions) => string,
  ): string {
    // Without the caller's `stylize` either, which colours whatever `colors` says.
    const { stylize: _stylize, ...plain } = options as InspectOptions & { stylize?: unknown };
    return inspect(this, { ...plain, colors: false, customInspect: false });
  }
}

/**
 * `error` with its `stack` made its message, read when printed (so a later restate shows): for a data
 * source's failure reaching the program. The SDK prints a RunError's message alone while the program's
 * main runs, but a rejection that comes once main has returned (a program that declares servers in a loop
 * and exports nothing waiting on its data sources) by its `stack`: the package's frames under a message
 * that already names the cause and the fix.
 */
export function withMessageAsStack<E>(error: E): E {
  if (error instanceof GamehostError)
    Object.defineProperty(error, "stack", {
      get: () => error.message,
      set: () => undefined,
      enumerable: false,
      configurable: true,
    });
  return error;
}

/** The message without the SDK's `error serializing property "x": ` prefixes, however many. */
function withoutSdkContext(message: string): string {
  return message.replace(/^(?:error serializing property "[^"]*": )+/, "");
}
