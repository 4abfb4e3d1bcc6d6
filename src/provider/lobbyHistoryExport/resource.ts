import * as pulumi from "@pulumi/pulumi";

/**
 * The shared, serialized provider of every LobbyHistoryExport: loads the implementation at call
 * time (see the Server shim for why). Exported for serialization tests.
 * @internal
 */
export const lobbyHistoryExportProvider: pulumi.dynamic.ResourceProvider = {
  configure: (...a) => require("pulumi-gamehost/provider/lobby-history-export").configure(...a),
  check: (...a) => require("pulumi-gamehost/provider/lobby-history-export").check(...a),
  diff: (...a) => require("pulumi-gamehost/provider/lobby-history-export").diff(...a),
  create: (...a) => require("pulumi-gamehost/provider/lobby-history-export").create(...a),
  read: (...a) => require("pulumi-gamehost/provider/lobby-history-export").read(...a),
  delete: (...a) => require("pulumi-gamehost/provider/lobby-history-export").delete(...a),
};

/** A span bound: a `Date`, an RFC 3339 timestamp or integer epoch milliseconds. */
export type TimeInput = Date | string | number;

/** Arguments of a {@link LobbyHistoryExport}. Any change exports again. */
export interface LobbyHistoryExportArgs {
  /** UUID of the game whose lobby history (every environment) is exported. */
  gameId: pulumi.Input<string>;
  /** Start of the span; stored as epoch ms. */
  queryStart: pulumi.Input<TimeInput>;
  /** End of the span, after `queryStart`; stored as epoch ms. */
  queryEnd: pulumi.Input<TimeInput>;
  /** Arbitrary values; a change to any of them exports again (e.g. `{ day: "2026-11-22" }`). */
  triggers?: pulumi.Input<Record<string, pulumi.Input<unknown>>>;
  /** Download the CSV once and record `rowCount`, `byteLength` and `sha256` (default false). */
  summarize?: pulumi.Input<boolean>;
}

function timeForWire(value: TimeInput): string | number {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * A `Date` serializes as `{}` (and `pulumi.output` unwraps it the same way), so it becomes its ISO
 * string here, before the SDK sees it, whether given directly, as a promise or as an output.
 */
function timeProp(value: pulumi.Input<TimeInput>): pulumi.Input<string | number> {
  if (value instanceof Date) return value.toISOString();
  if (pulumi.Output.isInstance(value)) return value.apply(timeForWire);
  if (value instanceof Promise) return value.then(timeForWire);
  return value as string | number;
}

/**
 * An export of a game's matchmaker lobby history for a time span, as a CSV file behind a presigned URL
 * valid for one hour (`pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport`). The URL is a secret.
 */
export class LobbyHistoryExport extends pulumi.dynamic.Resource {
  /** UUID of the game. */
  declare readonly gameId: pulumi.Output<string>;
  /** Start of the span, epoch ms. */
  declare readonly queryStart: pulumi.Output<number>;
  /** End of the span, epoch ms. */
  declare readonly queryEnd: pulumi.Output<number>;
  /** The triggers as declared. */
  declare readonly triggers: pulumi.Output<Record<string, unknown> | undefined>;
  /** Whether the CSV was summarized. */
  declare readonly summarize: pulumi.Output<boolean | undefined>;
  /** Presigned URL of the CSV (secret: whoever has it can read the file). */
  declare readonly url: pulumi.Output<string>;
  /** When the export was made (RFC 3339). */
  declare readonly exportedAt: pulumi.Output<string>;
  /** When the URL stops working: one hour after `exportedAt` (RFC 3339). */
  declare readonly expiresAt: pulumi.Output<string>;
  /** Data rows in the CSV (header excluded), with `summarize`. */
  declare readonly rowCount: pulumi.Output<number | undefined>;
  /** Size of the CSV in bytes, with `summarize`. */
  declare readonly byteLength: pulumi.Output<number | undefined>;
  /** SHA-256 of the CSV, hex, with `summarize`. */
  declare readonly sha256: pulumi.Output<string | undefined>;

  constructor(name: string, args: LobbyHistoryExportArgs, opts?: pulumi.CustomResourceOptions) {
    const props = {
      ...args,
      queryStart: timeProp(args.queryStart),
      queryEnd: timeProp(args.queryEnd),
      url: undefined,
      exportedAt: undefined,
      expiresAt: undefined,
      rowCount: undefined,
      byteLength: undefined,
      sha256: undefined,
    };
    const secretOpts = pulumi.mergeOptions(opts, { additionalSecretOutputs: ["url"] });
    super(lobbyHistoryExportProvider, name, props, secretOpts, "gamehost", "LobbyHistoryExport");
  }
}
