/**
 * Local emulator of the hosting service (`pulumi-gamehost/emulator`): start it in tests or run
 * `gamehost-emulator` to use stacks offline. Nothing declared here needs zod's typings (the older Pulumi
 * template, without `esModuleInterop`, cannot read them): the fixture, faults and mutations are plain
 * declarations, held equal to the emulator's schemas by test/emulator/publicTypes.test.ts.
 */
export {
  type EmulatorOptions,
  type EmulatorTokens,
  type RequestLogEntry,
  type RunningEmulator,
  startEmulator,
} from "./emulator";
export {
  FAULT_KINDS,
  FAULT_STATUSES,
  type FaultController,
  type FaultKind,
  type FaultSpec,
  type FaultStatus,
  type PendingFault,
} from "./faultTypes";
export { DEFAULT_FIXTURE_PATH, loadFixture } from "./fixture";
export type * from "./fixtureTypes";
export type { BillingPatch, Mutations, NewEnvironment, NewVersion } from "./mutationTypes";
export type { PlacementMode } from "./placementMode";
