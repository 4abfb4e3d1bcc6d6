// Declared apart from exchange.ts so that `pulumi-gamehost/emulator`'s declarations stay free of zod.

/** One answered (or dropped: status 0) request, for test assertions. */
export interface RequestLogEntry {
  method: string;
  /**
   * Route name, e.g. `POST /games/:game/environments/:env/servers`; `METHOD <unknown>` when no route
   * serves the request (404, or 400 `API_METHOD_NOT_ALLOWED` for a known path).
   */
  route: string;
  /** The request path as sent. */
  path: string;
  /** HTTP status; 0 when the connection was dropped without an answer. */
  status: number;
}
