#!/usr/bin/env node
import * as fs from "node:fs";
/**
 * `gamehost`: keeps a stack's hosting configuration reconciled, on Pulumi's Automation API (the real
 * `pulumi` on PATH does every deployment). Exit codes: 0 done (no drift), 1 error, 2 usage, 3 drift.
 */
import { parseArgs } from "node:util";
import type { Stack } from "@pulumi/pulumi/automation";
import { GamehostError } from "../api/errors";
import { PACKAGE_VERSION } from "../version";
import type { Scope } from "./adopt";
import type { DriftReport } from "./drift";
import { CommandError, UsageError } from "./errors";
import type { PassResult } from "./reconcile";

/** "1 server", "2 servers". */
const servers = (n: number) => `${n} ${n === 1 ? "server" : "servers"}`;

// Each command loads its modules when it runs (`await import`): the Automation API alone takes a second or
// more to load on a busy machine, and --help, a usage error or one command need none or only part of the
// rest. drift starts opening the stack (its `pulumi version` run) before loading what it needs next.

/** Exit codes, for CI. */
export const EXIT = { ok: 0, error: 1, usage: 2, drift: 3 } as const;

const COMMON = `Options of every command:
  --cwd DIR      the Pulumi project's folder (default: the current folder)
  --stack NAME   the stack (default: the folder's selected stack)
  --json         print one JSON document instead of lines
  -h, --help     this help`;

const HELP: Record<string, string> = {
  main: `gamehost ${PACKAGE_VERSION}: keep game hosting configuration reconciled (on Pulumi's Automation API)

Usage: gamehost <command> [options]

Commands:
  drift      what differs between the stack and the service (gone, changed, strays); exit 3 on drift
  repair     resolve what a hard interruption left pending (import the server each create made, or clear it;
             read in a fleet whose update was cut short)
  reconcile  repair + drift in a loop (every --interval, and when a game changes); --remediate runs up
  adopt      write a \`pulumi import --file\` file of the live servers the stack does not track
  sweep      list (and with --delete --yes delete) servers this package made that no given stack tracks

Exit codes: 0 done (no drift), 1 error, 2 usage (an unknown command or option, a missing or bad option
value such as --interval soon; nothing is run), 3 drift (or strays left).

Run \`gamehost <command> --help\` for a command's options and exit codes; \`gamehost --version\` prints the
version.`,
  repair: `Usage: gamehost repair [--dry-run] [options]

Resolves the pending creates a hard interruption (a second Ctrl-C, a killed CI job) left in the stack's
state: the server each create made (found by the idempotency key recorded in its inputs; a Fleet's
servers by its fleet key) is recorded in the state and refreshed, and a create that made no live server
is cleared. A Fleet whose update was cut short is refreshed: the servers that update made or deleted are
read in. After it, \`pulumi up\` creates nothing twice and leaves nothing running that the state misses.

  --dry-run      report what would be done, change nothing

Exit codes: 0 repaired (or nothing to repair), 1 error, 2 usage.

${COMMON}`,
};

HELP.drift = `Usage: gamehost drift [options]

Compares the stack with the service, changing nothing: a preview-only refresh of the stack reports each
resource destroyed out of band (gone) or changed; the service's server lists report strays (live servers
in the stack's games and environments, with the tags all the stack's servers share, that the state does
not track); pending creates left by a hard interruption count too.

  --other-stack NAME  a stack of another project whose servers are its own, not strays (repeatable), as
                      org/project/stack (the other stacks of this project count without it)

Exit codes: 0 no drift, 3 drift, 1 error, 2 usage (a CI drift gate, like \`terraform plan -detailed-exitcode\`).

${COMMON}`;

HELP.reconcile = `Usage: gamehost reconcile [--once] [--interval 5m] [--remediate] [options]

Passes of repair, then drift, and with --remediate a \`pulumi up --refresh\` when a resource the stack
tracks drifted (strays are reported, never deleted). One line per pass. Passes run every --interval and
as soon as the service's watch reports a change to a game the stack's servers belong to. SIGINT and
SIGTERM stop the loop between passes, never during one. A stack locked by another update fails that
pass with a line saying so (the backend's lock: two reconcilers never update one stack at once).

  --once         one pass, then exit (cron, CI)
  --interval D   time between passes, from 1s to 24h: 30s, 5m, 1h (default 5m)
  --remediate    run \`pulumi up --refresh\` when something tracked drifted
  --other-stack NAME  a stack whose servers are not strays (repeatable; as drift's)

Exit codes (--once): 0 no drift or remediated, 3 drift left, 1 error, 2 usage (a bad --interval, before
any pass). The loop exits 0 when stopped, 1 when its last pass failed.

${COMMON}`;

const SCOPE = `  --game ID         the game's id (required)
  --environment ID  the environment's id (required)
  --tag KEY=VALUE   only servers carrying this tag (repeatable)`;

HELP.adopt = `Usage: gamehost adopt --game ID --environment ID [--out FILE] [--name-tag KEY] [options]

Writes a \`pulumi import --file\` file for the live servers of the game's environment that the stack does
not track: type gamehost:index:Server, import id <gameId>/<environmentId>/<serverId>, the resource name
from the server's --name-tag tag (default: name), else server-<first 8 characters of its id>. The
servers of a Fleet are one entry, the fleet: gamehost:index:Fleet, <gameId>/<environmentId>/<fleetKey>.
Then \`pulumi import --file FILE --out code\` adopts them and writes the code that declares them.

${SCOPE}
  --out FILE        where to write the file (default: stdout)
  --name-tag KEY    the tag holding a server's resource name (default: name)
  --other-stack NAME  a stack of another project whose servers are not offered (repeatable; as drift's),
                    as org/project/stack (the other stacks of this project count without it). Adopted,
                    its servers would have two owners.

Exit codes: 0 written, 1 error, 2 usage.

${COMMON}`;

HELP.sweep = `Usage: gamehost sweep --game ID --environment ID [--stack NAME]... [--delete --yes] [options]

Lists the live servers of the game's environment that this package created (they carry its reserved
tag pulumi-gamehost/idempotency-key) and that no stack tracks, with their age: what a removed stack or
an interrupted script left behind. Every stack of the project counts; the first --stack (repeatable;
default the selected one) gives the connection; name the stacks of other projects with servers in the
environment as org/project/stack (theirs are listed otherwise). Deletes them only with both --delete and --yes.

${SCOPE}
  --delete          delete the servers listed (needs --yes too)
  --yes             confirm --delete

Exit codes: 0 none found (or all deleted), 3 found and left, 1 error, 2 usage.

${COMMON}`;

const OPTIONS = {
  game: { type: "string" },
  environment: { type: "string" },
  tag: { type: "string", multiple: true },
  out: { type: "string" },
  "name-tag": { type: "string" },
  delete: { type: "boolean", default: false },
  yes: { type: "boolean", default: false },
  once: { type: "boolean", default: false },
  remediate: { type: "boolean", default: false },
  interval: { type: "string" },
  cwd: { type: "string" },
  stack: { type: "string", multiple: true },
  "other-stack": { type: "string", multiple: true },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
  version: { type: "boolean", default: false },
  "dry-run": { type: "boolean", default: false },
} as const;

type Print = (line: string) => void;

async function runRepair(values: ParsedValues, out: Print): Promise<number> {
  const { openStack } = await import("./workspace");
  const { repair, repairLines } = await import("./repair");
  const { stackClient } = await import("./connection");
  const stack = await openStack(target(values));
  const client = await stackClient(stack);
  const report = await repair(stack, client, values["dry-run"]);
  if (values.json) out(JSON.stringify(report));
  else for (const line of repairLines(report)) out(line);
  return EXIT.ok;
}

async function runDrift(values: ParsedValues, out: Print): Promise<number> {
  const { openStack, unknownStack } = await import("./workspace");
  // A stack named by --stack is not listed first: the refresh preview starts as soon as the workspace is
  // open, and a stack that does not exist fails it (and the export beside it) with the CLI's own error,
  // which unknownStack turns into the line openStack gives.
  const opening = openStack(target(values), { verify: false });
  opening.catch(() => undefined); // awaited below, after the imports
  const { drift, driftLines, hasDrift } = await import("./drift");
  const stack = await opening;
  const others = await otherStacks(values, stack);
  // The HTTP client (undici, the wire schemas: half a second to load on a busy machine) and the stack's
  // config are needed only for the strays: drift asks for them once its refresh preview has started.
  const client = () => import("./connection").then(({ stackClient }) => stackClient(stack));
  let report: DriftReport;
  try {
    report = await drift(stack, client, others);
  } catch (error) {
    throw await unknownStack(stack, error);
  }
  if (values.json) out(JSON.stringify({ ...report, drift: hasDrift(report) }));
  else for (const line of driftLines(report)) out(line);
  return hasDrift(report) ? EXIT.drift : EXIT.ok;
}

/** The exit code of a pass under --once. */
function passCode(r: PassResult | undefined, drifted: (r: DriftReport) => boolean): number {
  if (!r || r.error !== undefined) return EXIT.error;
  if (r.remediated !== undefined) return EXIT.ok;
  return (r.drift && drifted(r.drift)) || (r.unfinished ?? 0) + (r.unfinishedCreates ?? 0) > 0
    ? EXIT.drift
    : EXIT.ok;
}

async function runReconcile(values: ParsedValues, out: Print): Promise<number> {
  const { parseInterval, passLine, reconcileLoop } = await import("./reconcile");
  const { hasDrift } = await import("./drift");
  const { openStack } = await import("./workspace");
  const { stackClient } = await import("./connection");
  const intervalMs = parseInterval(values.interval ?? "5m");
  const stack = await openStack(target(values));
  const others = await otherStacks(values, stack);
  const client = await stackClient(stack);
  const stop = new AbortController();
  const onSignal = (signal: string) => {
    if (!stop.signal.aborted)
      out(values.json ? JSON.stringify({ stopping: signal }) : `${signal}: stopping after this pass`);
    stop.abort();
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    const last = await reconcileLoop(stack, client, {
      remediate: values.remediate,
      others,
      intervalMs,
      once: values.once,
      stop: stop.signal,
      onPass: (r) => out(values.json ? JSON.stringify(r) : passLine(r)),
      onNotice: (line) => out(values.json ? JSON.stringify({ notice: line }) : line),
    });
    if (values.once) return passCode(last, hasDrift);
    return last?.error !== undefined ? EXIT.error : EXIT.ok;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}

/** The game, environment and tags of adopt and sweep. */
async function scopeOf(values: ParsedValues): Promise<Scope> {
  if (!values.game || !values.environment) {
    throw new UsageError(
      "--game and --environment are required (the ids of the game and environment to list)",
    );
  }
  const tags: Record<string, string> = {};
  for (const t of values.tag ?? []) {
    const at = t.indexOf("=");
    if (at <= 0) throw new UsageError(`--tag ${JSON.stringify(t)}: expected KEY=VALUE`);
    tags[t.slice(0, at)] = t.slice(at + 1);
  }
  // Names (`space-race`, `prod`) are what people type first: the list would fail deep in the client.
  const { canonicalUuid } = await import("../api/schemas/common");
  const id = (flag: string, value: string, what: string) => {
    const uuid = canonicalUuid(value);
    if (uuid === undefined)
      throw new UsageError(
        `${flag} ${JSON.stringify(value)}: expected the ${what}'s id, a UUID (getEnvironment's ${what === "game" ? "gameId" : "environmentId"}), not its name`,
      );
    return uuid;
  };
  return {
    gameId: id("--game", values.game, "game"),
    environmentId: id("--environment", values.environment, "environment"),
    tags,
  };
}

/** "3 servers", or "3 servers and 1 fleet" when the file adopts fleets whole (entries of a Fleet type). */
function written(resources: ReadonlyArray<{ type: string }>, isFleetType: (type: string) => boolean): string {
  const fleets = resources.filter((r) => isFleetType(r.type)).length;
  const alone = servers(resources.length - fleets);
  return fleets === 0 ? alone : `${alone} and ${fleets} ${fleets === 1 ? "fleet" : "fleets"}`;
}

async function runAdopt(values: ParsedValues, out: Print): Promise<number> {
  const scope = await scopeOf(values);
  const { importFile, untrackedWithNames } = await import("./adopt");
  const { isFleetType } = await import("./state");
  const { openStack } = await import("./workspace");
  const { stackClient } = await import("./connection");
  const stack = await openStack(target(values));
  const others = await otherStacks(values, stack);
  const client = await stackClient(stack);
  const { strays, names } = await untrackedWithNames(client, [stack, ...others], scope, false);
  const file = importFile(strays, values["name-tag"] ?? "name", names);
  const text = `${JSON.stringify(file, null, 2)}\n`;
  if (values.out) {
    fs.writeFileSync(values.out, text);
    const summary = { file: values.out, servers: file.resources.length };
    out(
      values.json
        ? JSON.stringify(summary)
        : `wrote ${written(file.resources, isFleetType)} to ${values.out}: run \`pulumi import --file ${values.out}\``,
    );
  } else {
    out(values.json ? JSON.stringify(file) : text.trimEnd());
  }
  return EXIT.ok;
}

async function runSweep(values: ParsedValues, out: Print): Promise<number> {
  const scope = await scopeOf(values);
  const { deleteStrays, untracked } = await import("./adopt");
  const { openStack, siblingStacks } = await import("./workspace");
  const { stackClient } = await import("./connection");
  const cwd = values.cwd ?? process.cwd();
  const names = values.stack && values.stack.length > 0 ? values.stack : [undefined];
  const stacks = [];
  for (const name of names) stacks.push(await openStack({ cwd, stack: name }, { anyProject: true }));
  const first = stacks[0];
  if (!first) throw new CommandError("no stack to compare with");
  // Every stack of the project tracks its own servers, named or not.
  stacks.push(...(await siblingStacks(first, stacks)));
  const client = await stackClient(first);
  const strays = await untracked(client, stacks, scope, true);
  const deleting = values.delete && values.yes;
  const deleted = deleting ? await deleteStrays(client, strays) : [];
  if (values.json) {
    out(JSON.stringify({ stacks: stacks.map((s) => s.name), strays, deleted }));
  } else {
    for (const s of strays)
      out(
        `${deleting ? "deleted" : "stray"}  server ${s.serverId}, ${s.ageSeconds}s old, tags ${JSON.stringify(s.tags)}`,
      );
    const hint =
      strays.length > 0 && !deleting
        ? values.delete
          ? " (add --yes to delete them)"
          : " (--delete --yes deletes them)"
        : "";
    out(
      `${servers(strays.length)} no stack of ${stacks.map((s) => s.name).join(", ")} tracks${deleting ? ", deleted" : ""}${hint}`,
    );
  }
  return strays.length > 0 && !deleting ? EXIT.drift : EXIT.ok;
}

/**
 * The stacks whose servers are not `stack`'s strays (drift, reconcile, adopt): those named by --other-stack
 * (another project's in full, as org/project/stack), and every other stack of `stack`'s project.
 */
async function otherStacks(values: ParsedValues, stack: Stack) {
  const { openStack, siblingStacks } = await import("./workspace");
  const others = [];
  for (const name of values["other-stack"] ?? [])
    others.push(await openStack({ cwd: values.cwd ?? process.cwd(), stack: name }, { anyProject: true }));
  return [...others, ...(await siblingStacks(stack, others))];
}

/** The one stack of a command that takes one. */
function target(values: ParsedValues): { cwd: string; stack: string | undefined } {
  if ((values.stack?.length ?? 0) > 1)
    throw new UsageError("--stack is given more than once (only sweep takes several)");
  return { cwd: values.cwd ?? process.cwd(), stack: values.stack?.[0] };
}

/** What `parseArgs` makes of {@link OPTIONS}: one list of the options, their types derived from it. */
type ArgsConfig = { args: string[]; options: typeof OPTIONS; allowPositionals: true; tokens: true };
type ParsedArgs = ReturnType<typeof parseArgs<ArgsConfig>>;
type ParsedValues = ParsedArgs["values"];
type Option = keyof typeof OPTIONS;

/** Options of every command (COMMON). */
const EVERY_COMMAND: readonly Option[] = ["cwd", "stack", "json", "help"];

/**
 * Each command and the options it takes beside {@link EVERY_COMMAND}, as its help lists them. Another
 * command's option is a usage error: ignored, `adopt --other-stack` would offer that stack's servers.
 */
const COMMANDS: Record<
  string,
  { run: (values: ParsedValues, out: Print) => Promise<number>; options: readonly Option[] }
> = {
  drift: { run: runDrift, options: ["other-stack"] },
  repair: { run: runRepair, options: ["dry-run"] },
  reconcile: { run: runReconcile, options: ["once", "interval", "remediate", "other-stack"] },
  adopt: { run: runAdopt, options: ["game", "environment", "tag", "out", "name-tag", "other-stack"] },
  sweep: { run: runSweep, options: ["game", "environment", "tag", "delete", "yes"] },
};

/** What each option taking a value takes, as the helps write it. */
const VALUE_OF: Partial<Record<Option, string>> = {
  game: "ID",
  environment: "ID",
  tag: "KEY=VALUE",
  out: "FILE",
  "name-tag": "KEY",
  interval: "D",
  cwd: "DIR",
  stack: "NAME",
  "other-stack": "NAME",
};

/** The options `command` takes, as its help names them. */
function optionsTaken(command: string): string | undefined {
  const entry = COMMANDS[command];
  return entry
    ? [...entry.options, ...EVERY_COMMAND].map((o) => (o === "help" ? "-h/--help" : `--${o}`)).join(", ")
    : undefined;
}

/**
 * The one line of a command line `parseArgs` refused (an unknown option, an option without its value):
 * Node's own message ("Unknown option '--bogus'. To specify a positional argument starting with a '-', …")
 * names neither the command nor what it takes. The command is the first positional, read leniently.
 */
function parseErrorLine(argv: readonly string[], error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  let command: string | undefined;
  try {
    const lenient = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: false });
    command = lenient.positionals.find((p) => p in COMMANDS);
  } catch {
    command = undefined;
  }
  const who = command === undefined ? "gamehost" : `gamehost ${command}`;
  const see = `(see ${who} --help)`;
  const taken = command === undefined ? undefined : optionsTaken(command);
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
    const allowed =
      taken === undefined
        ? `commands: ${Object.keys(COMMANDS).join(", ")}`
        : `options of ${command}: ${taken}`;
    return `${who}: unknown option ${unknown[1]} (${allowed}) ${see}`;
  }
  const missing = /^Option '(?:-\w, )?--([\w-]+) <value>' argument missing/.exec(message);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && missing?.[1]) {
    const name = missing[1];
    const value = VALUE_OF[name as Option] ?? "a value";
    return `${who}: --${name} takes a value: --${name} ${value} ${see}`;
  }
  return `${who}: ${message.split("\n")[0]} ${see}`;
}

/** Runs `gamehost` with `argv` (without node and the script); returns the exit code. */
export async function main(
  argv: readonly string[],
  out: Print = (l) => process.stdout.write(`${l}\n`),
  err: Print = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  let parsed: ParsedArgs;
  try {
    // Strict (the default): an unknown option or a missing value is a usage error.
    parsed = parseArgs<ArgsConfig>({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      tokens: true,
    });
  } catch (error) {
    err(parseErrorLine(argv, error));
    return EXIT.usage;
  }
  const [command, ...extra] = parsed.positionals;
  const { values } = parsed;
  if (command === undefined && values.version && !values.help) {
    out(`gamehost ${PACKAGE_VERSION}`);
    return EXIT.ok;
  }
  if (command === undefined) {
    (values.help ? out : err)(HELP.main ?? "");
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const entry = COMMANDS[command];
  if (!entry) {
    err(
      `gamehost: unknown command ${JSON.stringify(command)} (commands: ${Object.keys(COMMANDS).join(", ")})`,
    );
    return EXIT.usage;
  }
  if (values.help) {
    out(HELP[command] ?? "");
    return EXIT.ok;
  }
  const taken: readonly string[] = [...EVERY_COMMAND, ...entry.options];
  const foreign = parsed.tokens.find((t) => t.kind === "option" && !taken.includes(t.name));
  if (foreign?.kind === "option") {
    err(
      `gamehost ${command}: ${foreign.rawName} is not an option of ${command} (options of ${command}: ${optionsTaken(command)}) (see gamehost ${command} --help)`,
    );
    return EXIT.usage;
  }
  if (extra.length > 0) {
    err(
      `gamehost ${command}: unexpected argument ${JSON.stringify(extra[0])} (see gamehost ${command} --help)`,
    );
    return EXIT.usage;
  }
  try {
    return await entry.run(values, out);
  } catch (error) {
    // A bad flag value is the command line's fault, as an unknown flag is: exit 2, before anything ran.
    if (error instanceof UsageError) {
      err(`gamehost ${command}: ${error.message} (see gamehost ${command} --help)`);
      return EXIT.usage;
    }
    const known = error instanceof CommandError || error instanceof GamehostError;
    const message = error instanceof Error ? error.message : String(error);
    const line = known ? message : `unexpected failure: ${message}`;
    if (values.json) out(JSON.stringify({ error: line }));
    err(`gamehost ${command}: ${line.split("\n")[0]}`);
    return EXIT.error;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`gamehost: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT.error;
    },
  );
}
