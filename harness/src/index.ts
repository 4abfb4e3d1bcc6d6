/**
 * Engine harness: runs Pulumi programs and dynamic providers through the SDK's real language host and
 * dynamic provider host, with the engine's step logic in between. Test code only (not published).
 */
export type { CheckpointFile, ResourceState } from "./checkpoint";
export { ROOT_STACK_TYPE } from "./checkpoint";
export { TEST_PASSPHRASE } from "./crypter";
export {
  type ConfiguredProvider,
  Engine,
  type EngineOptions,
  type Goal,
  makeUrn,
  type ProviderSource,
  StepError,
} from "./engine";
export {
  containsSecrets,
  isSecret,
  reveal,
  SECRET_SIG,
  SIG_KEY,
  secret,
  UNKNOWN,
} from "./properties";
export type { JsonValue, PropertyMap } from "./proto";
export {
  type LaunchSpec,
  type PartialFailure,
  ProviderError,
  ProviderHost,
  type ProviderHostOptions,
} from "./providerHost";
export { type PluginLocation, RunProviders, type StartedProvider } from "./providers";
export { type ConfigEntry, customSteps, type DeployOptions, Stack, type StackOptions } from "./stack";
export type { Diagnostic, OutputValue, RunResult, Step, StepOp } from "./types";
