/**
 * What the plugin serves, by token: each resource kind and data source with the zod schemas its
 * package-schema entry is generated from. The kinds and functions are the same objects the dynamic
 * face runs; this file only names them.
 */
import type { z } from "zod";
import { CreateServerRequest, ServerScope } from "../api/schemas";
import { FUNCTIONS, type FunctionDefinition } from "../functions/definitions";
import type { ResourceKind } from "../provider/kind";
import { lobbyHistoryExportKind } from "../provider/lobbyHistoryExport/kind";
import { ExportComputedOutputs, ExportExtras, ExportSpan } from "../provider/lobbyHistoryExport/spec";
import { serverKind } from "../provider/server/kind";
import { ServerComputedOutputs, ServerKnobs } from "../provider/server/spec";

/** Package name: tokens are `gamehost:index:<Name>`. */
export const PACKAGE = "gamehost";
/** Module of every token. */
export const MODULE = "index";

/**
 * A zod object schema contributing properties. Wire schemas have snake_case keys; the package's
 * properties are their camelCase form (which leaves camelCase keys as they are).
 */
export type PropertySource = z.ZodType;

/** A resource the plugin serves. */
export interface ResourceEntry {
  token: string;
  // biome-ignore lint/suspicious/noExplicitAny: entries of different kinds live in one table
  kind: ResourceKind<any, any>;
  description: string;
  /** Where the input properties come from (every input is echoed as an output). */
  inputs: readonly PropertySource[];
  /** Outputs the service or provider adds to the inputs. */
  computed: PropertySource;
}

/** A data source the plugin serves. */
export interface FunctionEntry {
  token: string;
  definition: FunctionDefinition<unknown, unknown>;
}

const token = (name: string) => `${PACKAGE}:${MODULE}:${name}`;

export const RESOURCES: readonly ResourceEntry[] = [
  {
    token: token(serverKind.name),
    kind: serverKind,
    description:
      "A game server, allocated on demand in a datacenter of the game's cluster. Servers are immutable: any change to the spec creates a new server before deleting the old one. Create waits until the server is placed and every port has a public address.",
    inputs: [ServerScope, CreateServerRequest, ServerKnobs],
    computed: ServerComputedOutputs,
  },
  {
    token: token(lobbyHistoryExportKind.name),
    kind: lobbyHistoryExportKind,
    description:
      "An export of a game's matchmaker lobby history for a time span, as a CSV file behind a presigned URL valid for one hour. Any input change exports again.",
    inputs: [ExportExtras, ExportSpan],
    computed: ExportComputedOutputs,
  },
];

export const FUNCTION_ENTRIES: readonly FunctionEntry[] = Object.values(FUNCTIONS).map((definition) => ({
  token: token(definition.name),
  definition: definition as FunctionDefinition<unknown, unknown>,
}));

const resourcesByToken = new Map(RESOURCES.map((r) => [r.token, r]));
const functionsByToken = new Map(FUNCTION_ENTRIES.map((f) => [f.token, f]));

/** The resource entry of a type token, if the plugin serves it. */
export function resourceOf(type: string): ResourceEntry | undefined {
  return resourcesByToken.get(type);
}

/** The data source of an invoke token, if the plugin serves it. */
export function functionOf(tok: string): FunctionEntry | undefined {
  return functionsByToken.get(tok);
}
