/**
 * What the plugin serves, by token: the kinds and data sources of `src/kinds/`, the same objects the
 * dynamic face runs; this file only names them.
 */
import { FUNCTIONS, type FunctionDefinition, KINDS } from "../kinds";
import type { AnyResourceKind } from "../kinds/kind";

export type { PropertySource } from "../kinds/kind";

/** Package name: tokens are `gamehost:index:<Name>`. */
export const PACKAGE = "gamehost";
/** Module of every token. */
export const MODULE = "index";

/** A resource the plugin serves. */
export interface ResourceEntry {
  token: string;
  kind: AnyResourceKind;
}

/** A data source the plugin serves. */
export interface FunctionEntry {
  token: string;
  definition: FunctionDefinition<unknown, unknown>;
}

const token = (name: string) => `${PACKAGE}:${MODULE}:${name}`;

export const RESOURCES: readonly ResourceEntry[] = KINDS.map((kind) => ({ token: token(kind.name), kind }));

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
