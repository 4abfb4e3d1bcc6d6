import { GamehostError } from "./base";

/**
 * A wait the service asked for (`Retry-After`) does not fit the operation: it says until when the
 * service refuses and how to proceed. Built by `retryAfterWait`.
 */
export class GamehostRetryAfterError extends GamehostError {
  override name = "GamehostRetryAfterError";
  /** Until when the service refuses (epoch ms); `undefined` when no date can hold it. */
  readonly until: number | undefined;

  constructor(message: string, until: number | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.until = until;
  }
}
