/**
 * Check failures may quote the value given (`… (given: "htp")`, see kinds/checks.ts). The kinds check
 * revealed inputs, so the plugin, which alone sees which inputs are secret, cuts the quote from a failure
 * at or below a secret input.
 */
import { type CheckFailure, GIVEN_PREFIX } from "../kinds/checks";
import { isSecret, type Json, type PropertyMap } from "./propertyValues";

/** Dotted paths of the secrets inside `value`. */
export function secretPaths(value: Json, prefix = ""): string[] {
  if (isSecret(value)) return [prefix];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    secretPaths(inner as Json, prefix ? `${prefix}.${key}` : key),
  );
}

/** `failures` with no quoted value at or below a secret of `wireNews`. */
export function withoutSecretGivens(
  failures: readonly CheckFailure[],
  wireNews: PropertyMap,
): CheckFailure[] {
  const secrets = secretPaths(wireNews);
  if (secrets.length === 0) return [...failures];
  return failures.map((failure) => {
    const secret = secrets.some((s) => failure.property === s || failure.property.startsWith(`${s}.`));
    const at = failure.reason.lastIndexOf(GIVEN_PREFIX);
    return secret && at >= 0 ? { ...failure, reason: failure.reason.slice(0, at) } : failure;
  });
}
