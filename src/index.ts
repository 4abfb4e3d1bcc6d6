/**
 * pulumi-gamehost: game servers and lobby-history exports of the hosting platform as Pulumi
 * resources, plus data sources for bootstrap, games and billing.
 */
export { CONFIG_KEYS } from "./api/config";
export {
  GamehostApiError,
  GamehostConfigError,
  GamehostError,
  GamehostNetworkError,
  GamehostValidationError,
} from "./api/errors";
export * from "./functions";
export {
  LobbyHistoryExport,
  type LobbyHistoryExportArgs,
  type TimeInput,
} from "./provider/lobbyHistoryExport/resource";
export {
  Server,
  type ServerArgs,
  type ServerPortArgs,
  type ServerPortRoutingArgs,
} from "./provider/server/resource";
export { IDEMPOTENCY_TAG } from "./provider/server/spec";
export { PACKAGE_NAME, PACKAGE_VERSION } from "./version";
