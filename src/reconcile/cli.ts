#!/usr/bin/env node
/**
 * `gamehost`: keeps a stack's hosting configuration reconciled, on Pulumi's Automation API (the real
 * `pulumi` on PATH does every deployment). Exit codes: 0 done (no drift), 1 error, 2 usage, 3 drift.
 */
import { parseArgs } from "node:util";
import { GamehostError } from "../api/errors";
import { PACKAGE_VERSION } from "../version";
import { stackClient } from "./connection";
import { repair, repairLines } from "./repair";
import { CommandError, openStack } from "./workspace";

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
  repair   resolve the creates a hard interruption left pending (import the server each made, or clear it)

Run \`gamehost <command> --help\` for a command's options and exit codes.`,
  repair: `Usage: gamehost repair [--dry-run] [options]

Resolves the pending creates a hard interruption (a second Ctrl-C, a killed CI job) left in the stack's
state: the server each create made (found by the idempotency key recorded in its inputs) is recorded in
the state and refreshed, and a create that made no live server is cleared. After it, \`pulumi up\`
creates nothing twice.

  --dry-run      report what would be done, change nothing

Exit codes: 0 repaired (or nothing to repair), 1 error, 2 usage.

${COMMON}`,
};

const OPTIONS = {
  cwd: { type: "string" },
  stack: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
  "dry-run": { type: "boolean", default: false },
} as const;

type Print = (line: string) => void;

async function runRepair(values: ParsedValues, out: Print): Promise<number> {
  const stack = await openStack({ cwd: values.cwd ?? process.cwd(), stack: values.stack });
  const client = await stackClient(stack);
  const report = await repair(stack, client, values["dry-run"]);
  if (values.json) out(JSON.stringify(report));
  else for (const line of repairLines(report)) out(line);
  return EXIT.ok;
}

interface ParsedValues {
  cwd?: string | undefined;
  stack?: string | undefined;
  json: boolean;
  help: boolean;
  "dry-run": boolean;
}

const COMMANDS: Record<string, (values: ParsedValues, out: Print) => Promise<number>> = {
  repair: runRepair,
};

/** Runs `gamehost` with `argv` (without node and the script); returns the exit code. */
export async function main(
  argv: readonly string[],
  out: Print = (l) => process.stdout.write(`${l}\n`),
  err: Print = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    err(`gamehost: ${error instanceof Error ? error.message : String(error)} (see gamehost --help)`);
    return EXIT.usage;
  }
  const [command, ...extra] = parsed.positionals;
  const values = parsed.values as ParsedValues;
  if (command === undefined) {
    (values.help ? out : err)(HELP.main ?? "");
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const run = COMMANDS[command];
  if (!run) {
    err(
      `gamehost: unknown command ${JSON.stringify(command)} (commands: ${Object.keys(COMMANDS).join(", ")})`,
    );
    return EXIT.usage;
  }
  if (values.help) {
    out(HELP[command] ?? "");
    return EXIT.ok;
  }
  if (extra.length > 0) {
    err(
      `gamehost ${command}: unexpected argument ${JSON.stringify(extra[0])} (see gamehost ${command} --help)`,
    );
    return EXIT.usage;
  }
  try {
    return await run(values, out);
  } catch (error) {
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
