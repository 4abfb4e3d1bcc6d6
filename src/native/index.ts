/**
 * `pulumi-gamehost/native`: the resources and data sources of the gamehost provider plugin
 * (`pulumi-resource-gamehost`, tokens `gamehost:index:<Kind>`), as Pulumi's code generator would emit
 * them. Same arguments and outputs as the dynamic resources, plus `pulumi import`, `get`, previews with
 * known outputs, `customTimeouts` and explicit providers. The plugin must be installed (see the docs).
 */
// The enums as values too (`NetworkMode.Host`), as the generated SDK exports them: code from `pulumi import` uses them.

// The argument and result types, and the `types` namespace, by the names the generated SDK exports them.
export * as types from "../types";
export * from "../types/generated/enums";
export type * from "../types/generated/functions";
export type {
  LobbyHistoryExportArgs,
  LobbyHistoryExportState,
  ProviderArgs,
  ServerArgs,
  ServerState,
} from "../types/generated/resources";
export * from "./functions";
export { LobbyHistoryExport } from "./lobbyHistoryExport";
export { Provider } from "./provider";
export { Server } from "./server";
