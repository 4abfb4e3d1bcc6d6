import { z } from "zod";
import { describeIssues } from "../api/issues";
import { toFieldIssues } from "../api/validate";
import {
  DEFAULT_RETRY_AFTER_MS,
  FAULT_KINDS,
  FAULT_STATUSES,
  type FaultController,
  type FaultSpec,
  MAX_FAULT_COUNT,
  MAX_FAULT_LATENCY_MS,
  MAX_RETRY_AFTER_MS,
  type PendingFault,
} from "./faultTypes";
import { MAX_GLOB_LENGTH, PathGlob } from "./pathGlob";

/**
 * Most faults pending at once: every routed request is matched against each, so the queue's length
 * is a cost on every request (a fault hits many requests through `count`, not by repetition).
 */
export const MAX_PENDING_FAULTS = 100;

/**
 * JSON form of {@link FaultSpec} taken by `POST /__admin/faults`: paths by string or glob. A regular
 * expression is refused (`pathRegex`, which this route once took): one from a request could freeze
 * the emulator by catastrophic backtracking (see {@link PathGlob}).
 */
export const FaultSpecJson = z
  .strictObject({
    method: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    pathGlob: z.string().min(1).max(MAX_GLOB_LENGTH).optional(),
    pathRegex: z
      .never({
        error:
          'is not accepted (a regular expression could hang the emulator): use pathGlob, e.g. "/cloud/games/*" or "/games/**"',
      })
      .optional(),
    kind: z.enum(FAULT_KINDS),
    count: z
      .number()
      .int()
      .min(1)
      .max(MAX_FAULT_COUNT, { error: `must be at most ${MAX_FAULT_COUNT}` })
      .optional(),
    retryAfter: z.enum(["date", "seconds"]).optional(),
    retryAfterMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_RETRY_AFTER_MS, {
        error: `must be at most ${MAX_RETRY_AFTER_MS} (100 years), so that retry-after is a valid date`,
      })
      .optional(),
    latencyMs: z.number().int().min(0).max(MAX_FAULT_LATENCY_MS).optional(),
    status: z
      .union(
        FAULT_STATUSES.map((s) => z.literal(s)),
        { error: `must be ${FAULT_STATUSES.slice(0, -1).join(", ")} or ${FAULT_STATUSES.at(-1)}` },
      )
      .optional(),
  })
  .refine((spec) => spec.path === undefined || spec.pathGlob === undefined, {
    error: "give path or pathGlob, not both",
    path: ["pathGlob"],
  })
  .refine((spec) => spec.retryAfter === undefined || spec.kind === "rate_limit", {
    error: 'is only for kind "rate_limit"',
    path: ["retryAfter"],
  })
  .refine((spec) => spec.retryAfterMs === undefined || spec.kind === "rate_limit", {
    error: 'is only for kind "rate_limit"',
    path: ["retryAfterMs"],
  })
  .refine((spec) => spec.latencyMs === undefined || spec.kind === "latency", {
    error: 'is only for kind "latency"',
    path: ["latencyMs"],
  })
  .refine((spec) => spec.status === undefined || spec.kind === "error_status", {
    error: 'is only for kind "error_status"',
    path: ["status"],
  });

/** A pending fault with its glob compiled. */
type QueuedFault = PendingFault & { glob?: PathGlob };

/** Thrown when the queue already holds {@link MAX_PENDING_FAULTS}; the admin route answers it with a 400. */
export class FaultQueueFull extends Error {
  constructor() {
    super(
      `Invalid fault: the queue holds ${MAX_PENDING_FAULTS} pending faults, the most it takes; clear them (DELETE /__admin/faults), or give a fault a count instead of injecting it again.`,
    );
    this.name = "FaultQueueFull";
  }
}

/** Queue of injected faults; the first pending one that matches a request takes it. */
export class FaultQueue implements FaultController {
  private faults: QueuedFault[] = [];

  inject(spec: FaultSpec): void {
    const parsed = FaultSpecJson.safeParse({
      method: spec.method,
      ...(typeof spec.path === "string" ? { path: spec.path } : {}),
      pathGlob: spec.pathGlob,
      kind: spec.kind,
      count: spec.count,
      retryAfter: spec.retryAfter,
      retryAfterMs: spec.retryAfterMs,
      latencyMs: spec.latencyMs,
      status: spec.status,
    });
    if (!parsed.success) throw new Error(`Invalid fault: ${describeIssues(toFieldIssues(parsed.error))}`);
    if (spec.path instanceof RegExp && spec.pathGlob !== undefined)
      throw new Error("Invalid fault: give path or pathGlob, not both");
    if (this.faults.length >= MAX_PENDING_FAULTS) throw new FaultQueueFull();
    this.faults.push({
      ...(spec.method ? { method: spec.method.toUpperCase() } : {}),
      ...(spec.path !== undefined ? { path: spec.path } : {}),
      ...(spec.pathGlob !== undefined ? { pathGlob: spec.pathGlob, glob: new PathGlob(spec.pathGlob) } : {}),
      kind: spec.kind,
      remaining: spec.count ?? 1,
      // Each kind carries its own settings only: a listed latency fault names no retry-after.
      ...(spec.kind === "rate_limit"
        ? { retryAfter: spec.retryAfter ?? "date", retryAfterMs: spec.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS }
        : {}),
      ...(spec.kind === "latency" ? { latencyMs: spec.latencyMs ?? 1000 } : {}),
      ...(spec.kind === "error_status" ? { status: spec.status ?? 503 } : {}),
    });
  }

  clear(): void {
    this.faults = [];
  }

  pending(): PendingFault[] {
    return this.faults.map(({ glob: _compiled, ...f }) => ({ ...f }));
  }

  /** Takes one use of the first fault matching the request, if any. */
  take(method: string, pathname: string, pattern: string | undefined): PendingFault | undefined {
    if (this.faults.length === 0) return undefined;
    const index = this.faults.findIndex((f) => {
      if (f.method && f.method !== method) return false;
      if (f.glob) return f.glob.test(pathname);
      if (f.path === undefined) return true;
      if (typeof f.path === "string") return f.path === pathname || f.path === pattern;
      f.path.lastIndex = 0;
      return f.path.test(pathname);
    });
    const fault = this.faults[index];
    if (!fault) return undefined;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    const { glob: _compiled, ...taken } = fault;
    return taken;
  }
}
