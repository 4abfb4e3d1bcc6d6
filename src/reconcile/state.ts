/**
 * What the `gamehost` commands read from a stack's state (`pulumi stack export`): its servers, and the
 * creates a hard interruption left pending. The engine's format is untyped JSON: each field read is checked.
 */
import { z } from "zod";

/** Type tokens of a Server on each face: the dynamic resource, and the plugin's. */
export const SERVER_TYPES = ["pulumi-nodejs:dynamic/gamehost:Server", "gamehost:index:Server"] as const;

export const isServerType = (type: string): boolean => (SERVER_TYPES as readonly string[]).includes(type);

/** Type tokens of a Fleet on each face. */
export const FLEET_TYPES = ["pulumi-nodejs:dynamic/gamehost:Fleet", "gamehost:index:Fleet"] as const;

export const isFleetType = (type: string): boolean => (FLEET_TYPES as readonly string[]).includes(type);

/** One resource of the state (the fields the commands use; the rest is kept as it is). */
export const StateResource = z.looseObject({
  urn: z.string(),
  type: z.string(),
  custom: z.boolean().optional(),
  id: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
  delete: z.boolean().optional(),
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
