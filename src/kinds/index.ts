/**
 * Every resource kind and data source the package has, protocol-free. Each face is derived from these
 * lists: the plugin serves them, `npm run generate` writes the classes, host modules and wrappers of the
 * TypeScript faces from them, and a test fails when a kind is missing from any face. Adding a kind: see
 * "Adding a kind" in the README.
 */
import { fleetKind } from "./fleet/implementation";
import type { AnyResourceKind } from "./kind";
import { lobbyHistoryExportKind } from "./lobbyHistoryExport/implementation";
import { serverKind } from "./server/implementation";

export { FUNCTIONS, type FunctionDefinition } from "./functions";
export type { AnyResourceKind, ResourceKind } from "./kind";

/** Every resource kind, in the order the schema and the reference list them. */
export const KINDS: readonly AnyResourceKind[] = [serverKind, lobbyHistoryExportKind, fleetKind];
