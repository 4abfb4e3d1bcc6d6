/**
 * pulumi-gamehost: game servers and lobby-history exports of the hosting platform as Pulumi
 * resources, plus data sources for bootstrap, games, environments, datacenters, builds and billing.
 *
 * The root module is the dynamic face (no plugin needed); `native` (also `pulumi-gamehost/native`) is
 * the same resources through the provider plugin. Argument and result types are generated from the
 * package schema; the nested ones are under `types.input` / `types.output`.
 */
export { CONFIG_KEYS } from "./api/config";
export {
  GamehostApiError,
  GamehostConfigError,
  GamehostError,
  GamehostNetworkError,
  GamehostValidationError,
} from "./api/errors";
export type { FieldIssue } from "./api/issues";
// Every kind's class and arguments' type (generated: a new kind needs no line here).
export * from "./dynamic/generated/classes";
export * from "./dynamic/generated/functions";
export * from "./dynamic/generated/functionTypes";
export { IDEMPOTENCY_TAG } from "./kinds/server/tags";
export * as native from "./native";
export type { TimeInput } from "./programArgs/lobbyHistoryExport";
export type { NetworkMode, PaymentIntent, PortProtocol } from "./types";
export * as types from "./types";
export { PACKAGE_NAME, PACKAGE_VERSION } from "./version";
