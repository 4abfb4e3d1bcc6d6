// What `pulumi-gamehost/emulator` declares about faults, without zod (see fixtureTypes.ts for why); the
// queue and the admin route's JSON schema are in faults.ts.

import { FURTHEST_AHEAD_MS } from "./clock";

/** What an injected fault does to a matching request. */
export const FAULT_KINDS = [
  "rate_limit",
  "error_500",
  "hang",
  "reset",
  "commit_then_reset",
  "commit_then_500",
  "latency",
  "error_status",
] as const;
/** One of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Largest `retryAfterMs`: 100 years, so the instant it names is always a valid HTTP date. */
export const MAX_RETRY_AFTER_MS = FURTHEST_AHEAD_MS;

/** `retryAfterMs` of a `rate_limit` fault that names none. */
export const DEFAULT_RETRY_AFTER_MS = 1000;

/** Largest `count`: a fault that never runs out is as good as one this large. */
export const MAX_FAULT_COUNT = 1_000_000_000;

/** A fault for the next `count` requests matching `method` and `path`. */
export interface FaultSpec {
  /** HTTP method to match (any when omitted). */
  method?: string;
  /**
   * Path to match (any when omitted): a string equals either the request path or the route
   * pattern (e.g. `/games/:game/environments/:env/servers`); a RegExp (your own code, run in your
   * process) is tested on the request path.
   */
  path?: string | RegExp;
  /** Glob the request path must match, as the emulator's `PathGlob` reads it (`*` within a segment, `**` across). */
  pathGlob?: string;
  /** What the fault does to a matching request (see {@link FAULT_KINDS}). */
  kind: FaultKind;
  /** How many matching requests it hits, 1 to {@link MAX_FAULT_COUNT}; default 1. */
  count?: number;
  /** `rate_limit` only: `retry-after` as an HTTP date (default) or in seconds. */
  retryAfter?: "date" | "seconds";
  /** `rate_limit` only: how far ahead `retry-after` points, in ms, 0 to {@link MAX_RETRY_AFTER_MS}; default 1000. */
  retryAfterMs?: number;
  /** `latency` only: how long the request waits before it is served as usual, in ms; default 1000. */
  latencyMs?: number;
  /** `error_status` only: the status answered (a server or gateway failure); default 503. */
  status?: FaultStatus;
}

/** Statuses an `error_status` fault can answer: the failures a client meets from the service or its gateway. */
export const FAULT_STATUSES = [500, 502, 503, 504] as const;
/** One of {@link FAULT_STATUSES}. */
export type FaultStatus = (typeof FAULT_STATUSES)[number];

/** Longest injected latency: below the service's 50 s request time cap, so a delayed request still answers. */
export const MAX_FAULT_LATENCY_MS = 45_000;

/** A fault still waiting for requests, as `pending()` lists it. */
export interface PendingFault {
  /** The HTTP method it matches (any when absent). */
  method?: string;
  /** The path or route pattern it matches, as injected (any when absent). */
  path?: string | RegExp;
  /** The path glob it matches, as injected. */
  pathGlob?: string;
  /** What it does to a matching request. */
  kind: FaultKind;
  /** Matching requests it still hits. */
  remaining: number;
  /** `rate_limit` faults only. */
  retryAfter?: "date" | "seconds";
  /** `rate_limit` faults only. */
  retryAfterMs?: number;
  /** `latency` faults only. */
  latencyMs?: number;
  /** `error_status` faults only. */
  status?: FaultStatus;
}

/** Injects failures into the next matching requests; test code and the admin route share it. */
export interface FaultController {
  /** Queues `spec` after the faults already waiting; throws on an invalid spec (naming the field) or a full queue. */
  inject(spec: FaultSpec): void;
  /** Drops every waiting fault. */
  clear(): void;
  /** The faults still waiting, in the order they hit. */
  pending(): PendingFault[];
}
