/**
 * Test setup: a file must hand its worker back with the real timers. Unit files share a worker (no isolation),
 * and a `setTimeout` left replaced (fake timers whose spy was restored after them, a spy never restored) makes
 * every later wait on a timer in that worker hang to its timeout, in whichever file happens to come next. This
 * fails the file that did it instead. Node's `node:timers` module keeps the real functions whatever happens to
 * the globals.
 */
import * as timers from "node:timers";
import { afterAll } from "vitest";

const realTimers = {
  setTimeout: timers.setTimeout,
  setInterval: timers.setInterval,
  setImmediate: timers.setImmediate,
};

afterAll(() => {
  const replaced = Object.entries(realTimers)
    .filter(([name, real]) => (globalThis as unknown as Record<string, unknown>)[name] !== real)
    .map(([name]) => name);
  if (replaced.length > 0) {
    throw new Error(
      `this file left globalThis.${replaced.join(", ")} replaced (fake timers or a spy not restored): later files of its worker would wait forever`,
    );
  }
});
