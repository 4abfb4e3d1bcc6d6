/**
 * What the `gamehost` commands read from a stack's state (`pulumi stack export`): its servers, and the
 * creates a hard interruption left pending. The engine's format is untyped JSON: each field read is checked.
 */
import { z } from "zod";

/**
 * A kind's type tokens on each face: the plugin's (`gamehost:index:<name>`; `pulumi import` needs it, the dynamic
 * host cannot import) and the dynamic resource's.
 */
const typesOf = <Name extends string>(name: Name) =>
  ({ plugin: `gamehost:index:${name}`, dynamic: `pulumi-nodejs:dynamic/gamehost:${name}` }) as const;

export const SERVER_TYPES = typesOf("Server");
export const FLEET_TYPES = typesOf("Fleet");
export const EXPORT_TYPES = typesOf("LobbyHistoryExport");

const isOf = (types: { plugin: string; dynamic: string }) => (type: string) =>
  type === types.plugin || type === types.dynamic;
export const isServerType: (type: string) => boolean = isOf(SERVER_TYPES);
export const isFleetType: (type: string) => boolean = isOf(FLEET_TYPES);
export const isExportType: (type: string) => boolean = isOf(EXPORT_TYPES);

/** One resource of the state (the fields the commands use; the rest is kept as it is). */
export const StateResource = z.looseObject({
  urn: z.string(),
  type: z.string(),
  custom: z.boolean().optional(),
  id: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
  delete: z.boolean().optional(),
  /** Deleted for a replacement (delete first) whose create has not finished: its server is gone. */
  pendingReplacement: z.boolean().optional(),
});
export type StateResource = z.infer<typeof StateResource>;

export const PendingOperation = z.looseObject({ type: z.string(), resource: StateResource });
export type PendingOperation = z.infer<typeof PendingOperation>;

/** `pulumi stack export`'s deployment, as far as the commands read it. */
export const Deployment = z.looseObject({
  resources: z.array(StateResource).optional(),
  pending_operations: z.array(PendingOperation).optional(),
});
export type Deployment = z.infer<typeof Deployment>;

/** The name part of a URN (`…::name`). */
export const nameOfUrn = (urn: string): string => urn.split("::").at(-1) ?? urn;

/** A plain (not secret-wrapped) string field of recorded properties. */
export function plainString(props: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = props?.[key];
  return typeof value === "string" ? value : undefined;
}

/** Where a recorded server lives and its key: from its outputs, else its inputs. */
export function serverScope(
  resource: StateResource,
): { gameId: string; environmentId: string; idempotencyKey?: string | undefined } | undefined {
  const pick = (k: string) => plainString(resource.outputs, k) ?? plainString(resource.inputs, k);
  const gameId = pick("gameId");
  const environmentId = pick("environmentId");
  if (!gameId || !environmentId) return undefined;
  return { gameId, environmentId, idempotencyKey: pick("idempotencyKey") };
}
