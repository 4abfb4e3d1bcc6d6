/**
 * How a fleet's failures are worded: one reason said once for all the servers it hit, and a batch's failure
 * kept apart until the run has recorded what exists.
 */

import { causeOf, requestOf } from "../../api/errors";

export const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Most labels a reason names: past them, the first {@link LABELS_NAMED} and a count. A 100-server fleet's
 * destroy past the DELETE limit fails 50 and more servers alike; every id named made one line of thousands
 * of characters, the diagnostics' whole screen.
 */
const MAX_LABELS = 8;
const LABELS_NAMED = 5;

const labelList = (labels: readonly string[]) =>
  labels.length <= MAX_LABELS
    ? labels.join(", ")
    : `${labels.slice(0, LABELS_NAMED).join(", ")} and ${labels.length - LABELS_NAMED} more`;

/** An instant as the messages write it (`toISOString`). */
const INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;

/**
 * Failures of many servers, one entry per reason: a batch refused by one rate-limit window fails every
 * server with the same words, which said once per server buried the rest of the message. Reasons that
 * differ only in their closing `[request: status code, ray id]` are one reason, shown with the first
 * server's request. So are reasons that differ only in the instants they name: each refusal's `Retry-After`
 * is a whole second after its own answer, so one window's refusals straddling a second name instants a
 * second apart; the latest is shown, after which every one of them has passed.
 */
export function bySameReason(failed: ReadonlyArray<readonly [label: string, reason: string]>): string[] {
  /** `cause`: the reason less its request; `request`: the first server's. */
  const groups = new Map<string, { labels: string[]; cause: string; request: string }>();
  for (const [label, reason] of failed) {
    const cause = causeOf(reason);
    const key = cause.replace(INSTANT, "<instant>");
    const group = groups.get(key);
    if (!group) groups.set(key, { labels: [label], cause, request: requestOf(reason) });
    else {
      group.labels.push(label);
      // Same-shaped ISO instants order as text.
      if (cause > group.cause) group.cause = cause;
    }
  }
  return [...groups.values()].map(({ labels, cause, request }) => `${labelList(labels)}: ${cause}${request}`);
}

/**
 * What a fleet's destroy says went wrong: the deletes that failed, grouped by reason, of `attempted`, and
 * the failed list of the live servers the state missed; that list's failure is said once, when it shares
 * the deletes' cause (a service that does not answer fails both alike).
 */
export function destroyProblems(
  failed: ReadonlyArray<readonly [serverId: string, reason: string]>,
  attempted: number,
  listFailure: string | undefined,
): string[] {
  const problems: string[] = [];
  if (failed.length > 0) {
    problems.push(
      `Deleting the fleet's servers failed for ${failed.length} of ${attempted} (${bySameReason(failed).join("; ")}).`,
    );
  }
  if (listFailure !== undefined) {
    const listing = "Listing the fleet's live servers (to delete those the state missed)";
    const shared = failed.some(([, reason]) => causeOf(reason) === causeOf(listFailure));
    problems.push(
      shared ? `${listing} failed too, for the same reason.` : `${listing} failed: ${listFailure}`,
    );
  }
  return problems;
}

/** Failures of one datacenter's batch, kept until the run records what exists. */
export class BatchFailed extends Error {}

/** What a datacenter's failed run adds to the fleet's message. */
export const failureOf = (error: unknown) => (error instanceof BatchFailed ? error.message : reasonOf(error));
