/**
 * Property values in the SDK's wire form, which is also how the harness keeps them in memory: a secret is
 * `{"4dabf…": "1b47…", value}` and an unknown (preview-only) value is the unknown sentinel string. The
 * signatures and the secret rules the plugin applies too come from the plugin's own module; these helpers
 * add the engine's property-map rules that only the harness needs.
 */
import { isDeepStrictEqual } from "node:util";
import { isSecret, reveal, secret, UNKNOWN } from "../../src/plugin/propertyValues";
import type { JsonValue, PropertyMap } from "./proto";

export {
  containsSecrets,
  isSecret,
  keepSecrecy,
  reveal,
  SECRET_SIG,
  SIG_KEY,
  secret,
  UNKNOWN,
} from "../../src/plugin/propertyValues";

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `sdk/go/common/resource/properties.go: ContainsUnknowns`. */
export function containsUnknowns(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknowns);
  if (isObject(value)) return Object.values(value).some(containsUnknowns);
  return false;
}

/**
 * `sdk/go/common/resource/plugin/rpc.go: MarshalProperties` with `KeepUnknowns: false` — unknown
 * properties are skipped rather than sent.
 */
function dropUnknowns(value: JsonValue): JsonValue | undefined {
  if (value === UNKNOWN) return undefined;
  if (Array.isArray(value)) return value.map((v) => dropUnknowns(v) ?? null);
  if (isObject(value)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) {
      const kept = dropUnknowns(v);
      if (kept !== undefined) out[k] = kept;
    }
    return out;
  }
  return value;
}

/** Options of `sdk/go/common/resource/plugin/rpc.go: MarshalOptions` that the harness needs. */
export interface MarshalOptions {
  keepSecrets: boolean;
  keepUnknowns: boolean;
}

/** `sdk/go/common/resource/plugin/rpc.go: MarshalProperties` for the options above. */
export function marshalProperties(props: PropertyMap, opts: MarshalOptions): PropertyMap {
  let out: JsonValue = props;
  if (!opts.keepSecrets) out = reveal(out);
  if (!opts.keepUnknowns) out = dropUnknowns(out) ?? {};
  return out as PropertyMap;
}

/**
 * `pkg/resource/deploy/step_executor.go: executeStep` — "Ensure that any secrets properties in the output
 * are marked as such" for the resource's `additionalSecretOutputs` (`id` can never be secret).
 */
export function markAdditionalSecretOutputs(outs: PropertyMap, names: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const name of names) {
    const value = result[name];
    if (name !== "id" && value !== undefined && !isSecret(value)) result[name] = secret(value);
  }
  return result;
}

/** `sdk/go/common/resource/properties.go: PropertyMap.DeepEquals` on wire-form values. */
export function deepEquals(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a ?? {}, b ?? {});
}

/** Top-level keys whose values differ (`PropertyMap.Diff(...).ChangedKeys()`). */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys].filter((k) => !isDeepStrictEqual(olds[k], news[k])).sort();
}
