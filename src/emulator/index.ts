/**
 * Local emulator of the hosting service (`pulumi-gamehost/emulator`): start it in tests or run
 * `gamehost-emulator` to use stacks offline.
 */
export type { PlacementMode } from "./core";
export {
  type EmulatorOptions,
  type EmulatorTokens,
  type RequestLogEntry,
  type RunningEmulator,
  startEmulator,
} from "./emulator";
export {
  FAULT_KINDS,
  type FaultController,
  type FaultKind,
  type FaultSpec,
  type PendingFault,
} from "./faults";
export { DEFAULT_FIXTURE_PATH, Fixture, type FixtureInput, loadFixture } from "./fixture";
export type { BillingPatch, Mutations, NewEnvironment, NewVersion } from "./mutations";
