/**
 * Property values in the SDK's wire form, which is also how the harness keeps them in memory: a secret is
 * `{"4dabf…": "1b47…", value}` and an unknown (preview-only) value is the unknown sentinel string. These
 * helpers copy the engine's property-map rules.
 */
import { isDeepStrictEqual } from "node:util";
import type { JsonValue, PropertyMap } from "./proto";

/** `sdk/nodejs/runtime/rpc.ts: specialSigKey` — the key that marks a special object. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** `sdk/nodejs/runtime/rpc.ts: specialSecretSig`. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** `sdk/nodejs/runtime/rpc.ts: unknownValue` — a value not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A wire-form secret. */
export interface SecretValue {
  [SIG_KEY]: typeof SECRET_SIG;
  value: JsonValue;
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True if `value` is a wire-form secret. */
export function isSecret(value: unknown): value is SecretValue {
  return isObject(value) && value[SIG_KEY] === SECRET_SIG;
}

/** Wraps `value` as a secret (idempotent). */
export function makeSecret(value: JsonValue): JsonValue {
  return isSecret(value) ? value : { [SIG_KEY]: SECRET_SIG, value };
}

/** `sdk/go/common/resource/properties.go: ContainsSecrets`. */
export function containsSecrets(value: unknown): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecrets);
  if (isObject(value)) return Object.values(value).some(containsSecrets);
  return false;
}

/** `sdk/go/common/resource/properties.go: ContainsUnknowns`. */
export function containsUnknowns(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknowns);
  if (isObject(value)) return Object.values(value).some(containsUnknowns);
  return false;
}

/**
 * `sdk/go/common/resource/plugin/provider_plugin.go: removeSecrets` — what a provider that does not accept
 * secrets (the dynamic provider host answers `acceptSecrets: false`) is sent instead of secret values.
 */
export function removeSecrets(value: JsonValue): JsonValue {
  if (isSecret(value)) return removeSecrets(value.value);
  if (Array.isArray(value)) return value.map(removeSecrets);
  if (isObject(value)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = removeSecrets(v);
    return out;
  }
  return value;
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
  if (!opts.keepSecrets) out = removeSecrets(out);
  if (!opts.keepUnknowns) out = dropUnknowns(out) ?? {};
  return out as PropertyMap;
}

/**
 * `sdk/go/common/resource/plugin/provider_plugin.go: annotateSecrets` — copies "secretness" from `ins` to
 * same-named members of `outs` (recursing into objects), because the provider never saw the secret bit.
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const [key, inValue] of Object.entries(ins)) {
    if (!(key in result)) continue;
    const outValue = result[key] as JsonValue;
    if (isObject(outValue) && !isSecret(outValue) && isObject(inValue) && !isSecret(inValue)) {
      result[key] = annotateSecrets(outValue, inValue);
    } else if (!isSecret(outValue) && containsSecrets(inValue)) {
      result[key] = makeSecret(outValue);
    }
  }
  return result;
}

/**
 * `pkg/resource/deploy/step_executor.go: executeStep` — "Ensure that any secrets properties in the output
 * are marked as such" for the resource's `additionalSecretOutputs` (`id` can never be secret).
 */
export function markAdditionalSecretOutputs(outs: PropertyMap, names: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const name of names) {
    const value = result[name];
    if (name !== "id" && value !== undefined && !isSecret(value)) result[name] = makeSecret(value);
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

/** Replaces every secret by its plain value, for assertions in tests. */
export function unwrapSecrets(value: JsonValue): JsonValue {
  return removeSecrets(value);
}
