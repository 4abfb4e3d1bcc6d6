#!/usr/bin/env node
import { parseArgs } from "node:util";
import { CONFIG_KEYS } from "../api/config";
import { PACKAGE_VERSION } from "../version";
import { whenParentEnds } from "../whenParentEnds";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "./emulator";
import { stopOnSignals } from "./stopOnSignals";
import { printable } from "./terminalText";

const USAGE = `Usage: gamehost-emulator [options]

Runs a local emulator of the game hosting service on 127.0.0.1.

Options:
  --port N              port to listen on (default 0: a free port, printed at start)
  --fixture FILE        fixture JSON (default: the package's fixtures/default.json)
  --state FILE          keep servers and exports in FILE across restarts (its directory must exist)
  --destroyed-retention MS
                        drop destroyed servers this long after their destroy (default 86400000: 24 h)
  --placement-delay MS  delay between server create and placement (default 1000)
  --watch-hold MS       longest hold of a watch request (default 40000)
  --export-dir DIR      where lobby export CSVs are written (default: FILE.exports with --state,
                        else a temporary directory)
  --rate-limit          enforce the service's rate limits
  --admin               serve the /__admin test-control routes (their token is printed at start)
  --dashboard           serve the dashboard at /__dashboard/ (live servers, requests, faults; implies
                        --admin, sign in with the admin token)
  --help                show this help
  --version             show the version`;

/** Longest `--destroyed-retention`: a year. */
const MAX_RETENTION_MS = 31_536_000_000;

/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** The flags that take a whole number, with their largest value. */
const INT_FLAGS = {
  port: 65_535,
  "placement-delay": 86_400_000,
  "watch-hold": 49_000,
  "destroyed-retention": MAX_RETENTION_MS,
} as const;

function intFlag(name: string, raw: string | undefined, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer from 0 to ${max}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/** Parses the command line into emulator options (or help/version requests). */
export function parseCli(argv: string[]): { help: true } | { version: true } | { options: EmulatorOptions } {
  let values: ReturnType<typeof parse>["values"];
  function parse() {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        fixture: { type: "string" },
        state: { type: "string" },
        "destroyed-retention": { type: "string" },
        "placement-delay": { type: "string" },
        "watch-hold": { type: "string" },
        "export-dir": { type: "string" },
        "rate-limit": { type: "boolean" },
        admin: { type: "boolean" },
        dashboard: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  }
  try {
    values = parse().values;
  } catch (err) {
    // parseArgs takes a value starting with "-" for an option and calls `--placement-delay -1` ambiguous, as if
    // the value were missing: a negative number is named with the flag's range instead.
    argv.forEach((arg, i) => {
      const name = arg.replace(/^--/, "");
      const max = (INT_FLAGS as Readonly<Record<string, number>>)[name];
      const value = argv[i + 1];
      if (arg.startsWith("--") && max !== undefined && value !== undefined && /^-\d/.test(value))
        intFlag(name, value, max);
    });
    throw new UsageError((err as Error).message);
  }
  if (values.help) return { help: true };
  if (values.version) return { version: true };
  const options: EmulatorOptions = {};
  const port = intFlag("port", values.port, INT_FLAGS.port);
  if (port !== undefined) options.port = port;
  const placementDelay = intFlag("placement-delay", values["placement-delay"], INT_FLAGS["placement-delay"]);
  if (placementDelay !== undefined) options.placementDelayMs = placementDelay;
  const watchHold = intFlag("watch-hold", values["watch-hold"], INT_FLAGS["watch-hold"]);
  if (watchHold !== undefined) options.watchHoldMs = watchHold;
  const retention = intFlag(
    "destroyed-retention",
    values["destroyed-retention"],
    INT_FLAGS["destroyed-retention"],
  );
  if (retention !== undefined) options.destroyedRetentionMs = retention;
  if (values.fixture !== undefined) options.fixture = values.fixture;
  if (values.state !== undefined) options.stateFile = values.state;
  if (values["export-dir"] !== undefined) options.exportDir = values["export-dir"];
  if (values["rate-limit"]) options.rateLimit = true;
  if (values.admin) options.admin = true;
  if (values.dashboard) options.dashboard = true;
  return { options };
}

/** What the CLI prints once listening: the URL, the tokens, and how to use them. */
export function banner(emu: RunningEmulator, options: EmulatorOptions): string {
  const lines = [
    `gamehost emulator ${PACKAGE_VERSION} listening on ${emu.url}`,
    "",
    "Tokens (Authorization: Bearer <token>):",
  ];
  // A user's own fixture may give no token a role: a role without one is left out, not printed empty.
  if (emu.tokens.user) lines.push(`  user        ${emu.tokens.user}`);
  if (emu.tokens.otherUser)
    lines.push(`  otherUser   ${emu.tokens.otherUser}   (not in the main game's group)`);
  if (emu.tokens.expired) lines.push(`  expired     ${emu.tokens.expired}`);
  for (const game of emu.fixture.games) {
    const token = emu.tokens.cloud[game.id];
    if (token) lines.push(`  cloud       ${token}   (game ${game.displayName}, ${game.id})`);
  }
  // A fixture of cloud tokens only still drives a stack (the servers routes take a game's cloud token);
  // one with no live token at all gets no empty `Bearer ` or `GAMEHOST_TOKEN=` to copy.
  const token = emu.tokens.user || Object.values(emu.tokens.cloud)[0];
  if (!token) lines.push("  (none: the fixture has no live token)");
  if (token) lines.push("", "Try:", `  curl -H "Authorization: Bearer ${token}" ${emu.url}/cloud/games`);
  lines.push("", "Point the provider at it:", `  export ${CONFIG_KEYS.baseUrl.env}=${emu.url}`);
  if (token) lines.push(`  export ${CONFIG_KEYS.token.env}=${token}`);
  if ((options.admin || options.dashboard) && emu.adminToken)
    lines.push(
      "",
      `Admin routes: ${emu.url}/__admin/… (faults, clock, placement, mutate, servers, watchers, requests, outages)`,
      `  admin token ${emu.adminToken}   (Authorization: Bearer <admin token>; bodies as application/json)`,
      `  curl -H "Authorization: Bearer ${emu.adminToken}" ${emu.url}/__admin/faults`,
    );
  if (emu.dashboardUrl)
    lines.push("", `Dashboard: ${emu.dashboardUrl}   (sign in with the admin token; this machine only)`);
  if (options.stateFile) lines.push("", `State file: ${options.stateFile}`);
  lines.push("", "Press Ctrl+C to stop.");
  // A display name or token of the user's own fixture is printed as written, escape sequences included.
  return printable(lines.join("\n"));
}

/**
 * Calls `onGone` once the process that started this one has ended, when that is npm's: `npx
 * gamehost-emulator` (npm exec) runs the bin under a `sh -c` of its own, which a SIGTERM sent to npx
 * alone (`kill $!` after `npx gamehost-emulator &` in a script) ends without passing it on, leaving the
 * emulator running, holding its port and state file, with nobody to stop it. Started any other way, nothing
 * is watched.
 */
export function whenLauncherEnds(onGone: () => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.npm_command === "exec") whenParentEnds(onGone);
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseCli>;
  try {
    parsed = parseCli(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`gamehost-emulator: ${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if ("help" in parsed) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if ("version" in parsed) {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    return;
  }
  let emu: RunningEmulator;
  try {
    emu = await startEmulator(parsed.options);
  } catch (err) {
    process.stderr.write(`gamehost-emulator: ${printable((err as Error).message)}\n`);
    process.exit(1);
  }
  // A reader of the output that has gone (`gamehost-emulator | head -20`, a CI log step that ended) makes
  // each later write fail with EPIPE: what the emulator prints is for people, so it stops printing, and
  // a stop still goes in order, rather than dying of an unhandled error with a stack trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
  });
  const stop = stopOnSignals(() => emu.stop(), {
    write: (text) => process.stdout.write(text),
    exit: (code) => process.exit(code),
  });
  process.on("SIGINT", () => stop("Received SIGINT"));
  process.on("SIGTERM", () => stop("Received SIGTERM"));
  whenLauncherEnds(() => stop("The npx that started it has ended"));
  // Only now, with the handlers in place: a script that reads the banner and signals at once (a CI step
  // that found its URL) otherwise met Node's default action, a kill that left the temporary export folder.
  process.stdout.write(`${banner(emu, parsed.options)}\n`);
}

if (require.main === module) void main();
