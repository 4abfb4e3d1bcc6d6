export type { EngineOptions, Goal } from "./context";
export { Engine } from "./engine";
export type { CustomTimeouts } from "./options";
export { parseDuration } from "./options";
export type { ConfiguredProvider, ProviderSource } from "./provider";
export { StepError } from "./state";
export { DYNAMIC_PACKAGE, makeUrn, packageOf } from "./urn";
