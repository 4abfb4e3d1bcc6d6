/**
 * Fault campaign: the fleet program (3 servers) goes through up, refresh and destroy in the real language
 * host and provider processes — the dynamic-provider host or the plugin, one test file per face, so the
 * two run in parallel — while the emulator injects one kind of fault per case into the server routes.
 * After the faulted runs, faults are cleared, `up` is run again and then `destroy`; at each point the
 * servers alive in the emulator are compared with the checkpoint. No case may leave an orphan (a live
 * server the stack does not know) or a duplicate (two live servers for one resource), and no case may
 * ever create more servers than the program declares. The figures are printed as a table at the end
 * (docs/reliability.md quotes them).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customSteps, type RunResult, Stack } from "../../harness/src";
import type { FaultSpec, RequestLogEntry, RunningEmulator } from "../../src/emulator";
import { startTestEmulator } from "../support/emulator";
import {
  type Census,
  census,
  type Face,
  FLEET_PROGRAM,
  failedAnswers,
  fleetConfig,
  fleetKey,
  ROUTE_LABELS,
  ROUTES,
  type RouteName,
  routeCounts,
  SERVER_TYPE,
} from "./fleet";

/** Servers the fleet declares. */
const COUNT = 3;
/** `gamehost:requestTimeoutMs` of the hang case: the client gives up on a silent request after this. */
const CLIENT_TIMEOUT_MS = 1_000;
/** The emulator's own cap on a request, so hung requests end (the service's is 50 s). */
const REQUEST_CAP_MS = 2_500;

type Phase = "up" | "refresh" | "destroy";

/** A fault aimed at one route: `count` requests of it get `kind`. */
function at(
  route: RouteName,
  kind: FaultSpec["kind"],
  count: number,
  extra: Partial<FaultSpec> = {},
): FaultSpec {
  return { ...ROUTES[route], kind, count, ...extra };
}

interface FaultCase {
  /** The fault, as the table names it. */
  name: string;
  /** Tag of the case's servers (and part of their idempotency key, so cases never meet). */
  tag: string;
  /** Faults of each run; a phase left out of `refresh` is not run. */
  faults: Partial<Record<Phase, FaultSpec[]>>;
  /** Extra stack config (client settings, program knobs) for the whole case. */
  config?: Record<string, string>;
  /** Started with the faulted `up`; gets the injector, returns a stop function. */
  duringUp?: (inject: (spec: FaultSpec) => void) => () => void;
  beforeUp?: () => void;
  /** Runs before the recovery `up`, after the faulted `refresh`. */
  beforeRecovery?: () => void;
  /** Faulted runs that must fail; every other faulted run must succeed. */
  fails?: Phase[];
  /**
   * The faulted `up` replaces every server (`up --replace <urn>`) of a fleet first brought up without
   * faults: a replacement is checked as a new resource, and must never adopt the server it replaces.
   */
  replaceAll?: boolean;
}

let emulator: RunningEmulator;
let stack: Stack;
let stateDir: string;
/** The face this file's campaign runs through. */
let face: Face;

/**
 * The fewest requests each run needs per route: a create looks its key up, POSTs and polls at least once
 * (the create answer is never placed yet); a refresh GETs each server, a destroy DELETEs each.
 */
const MINIMUM: Record<Phase, Record<RouteName, number>> = {
  up: { create: COUNT, list: COUNT, get: COUNT, delete: 0 },
  refresh: { create: 0, list: 0, get: COUNT, delete: 0 },
  destroy: { create: 0, list: 0, get: 0, delete: COUNT },
};

interface RunFigures {
  case: string;
  phase: Phase;
  /** What was injected, e.g. `POST create ×2`. */
  fault: string;
  /** Faults that hit a request (injected minus still pending). */
  taken: number;
  /** Requests the emulator answered with a failure or dropped. */
  failed: number;
  /** Requests beyond the minimum of the run, per route. */
  extra: string;
  /** Sum of the extra requests. */
  extraTotal: number;
  outcome: string;
  durationMs: number;
  orphans: number;
  duplicates: number;
}

interface CaseFigures {
  case: string;
  runs: RunFigures[];
  afterRecovery: Census;
  final: Census;
  /** Every request of the case, by route. */
  requests: Record<RouteName, number>;
  durationMs: number;
}

const figures: CaseFigures[] = [];

function describeFaults(specs: readonly FaultSpec[]): string {
  if (specs.length === 0) return "none";
  return specs
    .map((s) => {
      const route = (Object.keys(ROUTES) as RouteName[]).find(
        (r) => ROUTES[r].method === s.method && ROUTES[r].path === s.path,
      );
      const retryAfter = s.kind === "rate_limit" ? ` (Retry-After ${s.retryAfter ?? "date"})` : "";
      return `${s.kind}${retryAfter} on ${route ? ROUTE_LABELS[route] : `${s.method} ${String(s.path)}`} ×${s.count ?? 1}`;
    })
    .join(" + ");
}

function extras(phase: Phase, requests: readonly RequestLogEntry[]): { text: string; total: number } {
  const counts = routeCounts(requests);
  const base = MINIMUM[phase];
  const parts: string[] = [];
  let total = 0;
  for (const route of Object.keys(counts) as RouteName[]) {
    const delta = counts[route] - base[route];
    total += delta;
    if (delta !== 0) parts.push(`${route}${delta > 0 ? "+" : ""}${delta}`);
  }
  return { text: parts.join(" ") || "0", total };
}

function outcomeOf(result: RunResult): string {
  if (!result.error) {
    const ops = customSteps(result.steps).map((s) => s.op);
    const counted = [...new Set(ops)].map((op) => `${ops.filter((o) => o === op).length} ${op}`);
    return `ok (${counted.join(", ") || "no steps"})`;
  }
  const partial = customSteps(result.steps).filter((s) => (s.initErrors?.length ?? 0) > 0).length;
  const failedSteps = customSteps(result.steps).filter((s) => s.error !== undefined).length;
  return partial > 0
    ? `failed: ${partial} partial create(s) recorded with id`
    : `failed: ${failedSteps} step(s) failed`;
}

/** Runs `op` with `specs` injected (plus whatever `during` injects), then clears every fault. */
async function faultedRun(
  c: FaultCase,
  phase: Phase,
  op: () => Promise<RunResult>,
  during?: FaultCase["duringUp"],
): Promise<{ result: RunFigures; run: RunResult }> {
  const specs = [...(c.faults[phase] ?? [])];
  emulator.faults.clear();
  emulator.resetRequests();
  let injected = 0;
  const inject = (spec: FaultSpec) => {
    emulator.faults.inject(spec);
    injected += spec.count ?? 1;
  };
  for (const spec of specs) inject(spec);
  const stop = during?.((spec) => {
    specs.push(spec);
    inject(spec);
  });
  const run = await op();
  stop?.();
  const pending = emulator.faults.pending().reduce((n, f) => n + f.remaining, 0);
  emulator.faults.clear();
  const requests = [...emulator.requests];
  const extra = extras(phase, requests);
  const after = census(emulator, stack, c.tag, face);
  return {
    run,
    result: {
      case: c.name,
      phase,
      fault: describeFaults(specs),
      taken: injected - pending,
      failed: failedAnswers(requests),
      extra: extra.text,
      extraTotal: extra.total,
      outcome: outcomeOf(run),
      durationMs: run.durationMs,
      orphans: after.orphans,
      duplicates: after.duplicates,
    },
  };
}

function configure(c: FaultCase): void {
  fs.rmSync(stack.checkpointFile, { force: true });
  for (const key of ["gamehost:maxRetries", "gamehost:requestTimeoutMs", fleetKey("readyTimeoutSeconds")]) {
    stack.removeConfig(key);
  }
  for (const [key, value] of Object.entries(fleetConfig(emulator, COUNT, c.tag, face)))
    stack.setConfig(key, value);
  for (const [key, value] of Object.entries(c.config ?? {})) stack.setConfig(key, value);
  emulator.setPlacement("auto");
}

function expectRun(c: FaultCase, faulted: { run: RunResult; result: RunFigures }): void {
  const { phase } = faulted.result;
  if (c.fails?.includes(phase)) expect(faulted.run.error, `${c.name}: ${phase} should fail`).toBeDefined();
  else expect(faulted.run.error, `${c.name}: ${phase}`).toBeUndefined();
  // Every failed answer was an injected fault: the package never provoked an error of its own (say,
  // a DELETE of a server it had already deleted, or a malformed retry).
  expect(faulted.result.failed, `${c.name}: ${phase} failed answers`).toBe(faulted.result.taken);
  expect(faulted.result.duplicates, `${c.name}: duplicates after ${phase}`).toBe(0);
}

async function runCase(c: FaultCase): Promise<CaseFigures> {
  const started = Date.now();
  configure(c);
  const runs: RunFigures[] = [];
  const all: RequestLogEntry[] = [];
  const keep = () => all.push(...emulator.requests);

  let replaced: { urn: string; id: string }[] = [];
  if (c.replaceAll) {
    const first = await stack.up();
    keep();
    expect(first.error, `${c.name}: the up before the replacement`).toBeUndefined();
    replaced = stack.resources().filter((r) => r.type === SERVER_TYPE[face]);
    expect(replaced).toHaveLength(COUNT);
  }
  c.beforeUp?.();
  const replace = replaced.map((r) => r.urn);
  const up = await faultedRun(c, "up", () => stack.up(c.replaceAll ? { replace } : {}), c.duringUp);
  keep();
  runs.push(up.result);
  expectRun(c, up);
  expect(up.result.orphans, `${c.name}: orphans after up`).toBe(0);
  if (c.replaceAll) {
    // Exactly the new servers live: none of the replaced ones, and each new one tracked.
    const live = emulator.servers().filter((s) => s.tags.campaign === c.tag && s.destroyed_at === undefined);
    expect(live.map((s) => s.id).filter((id) => replaced.some((r) => r.id === id))).toEqual([]);
    expect(census(emulator, stack, c.tag, face)).toMatchObject({ live: COUNT, recorded: COUNT, stale: 0 });
  }

  if (c.faults.refresh) {
    const refresh = await faultedRun(c, "refresh", () => stack.refresh());
    keep();
    runs.push(refresh.result);
    expectRun(c, refresh);
    // A refresh that dropped a live server from the state would make an orphan here.
    expect(refresh.result.orphans, `${c.name}: orphans after refresh`).toBe(up.result.orphans);
  }

  c.beforeRecovery?.();
  emulator.resetRequests();
  const recovery = await stack.up();
  keep();
  expect(recovery.error, `${c.name}: recovery up`).toBeUndefined();
  const afterRecovery = census(emulator, stack, c.tag, face);
  expect(afterRecovery, `${c.name}: after the recovery up`).toMatchObject({
    live: COUNT,
    recorded: COUNT,
    orphans: 0,
    duplicates: 0,
    stale: 0,
  });
  // Every recorded server is placed: the recovery up finished what the faults interrupted.
  for (const r of stack.resources().filter((r) => r.type === SERVER_TYPE[face])) {
    expect(r.outputs.startedAt, `${c.name}: ${r.urn} placed`).toEqual(expect.any(Number));
  }

  const destroy = await faultedRun(c, "destroy", () => stack.destroy());
  keep();
  runs.push(destroy.result);
  expectRun(c, destroy);
  expect(destroy.result.orphans, `${c.name}: orphans after destroy`).toBe(0);
  if (destroy.run.error) {
    emulator.resetRequests();
    const again = await stack.up();
    expect(again.error, `${c.name}: up after the failed destroy`).toBeUndefined();
    expect(census(emulator, stack, c.tag, face)).toMatchObject({ live: COUNT, orphans: 0, duplicates: 0 });
    const cleanDestroy = await stack.destroy();
    keep();
    expect(cleanDestroy.error, `${c.name}: destroy after recovery`).toBeUndefined();
  }
  const final = census(emulator, stack, c.tag, face);
  expect(final, `${c.name}: final state`).toMatchObject({ live: 0, recorded: 0, orphans: 0, duplicates: 0 });
  // Not one server more than declared (and replaced) was ever made: no duplicate existed even for a moment.
  expect(final.everCreated, `${c.name}: servers ever created`).toBe(c.replaceAll ? 2 * COUNT : COUNT);

  return {
    case: c.name,
    runs,
    afterRecovery,
    final,
    requests: routeCounts(all),
    durationMs: Date.now() - started,
  };
}

/** Injects `spec` once the first create has been dropped after committing (its answer lost). */
function afterFirstLostCreate(spec: FaultSpec): NonNullable<FaultCase["duringUp"]> {
  return (inject) => {
    const timer = setInterval(() => {
      if (emulator.requests.some((r) => r.method === "POST" && r.status === 0)) {
        clearInterval(timer);
        inject(spec);
      }
    }, 2);
    return () => clearInterval(timer);
  };
}

const CASES: FaultCase[] = [
  {
    name: "429, Retry-After as HTTP date",
    tag: "rate-limit-date",
    faults: {
      up: [at("create", "rate_limit", 2, { retryAfter: "date", retryAfterMs: 300 })],
      refresh: [at("get", "rate_limit", 1, { retryAfter: "date", retryAfterMs: 300 })],
      destroy: [at("delete", "rate_limit", 1, { retryAfter: "date", retryAfterMs: 300 })],
    },
  },
  {
    name: "429, Retry-After in seconds",
    tag: "rate-limit-seconds",
    faults: {
      up: [at("list", "rate_limit", 2, { retryAfter: "seconds", retryAfterMs: 300 })],
      refresh: [at("get", "rate_limit", 1, { retryAfter: "seconds", retryAfterMs: 300 })],
      destroy: [at("delete", "rate_limit", 1, { retryAfter: "seconds", retryAfterMs: 300 })],
    },
  },
  {
    name: "500 before the request runs",
    tag: "error-500",
    faults: {
      up: [at("create", "error_500", 2)],
      refresh: [at("get", "error_500", 2)],
      destroy: [at("delete", "error_500", 2)],
    },
  },
  {
    name: "connection reset before commit",
    tag: "reset",
    faults: {
      up: [at("create", "reset", 2)],
      refresh: [at("get", "reset", 2)],
      destroy: [at("delete", "reset", 2)],
    },
  },
  {
    name: "connection reset after commit",
    tag: "commit-then-reset",
    faults: {
      up: [at("create", "commit_then_reset", 3)],
      refresh: [at("get", "commit_then_reset", 2)],
      destroy: [at("delete", "commit_then_reset", 2)],
    },
  },
  {
    // Not on creates: a create answered with an error is one the service did not keep (issue 28 §1), so
    // the package posts it again and never adopts it; one the service kept anyway would be its own orphan.
    name: "500 after commit (reads and deletes)",
    tag: "commit-then-500",
    faults: {
      up: [at("get", "commit_then_500", 3)],
      refresh: [at("get", "commit_then_500", 2)],
      destroy: [at("delete", "commit_then_500", 2)],
    },
  },
  {
    name: `hang past the client timeout (${CLIENT_TIMEOUT_MS} ms)`,
    tag: "hang",
    config: { "gamehost:requestTimeoutMs": String(CLIENT_TIMEOUT_MS) },
    faults: {
      up: [at("create", "hang", 1), at("list", "hang", 1)],
      refresh: [at("get", "hang", 1)],
      destroy: [at("delete", "hang", 1)],
    },
  },
  {
    // Creates commit, their answers are lost and the first follow-up lookups fail too: each create
    // keeps looking its server up (by its own key) until it learns what its POST did, and adopts it.
    name: "lost create response (the first lookups fail too)",
    tag: "lost-response",
    config: { "gamehost:maxRetries": "0" },
    faults: { up: [at("create", "commit_then_reset", COUNT)] },
    duringUp: afterFirstLostCreate(at("list", "error_500", COUNT)),
  },
  {
    name: "replace every server (up --replace), no fault",
    tag: "replace-clean",
    faults: { up: [] },
    replaceAll: true,
  },
  {
    name: "replace every server (up --replace), create answers lost",
    tag: "replace-lost",
    faults: { up: [at("create", "commit_then_reset", COUNT)] },
    replaceAll: true,
  },
  {
    name: "placement never happens (readyTimeoutSeconds 1)",
    tag: "never-placed",
    config: { [fleetKey("readyTimeoutSeconds")]: "1" },
    faults: { up: [], refresh: [] },
    beforeUp: () => emulator.setPlacement("never"),
    beforeRecovery: () => emulator.setPlacement("auto"),
    fails: ["up"],
  },
  {
    name: "500 that outlasts the retries (maxRetries 1)",
    tag: "persistent-500",
    config: { "gamehost:maxRetries": "1" },
    faults: {
      up: [at("get", "error_500", 100)],
      refresh: [at("get", "error_500", 100)],
      destroy: [at("delete", "error_500", 100)],
    },
    fails: ["up", "refresh", "destroy"],
  },
];

/** Registers the campaign through one face (a test file per face). */
export function defineCampaign(campaignFace: Face): void {
  face = campaignFace;

  beforeAll(async () => {
    emulator = await startTestEmulator({ requestTimeCapMs: REQUEST_CAP_MS });
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `gamehost-faults-${face}-`));
    stack = new Stack({ programDir: FLEET_PROGRAM, checkpointFile: path.join(stateDir, "fleet.json") });
  });

  afterAll(async () => {
    // The figures behind docs/reliability.md: printed on request, so `npm test` stays quiet.
    if (process.env.GAMEHOST_CAMPAIGN_REPORT) printFigures();
    await emulator?.stop();
    if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
  });

  describe(`fault campaign through the ${face} face: no orphans, no duplicates`, () => {
    for (const c of CASES) {
      // Four to six runs per case, each spawning the language and provider hosts.
      it(c.name, { timeout: 120_000 }, async () => {
        figures.push(await runCase(c));
      });
    }
  });
}

function printFigures(): void {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const runs = figures.flatMap((f) =>
    f.runs.map((r) => [
      r.case,
      r.phase,
      r.fault,
      String(r.taken),
      r.extra,
      r.outcome,
      seconds(r.durationMs),
      String(r.orphans),
      String(r.duplicates),
    ]),
  );
  const cases = figures.map((f) => [
    f.case,
    seconds(f.durationMs),
    String(f.runs.reduce((n, r) => n + r.taken, 0)),
    f.runs.map((r) => `${r.phase} ${r.extraTotal >= 0 ? "+" : ""}${r.extraTotal}`).join(", "),
    `${f.afterRecovery.live}/${f.afterRecovery.recorded}/${f.afterRecovery.orphans}/${f.afterRecovery.duplicates}`,
    `${f.final.live}/${f.final.recorded}/${f.final.everCreated}`,
  ]);
  console.log(
    [
      `Fault campaign (${face} face): ${COUNT} servers per case, ${new Date().toISOString()}`,
      "Faulted runs (hit = faults that met a request; extra = requests beyond the run's minimum; orph/dup after the run):",
      table([["case", "run", "fault", "hit", "extra", "outcome", "time", "orph", "dup"], ...runs]),
      "",
      "Cases (after re-up = live/recorded/orphans/duplicates; final = live/recorded/ever created):",
      table([["case", "time", "hit", "extra requests", "after re-up", "final"], ...cases]),
    ].join("\n"),
  );
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows.map((r) => `| ${r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`).join("\n");
}
