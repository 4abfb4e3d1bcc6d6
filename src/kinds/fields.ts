/**
 * Records narrowed to field lists, so a kind names its fields once, in its zod schemas (`keyof().options`),
 * and its code picks or drops them by those lists rather than by destructuring each name again.
 */

/**
 * Where Pulumi's dynamic provider host keeps the serialized provider, in a resource's inputs and outputs
 * alike: a kind keeps it out of what it sends and compares, the dynamic face checks it is recorded.
 */
export const SERIALIZED_PROVIDER_FIELD = "__provider";

/** The fields `keys` of `record`, each present (possibly undefined) so a schema check names what is missing. */
export function pick<T extends object, K extends keyof T>(record: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, record[key]])) as Pick<T, K>;
}

/** `record` without the fields `keys`. */
export function omit<T extends object, K extends PropertyKey>(record: T, keys: readonly K[]): Omit<T, K> {
  const rest: Record<PropertyKey, unknown> = { ...(record as Record<PropertyKey, unknown>) };
  for (const key of keys) delete rest[key];
  return rest as Omit<T, K>;
}

/** The fields `keys` of `record` that are set (not undefined): optional outputs stay absent. */
export function pickDefined<T extends object, K extends keyof T>(
  record: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  return Object.fromEntries(
    keys.flatMap((key) => (record[key] === undefined ? [] : [[key, record[key]]])),
  ) as Partial<Pick<T, K>>;
}
