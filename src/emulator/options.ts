/**
 * What a caller of startEmulator may set: its own module, so that the settings derived from it
 * (settings.ts) and the emulator that starts from them (emulator.ts) both depend on it, not on each other.
 */
import type { FixtureInput } from "./fixture";
import type { PlacementMode } from "./placementMode";

/** Options of `startEmulator`. */
export interface EmulatorOptions {
  /** Port on 127.0.0.1; default 0 (a free port). */
  port?: number;
  /** A fixture object or a JSON file path; default the shipped `fixtures/default.json`. */
  fixture?: FixtureInput | string;
  /**
   * Servers and export records persist here: a snapshot, loaded at start with the journal of the
   * changes made since (`<stateFile>.journal.<generation>`, appended after each change), each change
   * answered only once it is on disk. Its directory must exist and be writable, else the start fails
   * naming the path.
   */
  stateFile?: string;
  /** Destroyed servers are dropped this long after their `destroyed_at`; default 86 400 000 ms (24 h). */
  destroyedRetentionMs?: number;
  /** Longest hold of a watch request; default 40 000 ms. */
  watchHoldMs?: number;
  /** A `watch_index` older than this is answered at once; default 300 000 ms. */
  watchMaxIndexAgeMs?: number;
  /** Delay between create and placement; default 1 000 ms. */
  placementDelayMs?: number;
  /** `never`: servers are never placed (partial-create tests); default `auto`. */
  placement?: PlacementMode;
  /** Enforce the service's rate limits (docs/service-contract.md §8); default false. */
  rateLimit?: boolean;
  /**
   * Serve the `/__admin` routes; default false. Each admin request needs the admin token
   * (`RunningEmulator.adminToken`) as `Authorization: Bearer …`, a loopback Host, and a JSON body.
   */
  admin?: boolean;
  /**
   * Serve the dashboard at `/__dashboard/` (and `/` for a browser); default false. Implies `admin`: the
   * page signs in with the admin token and acts through the admin routes.
   */
  dashboard?: boolean;
  /** Largest accepted request body; default 1 MiB. */
  bodyLimitBytes?: number;
  /** Requests still unanswered after this get 500 `API_REQUEST_TIMEOUT`; default 50 000 ms. */
  requestTimeCapMs?: number;
  /**
   * Where export CSVs are written; default `<stateFile>.exports` with a state file (kept, so export
   * URLs survive a restart), else a fresh temporary directory removed on stop.
   */
  exportDir?: string;
  /** Clock in epoch ms (expiry, index age, timestamps); default `Date.now`. */
  now?: () => number;
  /**
   * Receives what the emulator has to say about itself (an internal error, a server that cannot
   * start). Default: a process warning named `GamehostEmulatorWarning`, as the CLI shows them.
   */
  onWarning?: (message: string) => void;
}
