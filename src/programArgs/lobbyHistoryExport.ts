import * as pulumi from "@pulumi/pulumi";
import type * as types from "../types";

/** A span bound: a `Date`, an RFC 3339 timestamp or integer epoch milliseconds. */
export type TimeInput = Date | string | number;

/**
 * Arguments of a LobbyHistoryExport (either face). Any change exports again. The span bounds also take
 * a `Date`, which becomes its RFC 3339 string before the provider sees it.
 */
export interface LobbyHistoryExportArgs
  extends Omit<types.LobbyHistoryExportArgs, "queryStart" | "queryEnd"> {
  /**
   * Start of the span (exclusive): a `Date`, RFC 3339 or epoch ms; stored as epoch ms. A `Date` made from
   * local parts (`new Date(2026, 10, 26)`) depends on the machine's time zone: use `Date.UTC` or an offset.
   */
  queryStart: pulumi.Input<TimeInput>;
  /**
   * End of the span (inclusive), after `queryStart`: a `Date`, RFC 3339 or epoch ms; stored as epoch ms. A span
   * ending after now (on the service's clock) exports the history so far, and is not exported again as it fills.
   */
  queryEnd: pulumi.Input<TimeInput>;
}

/**
 * The arguments whose TypeScript type also takes a `Date`, which {@link lobbyHistoryExportInputs} turns into RFC 3339
 * before the provider sees it.
 */
const DATE_INPUTS = ["queryStart", "queryEnd"] as const satisfies readonly (keyof LobbyHistoryExportArgs)[];

/**
 * What these arguments take beyond the schema's types, by field; the generated reference says so (every
 * `src/programArgs/<kind>.ts` may export one).
 */
export const ACCEPTS_BEYOND_SCHEMA: Readonly<Record<string, string>> = Object.fromEntries(
  DATE_INPUTS.map((name) => [name, "a `Date`"]),
);

/**
 * A `Date` as its ISO string, anything else as it is. An invalid `Date` (`new Date("16/08/2024")`) goes as its
 * text, "Invalid Date", for the kind's check to name the field: its toISOString would throw a RangeError here,
 * in the program, whose stack trace names no field.
 */
function timeForWire(value: TimeInput): string | number {
  if (!(value instanceof Date)) return value;
  return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
}

/**
 * A `Date` serializes as `{}` (and `pulumi.output` unwraps it the same way), so it becomes its ISO
 * string here, before the SDK sees it, whether given directly, as a promise or as an output.
 */
function timeProp(value: pulumi.Input<TimeInput>): pulumi.Input<string | number> {
  if (value instanceof Date) return timeForWire(value);
  if (pulumi.Output.isInstance(value)) return value.apply(timeForWire);
  if (value instanceof Promise) return value.then(timeForWire);
  return value as string | number;
}

/** The arguments as the provider receives them: span bounds as strings or numbers. */
export function lobbyHistoryExportInputs(args: LobbyHistoryExportArgs): types.LobbyHistoryExportArgs {
  const dates = Object.fromEntries(DATE_INPUTS.map((name) => [name, timeProp(args[name])]));
  return { ...args, ...dates } as types.LobbyHistoryExportArgs;
}
