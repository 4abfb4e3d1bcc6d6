import type { FieldIssue } from "../issues";
import { describeIssues } from "../issues";
import { formatCount, MAX_KEPT_ISSUES } from "../textBounds";
import { GamehostError } from "./base";

/** A request or response that does not match the API's schema. */
export class GamehostValidationError extends GamehostError {
  override name = "GamehostValidationError";
  /** The fields at fault: the first 100 of {@link issueCount}. */
  readonly issues: readonly FieldIssue[];
  /** How many fields are at fault (found, for a value checked up to its first problem); the message lists a few. */
  readonly issueCount: number;
  /** Where the value was checked, e.g. `request body of POST /games/{game_id}/…`. */
  readonly where: string;

  /**
   * @param bounds `total`: how many fields are at fault, when `issues` holds only some; `stoppedEarly`:
   * the size (characters of its JSON text) of a value too large to check past its first problems (the message says so).
   */
  constructor(
    where: string,
    issues: readonly FieldIssue[],
    bounds: { total?: number; stoppedEarly?: number } = {},
  ) {
    const total = Math.max(bounds.total ?? 0, issues.length);
    const stopped =
      bounds.stoppedEarly !== undefined
        ? `; checking stopped at the first problem: the value has ${formatCount(bounds.stoppedEarly)} characters`
        : "";
    super(`Invalid ${where}: ${describeIssues(issues, total)}${stopped}`);
    this.where = where;
    this.issues = issues.slice(0, MAX_KEPT_ISSUES);
    this.issueCount = total;
  }
}
