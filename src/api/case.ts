/**
 * Key-case conversion between the wire format (snake_case) and the Pulumi surface (camelCase).
 * Map-valued fields (tags, environment variables, ports by name) keep their keys as the user wrote
 * them; `mapPaths` names those fields by their camelCase path, with `*` for any key.
 */

/** `snake_case` → `camelCase`. */
export type SnakeToCamel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<SnakeToCamel<Tail>>}`
  : S;

/** Deep camelCase view of a wire type (record keys of type `string` are kept as they are). */
export type Camelize<T> = T extends string | number | boolean | bigint | symbol | null | undefined
  ? T // before the object case: an open enum (`"a" | (string & {})`) must stay a string
  : T extends ReadonlyArray<infer U>
    ? Camelize<U>[]
    : T extends object
      ? { [K in keyof T as K extends string ? SnakeToCamel<K> : K]: Camelize<T[K]> }
      : T;

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Paths (camelCase, `*` = any key) whose object values are maps keyed by user data. */
export type MapPaths = ReadonlyArray<ReadonlyArray<string>>;

/** Whether `path` (camelCase segments) names a map-valued field, whose keys are user data. */
export function isMapPath(path: readonly string[], mapPaths: MapPaths): boolean {
  return mapPaths.some(
    (p) => p.length === path.length && p.every((seg, i) => seg === "*" || seg === path[i]),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function convert(
  value: unknown,
  camelPath: string[],
  mapPaths: MapPaths,
  direction: "toSnake" | "toCamel",
): unknown {
  if (Array.isArray(value)) return value.map((v) => convert(v, camelPath, mapPaths, direction));
  if (!isPlainObject(value)) return value;
  const keepKeys = isMapPath(camelPath, mapPaths);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const camelKey = keepKeys ? key : direction === "toSnake" ? key : snakeToCamel(key);
    const outKey = keepKeys ? key : direction === "toSnake" ? camelToSnake(key) : camelKey;
    out[outKey] = convert(inner, [...camelPath, camelKey], mapPaths, direction);
  }
  return out;
}

/** Deep camelCase → snake_case, keeping keys of map-valued fields. */
export function toSnakeKeys(value: unknown, mapPaths: MapPaths = []): unknown {
  return convert(value, [], mapPaths, "toSnake");
}

/** Deep snake_case → camelCase, keeping keys of map-valued fields. */
export function toCamelKeys<T>(value: T, mapPaths: MapPaths = []): Camelize<T> {
  return convert(value, [], mapPaths, "toCamel") as Camelize<T>;
}
