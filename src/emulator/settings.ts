import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, lstatSync, readlinkSync, rmSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EmulatorClock } from "./clock";
import type { CoreOptions } from "./core";
import { makeDirectory } from "./makeDirectory";
import type { EmulatorOptions } from "./options";

/** Defaults of {@link EmulatorOptions}. */
export const DEFAULTS = {
  port: 0,
  watchHoldMs: 40_000,
  watchMaxIndexAgeMs: 300_000,
  placementDelayMs: 1_000,
  bodyLimitBytes: 1024 * 1024,
  requestTimeCapMs: 50_000,
  destroyedRetentionMs: 86_400_000,
} as const;

/** What each option takes: the type checks a JavaScript caller (a node:test file, say) does not have. */
const OPTION_KINDS = {
  port: "number",
  fixture: "fixture",
  stateFile: "string",
  destroyedRetentionMs: "number",
  watchHoldMs: "number",
  watchMaxIndexAgeMs: "number",
  placementDelayMs: "number",
  placement: "placement",
  rateLimit: "boolean",
  admin: "boolean",
  dashboard: "boolean",
  bodyLimitBytes: "number",
  requestTimeCapMs: "number",
  exportDir: "string",
  now: "function",
  onWarning: "function",
} as const satisfies Record<keyof EmulatorOptions, string>;

/**
 * Refuses an option that is not one, or of the wrong type, naming it: ignored, a misspelt `dashbord` or an
 * `admin: "yes"` left the routes a test relies on unserved, and it failed later with a 404.
 */
export function checkOptions(options: EmulatorOptions): void {
  for (const [name, value] of Object.entries(options)) {
    const kind = (OPTION_KINDS as Readonly<Record<string, string>>)[name];
    if (kind === undefined)
      throw new Error(
        `Unknown emulator option ${name} (startEmulator takes ${Object.keys(OPTION_KINDS).join(", ")})`,
      );
    if (value === undefined) continue;
    const got = JSON.stringify(value) ?? typeof value;
    const fail = (what: string) => {
      throw new Error(`Emulator option ${name} must be ${what}, got ${got}`);
    };
    if (kind === "boolean" && typeof value !== "boolean") fail("true or false");
    if (kind === "number" && typeof value !== "number") fail("a number");
    if (kind === "string" && typeof value !== "string") fail("a string (a path)");
    if (kind === "function" && typeof value !== "function") fail("a function");
    if (kind === "placement" && value !== "auto" && value !== "never") fail('"auto" or "never"');
  }
}

function checkMs(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`Emulator option ${name} must be an integer ≥ 0, got ${value}`);
  return value;
}

/** The options of an emulator after defaults and checks. */
export interface Settings {
  /** What the core takes. */
  core: CoreOptions;
  /** The clock behind `core.now`, which the admin API moves forward. */
  clock: EmulatorClock;
  requestTimeCapMs: number;
  /** Whether the export directory is a temporary one of this emulator's, removed on stop. */
  tempExportDir: boolean;
}

/**
 * Fills in the defaults and checks each duration (an error names the option). With a state file,
 * exports sit beside it and are kept, so their records and URLs outlive a restart; without one, and
 * without `exportDir`, they go to a fresh temporary directory.
 */
export function settingsOf(options: EmulatorOptions, warn: (message: string) => void): Settings {
  const requestTimeCapMs = checkMs("requestTimeCapMs", options.requestTimeCapMs ?? DEFAULTS.requestTimeCapMs);
  const clock = new EmulatorClock(options.now ?? Date.now);
  const core = {
    watchHoldMs: checkMs("watchHoldMs", options.watchHoldMs ?? DEFAULTS.watchHoldMs),
    watchMaxIndexAgeMs: checkMs(
      "watchMaxIndexAgeMs",
      options.watchMaxIndexAgeMs ?? DEFAULTS.watchMaxIndexAgeMs,
    ),
    placementDelayMs: checkMs("placementDelayMs", options.placementDelayMs ?? DEFAULTS.placementDelayMs),
    placement: options.placement ?? "auto",
    bodyLimitBytes: checkMs("bodyLimitBytes", options.bodyLimitBytes ?? DEFAULTS.bodyLimitBytes),
    destroyedRetentionMs: checkMs(
      "destroyedRetentionMs",
      options.destroyedRetentionMs ?? DEFAULTS.destroyedRetentionMs,
    ),
    now: clock.now,
    warn,
  };
  // An empty path is a script's unset variable (`--state "$STATE"`): refused, rather than keeping nothing
  // (an empty state file) or writing exports into the working directory (an empty export dir).
  for (const [name, flag, value] of [
    ["stateFile", "--state", options.stateFile],
    ["exportDir", "--export-dir", options.exportDir],
  ] as const) {
    if (value !== undefined && value.trim() === "")
      throw new Error(`${name} (${flag}) must name a path, got ${JSON.stringify(value)}`);
  }
  const stateFile = options.stateFile === undefined ? undefined : followLinks(options.stateFile);
  const tempExportDir = options.exportDir === undefined && stateFile === undefined;
  // A directory named by the user is made now: one that cannot be made fails the start, naming the option,
  // rather than each export later.
  if (options.exportDir !== undefined) {
    try {
      makeDirectory(options.exportDir);
    } catch (error) {
      throw new Error(
        `exportDir (--export-dir) ${options.exportDir} cannot be made (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): name a folder you can write to`,
      );
    }
    checkExportDir(options.exportDir, "exportDir (--export-dir)");
  } else if (stateFile !== undefined && existsSync(`${stateFile}.exports`)) {
    checkExportDir(`${stateFile}.exports`, "The export folder beside the state file (--state)");
  }
  const exportDir =
    options.exportDir ??
    (stateFile !== undefined
      ? `${stateFile}.exports`
      : // Named now, made by the first export (private to this user, as mkdtemp would): a run that exports
        // nothing, most CI runs, leaves nothing behind even when killed before it could remove it.
        path.join(os.tmpdir(), `gamehost-emulator-exports-${randomBytes(9).toString("base64url")}`));
  return { core: { ...core, stateFile, exportDir }, clock, requestTimeCapMs, tempExportDir };
}

/**
 * The file a state file path names, through symbolic links (a dangling one included: the first start
 * makes its target). The lock, the journals and the snapshot's rename all go beside the real file, so two
 * emulators reaching it by different names see one lock, and a rename never turns the link into a file
 * of its own.
 */
function followLinks(file: string): string {
  let current = file;
  for (let hops = 0; hops < 40; hops++) {
    let isLink: boolean;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      return current; // not there yet (or unreadable: the state file's own checks name why)
    }
    if (!isLink) return current;
    current = path.resolve(path.dirname(current), readlinkSync(current));
  }
  return current;
}

/**
 * Fails the start when the export folder exists but cannot hold exports (a file of that name, a read-only
 * mount): otherwise the emulator started, and answered every export 503 "try again later", which no retry
 * mends.
 */
function checkExportDir(dir: string, what: string): void {
  const fix = "name a folder you can write to (--export-dir)";
  if (!statSync(dir).isDirectory()) throw new Error(`${what} ${dir} is not a folder: ${fix}`);
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new Error(
      `${what} ${dir} cannot be written to (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): ${fix}`,
    );
  }
}

/** Removes the export directory if it is a temporary one of this emulator's. */
export function removeTempExportDir(settings: Settings): void {
  if (settings.tempExportDir) rmSync(settings.core.exportDir, { recursive: true, force: true });
}
