/**
 * Check failures may quote the value given (`… (given: "htp")`, see kinds/checks.ts). The kinds check
 * revealed inputs, so the plugin, which alone sees which inputs are secret, cuts the quote from a failure
 * at or below a secret input.
 */
import { textsOf } from "../api/redact";
import { type CheckFailure, GIVEN_PREFIX } from "../kinds/checks";
import { isSecret, type Json, type PropertyMap, reveal } from "./propertyValues";

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

/**
 * The text of every secret inside `value` (a secret string; a secret map's keys and values), for an error
 * to leave out: a data source's message names what it looked up (`No game "…"`), and a secret argument
 * (a Python or Go program's `Output.secret`) must not reach the CLI's output that way.
 */
export function secretTexts(value: Json): string[] {
  const out: string[] = [];
  const walk = (inner: Json): void => {
    if (isSecret(inner)) out.push(...textsOf(reveal(inner)));
    else if (Array.isArray(inner)) for (const item of inner) walk(item);
    else if (inner !== null && typeof inner === "object") for (const item of Object.values(inner)) walk(item);
  };
  walk(value);
  return out;
}
