import * as pulumi from "@pulumi/pulumi";
import type * as types from "../types";
import {
  lobbyHistoryExportComputedOutputs,
  lobbyHistoryExportInputProperties,
  lobbyHistoryExportSecretOutputs,
} from "../types";
import { exportInputs, type LobbyHistoryExportArgs } from "../typescript/lobbyHistoryExportArgs";
import { registeredInputs } from "../typescript/registration";

const TYPE = "gamehost:index:LobbyHistoryExport";

// The output properties come from the package schema, merged into the class, as for the dynamic face.
export interface LobbyHistoryExport extends types.LobbyHistoryExportOutputs {}

/**
 * An export of a game's matchmaker lobby history for a time span (`gamehost:index:LobbyHistoryExport`),
 * as a CSV file behind a presigned URL valid for one hour, managed by the gamehost provider plugin. The
 * URL is a secret. Any input change exports again.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merge only adds the outputs the SDK sets
export class LobbyHistoryExport extends pulumi.CustomResource {
  /** @internal */
  static readonly __pulumiType = TYPE;

  /**
   * An export recorded in another stack's state, given that state: the service keeps no record of
   * exports, so there is nothing to look up by id alone.
   */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    state?: types.LobbyHistoryExportState,
    opts?: pulumi.CustomResourceOptions,
  ): LobbyHistoryExport {
    return new LobbyHistoryExport(name, state as LobbyHistoryExportArgs, { ...opts, id });
  }

  /** Whether `obj` is a LobbyHistoryExport of this face (also across copies of the package). */
  static override isInstance(obj: unknown): obj is LobbyHistoryExport {
    return pulumi.CustomResource.isInstance(obj) && (obj as { __pulumiType?: string }).__pulumiType === TYPE;
  }

  constructor(name: string, args: LobbyHistoryExportArgs, opts?: pulumi.CustomResourceOptions) {
    const options = pulumi.mergeOptions(opts, {
      additionalSecretOutputs: [...lobbyHistoryExportSecretOutputs],
    });
    const lookup = options.id !== undefined || options.urn !== undefined;
    const given = lookup || !args ? args : exportInputs(args);
    super(
      TYPE,
      name,
      registeredInputs(given, options, lobbyHistoryExportInputProperties, lobbyHistoryExportComputedOutputs),
      options,
    );
  }
}
