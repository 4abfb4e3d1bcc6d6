import * as pulumi from "@pulumi/pulumi";
import type * as types from "../types";
import {
  lobbyHistoryExportComputedOutputs,
  lobbyHistoryExportInputProperties,
  lobbyHistoryExportSecretOutputs,
} from "../types";
import { exportInputs, type LobbyHistoryExportArgs } from "../typescript/lobbyHistoryExportArgs";
import { registeredInputs } from "../typescript/registration";

export type { LobbyHistoryExportArgs, TimeInput } from "../typescript/lobbyHistoryExportArgs";

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

// The output properties come from the package schema, merged into the class (see the Server class).
export interface LobbyHistoryExport extends types.LobbyHistoryExportOutputs {}

/**
 * An export of a game's matchmaker lobby history for a time span, as a CSV file behind a presigned URL
 * valid for one hour (`pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport`). The URL is a secret.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merge only adds the outputs the SDK sets
export class LobbyHistoryExport extends pulumi.dynamic.Resource {
  constructor(name: string, args: LobbyHistoryExportArgs, opts?: pulumi.CustomResourceOptions) {
    const props = registeredInputs(
      exportInputs(args),
      {},
      lobbyHistoryExportInputProperties,
      lobbyHistoryExportComputedOutputs,
    );
    const secretOpts = pulumi.mergeOptions(opts, {
      additionalSecretOutputs: [...lobbyHistoryExportSecretOutputs],
    });
    super(lobbyHistoryExportProvider, name, props, secretOpts, "gamehost", "LobbyHistoryExport");
  }
}
