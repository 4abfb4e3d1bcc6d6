/**
 * `gamehost reconcile`: a loop of passes over one stack. Each pass runs `repair`, then `drift`, and with
 * `remediate` a `pulumi up --refresh` when something the state tracks drifted (strays are reported, never
 * deleted: that is `gamehost sweep`). Passes run every `intervalMs`, and early when the service's watch
 * reports a change to a game the stack's servers belong to. A stop request (SIGINT, SIGTERM) is honoured
 * between passes, never during one. The backend's lock keeps two reconcilers (or a person's `pulumi up`)
 * from updating one stack at once: a locked stack fails the pass with a line saying so.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import type { GamehostClient } from "../api/client";
import { type DriftReport, drift, exportedState, hasDrift, stateServerDeclarers } from "./drift";
import { CommandError, UsageError } from "./errors";
import { type RepairReport, repairStack } from "./repair";
import { serverScope } from "./state";
import { cliMessage, isLocked, lockError } from "./workspace";

export interface PassResult {
  pass: number;
  /** What started it: the first pass, the interval, or the watch of a game. */
  trigger: "start" | "interval" | "watch";
  startedAt: string;
  durationMs: number;
  repaired: number;
  /** Fleets whose cut-short update repair refreshed: recorded as they are, not as declared, until an `up`. */
  unfinished?: number;
  /**
   * Pending creates repair resolved (recorded, or cleared as never made): the `up` they were part of was cut
   * short, so what it had still to do (a cleared create's server, the servers it had not reached) is done by
   * an `up` only; a refresh, and so drift, sees none of it.
   */
  unfinishedCreates?: number;
  drift?: DriftReport;
  /** Resource changes of the remediating `up`, by operation (`create: 1`, `delete: 1`…). */
  remediated?: Record<string, number>;
  error?: string;
}

/** A pass's line, for people. */
export function passLine(r: PassResult): string {
  const head = `${r.startedAt} pass ${r.pass} (${r.trigger}, ${(r.durationMs / 1000).toFixed(1)}s):`;
  if (r.error !== undefined) return `${head} error: ${r.error}`;
  const d = r.drift;
  const found = d
    ? hasDrift(d)
      ? `drift: ${d.drifted.map((x) => `${x.kind} ${x.name}`).join(", ") || "none tracked"}` +
        (d.strays.length > 0 ? `; ${d.strays.length} strays` : "") +
        (d.pendingCreates.length > 0 ? `; ${d.pendingCreates.length} pending creates` : "") +
        (d.pendingDeletes.length > 0 ? `; ${d.pendingDeletes.length} pending deletes` : "")
      : "no drift"
    : "";
  const unfinished =
    (r.unfinished
      ? `; ${r.unfinished} interrupted fleet update${r.unfinished === 1 ? "" : "s"} to finish`
      : "") +
    (r.unfinishedCreates
      ? `; ${r.unfinishedCreates} interrupted create${r.unfinishedCreates === 1 ? "" : "s"} to finish`
      : "");
  const fixed = r.remediated
    ? `; remediated by up (${
        Object.entries(r.remediated)
          .filter(([op]) => op !== "same")
          .map(([op, n]) => `${op} ${n}`)
          .join(", ") || "no changes"
      })`
    : "";
  const repaired = r.repaired > 0 ? `repaired ${r.repaired} pending operations; ` : "";
  return `${head} ${repaired}${found}${unfinished}${fixed}`;
}

/** One pass: repair, drift, and with `remediate` an `up --refresh` when a tracked resource drifted. */
export async function reconcilePass(
  stack: Stack,
  client: GamehostClient,
  options: {
    remediate: boolean;
    pass: number;
    trigger: PassResult["trigger"];
    /** Stacks whose servers are not this stack's strays (drift's `--other-stack`). */
    others?: readonly Stack[];
  },
): Promise<PassResult> {
  const started = Date.now();
  const base = {
    pass: options.pass,
    trigger: options.trigger,
    startedAt: new Date(started).toISOString(),
  };
  let repaired: RepairReport | undefined;
  try {
    const repairing = await repairStack(stack, client);
    repaired = repairing.report;
    // The state repair read, when it wrote none: drift reads it from there, not from another export.
    const report = await drift(stack, client, options.others, repairing.unchanged);
    // A fleet whose cut-short update repair refreshed matches the service now, so drift finds nothing there; it
    // is still not as declared (the update's servers run on): an `up` finishes or undoes that update.
    const unfinished = repaired.outcomes.filter((o) => o.action === "refreshed").length;
    // Likewise a resolved pending create: a cleared one's server is declared, in no state and not on the
    // service, which drift cannot see; only an `up` makes it (and whatever else the cut-short `up` had left).
    const unfinishedCreates = repaired.outcomes.filter(
      (o) => o.action === "imported" || o.action === "cleared",
    ).length;
    const result: PassResult = {
      ...base,
      durationMs: 0,
      repaired: repaired.outcomes.filter((o) => o.action !== "kept").length,
      ...(unfinished > 0 ? { unfinished } : {}),
      ...(unfinishedCreates > 0 ? { unfinishedCreates } : {}),
      drift: report,
    };
    const untidy =
      report.drifted.length +
      report.pendingCreates.length +
      report.pendingDeletes.length +
      unfinished +
      unfinishedCreates;
    if (options.remediate && untidy > 0) {
      // The Automation API reads the run's summary after it (`stack history`): without showSecrets: false it
      // passes --show-secrets, and decrypts every secret of the stack's history for counts that hold none.
      const up = await stack.up({ refresh: true, showSecrets: false });
      result.remediated = Object.fromEntries(
        Object.entries(up.summary.resourceChanges ?? {}).map(([op, n]) => [op, Number(n)]),
      );
      // The engine's summary leaves out the deletes of resources kept for deletion, which an up that
      // succeeds has made (its step is `delete-replaced`): counted here, else the line says "no changes".
      if (report.pendingDeletes.length > 0)
        result.remediated["delete-replaced"] =
          (result.remediated["delete-replaced"] ?? 0) + report.pendingDeletes.length;
    }
    result.durationMs = Date.now() - started;
    return result;
  } catch (error) {
    const failure = isLocked(error) ? lockError(stack, error) : error;
    const message =
      failure instanceof CommandError || failure instanceof Error ? failure.message : String(failure);
    return {
      ...base,
      durationMs: Date.now() - started,
      repaired: repaired?.outcomes.filter((o) => o.action !== "kept").length ?? 0,
      error: failure instanceof CommandError ? message : cliMessage(failure),
    };
  }
}

/** The ids of the games the stack's servers (its Servers' and Fleets') belong to: the game data whose changes start a pass early. */
export async function watchedGames(stack: Stack): Promise<string[]> {
  const servers = stateServerDeclarers(await exportedState(stack));
  return [...new Set(servers.flatMap((s) => serverScope(s)?.gameId ?? []))];
}

export interface LoopOptions {
  remediate: boolean;
  /** Stacks whose servers are not this stack's strays (`--other-stack`). */
  others?: readonly Stack[];
  intervalMs: number;
  once: boolean;
  /** Called with each pass's result, as it ends. */
  onPass: (r: PassResult) => void;
  /** Called with a line about the loop itself (a watch that failed). */
  onNotice: (line: string) => void;
  /** Aborted on a stop request: the loop ends after the pass under way. */
  stop: AbortSignal;
}

/** Runs passes until `once` is done or `stop` fires between passes; returns the last pass. */
export async function reconcileLoop(
  stack: Stack,
  client: GamehostClient,
  o: LoopOptions,
): Promise<PassResult | undefined> {
  let wake: ((trigger: PassResult["trigger"]) => void) | undefined;
  let pendingWatch = false;
  const watches = new AbortController();
  const stopWatches = () => watches.abort();
  o.stop.addEventListener("abort", stopWatches);
  if (!o.once) {
    for (const gameId of await watchedGames(stack).catch(() => [] as string[])) {
      void (async () => {
        let first = true;
        try {
          for await (const _version of client.watchGame(gameId, { signal: watches.signal })) {
            if (first) {
              first = false;
              continue;
            }
            pendingWatch = true;
            wake?.("watch");
          }
        } catch (error) {
          if (!watches.signal.aborted) {
            o.onNotice(
              `watch of game ${gameId} ended: ${error instanceof Error ? error.message : String(error)}; passes keep their interval`,
            );
          }
        }
      })();
    }
  }
  let last: PassResult | undefined;
  let trigger: PassResult["trigger"] = "start";
  try {
    for (let pass = 1; ; pass++) {
      pendingWatch = false;
      last = await reconcilePass(stack, client, {
        remediate: o.remediate,
        pass,
        trigger,
        ...(o.others ? { others: o.others } : {}),
      });
      o.onPass(last);
      if (o.once || o.stop.aborted) return last;
      trigger = await new Promise<PassResult["trigger"]>((resolve) => {
        const timer = setTimeout(() => done("interval"), o.intervalMs);
        const onStop = () => done("interval");
        function done(t: PassResult["trigger"]) {
          clearTimeout(timer);
          o.stop.removeEventListener("abort", onStop);
          wake = undefined;
          resolve(t);
        }
        o.stop.addEventListener("abort", onStop);
        wake = done;
        // A change seen during the pass starts the next one at once.
        if (pendingWatch) done("watch");
      });
      if (o.stop.aborted) return last;
    }
  } finally {
    o.stop.removeEventListener("abort", stopWatches);
    watches.abort();
  }
}

/** What `--interval` takes, for its usage error. */
export const INTERVAL_FORM = "a duration from 1s to 24h, such as 30s, 5m or 1h";

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/**
 * `5s`, `2m`, `1h`, `1500ms` or plain seconds, as ms; anything else is a usage error. Under 1 s a loop
 * would only hammer the backend; over 24 h is a job for cron with `--once` (and past ~24.8 days Node's
 * timers fire at once).
 */
export function parseInterval(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[(match[2] ?? "s") as keyof typeof UNIT_MS] : Number.NaN;
  if (!(ms >= 1_000 && ms <= 86_400_000))
    throw new UsageError(`--interval ${JSON.stringify(text)}: expected ${INTERVAL_FORM}`);
  return ms;
}
