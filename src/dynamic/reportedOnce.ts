/**
 * Data-source failures of one program, by cause. The language host reports an error object once, however
 * many promises reject with it, but a wrong token or an unreachable URL fails every data source of the
 * program, each with its own error: the same message then printed once per call, only its request and ray
 * id differing. A data source failing for a cause already met throws the first error of that cause.
 */
import { causeOf, GamehostError } from "../api/errors";

const firstByCause = new Map<string, GamehostError>();

/**
 * `error`, or the first error of the program with the same cause (the package's errors only). The cause
 * alone is the key, not the class: the plugin face rethrows the plugin's message as a plain GamehostError,
 * so a program on both faces meets one cause as two classes, and would print it once per face.
 */
export function firstOfItsCause(error: unknown): unknown {
  if (!(error instanceof GamehostError)) return error;
  const key = causeOf(error.message);
  const first = firstByCause.get(key);
  if (first !== undefined) return first;
  firstByCause.set(key, error);
  return error;
}
