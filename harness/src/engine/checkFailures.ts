/**
 * `step_generator.go: issueCheckFailures` — the text of a provider's Check failures, as the CLI prints
 * them (checked against pulumi v3.274.1): `<type> resource '<name>': property <path> value {<v>} has a
 * problem: <reason>`, or `<type> resource '<name>' has a problem: <reason>` without a property. The
 * engine looks the value up by the whole path as one top-level key, so a nested path (`resources.cpu`)
 * always shows `{<nil>}`.
 */
import type { PropertyMap } from "../proto";
import type { CheckFailure } from "../providerHost";
import { typeOfUrn } from "./urn";

/** Go's `%v` of a property value, for the values a top-level key holds (objects approximated as JSON). */
function goValue(value: unknown): string {
  if (value === undefined || value === null) return "<nil>";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** One line per failure, as the engine reports each. */
export function checkFailureText(urn: string, news: PropertyMap, failures: readonly CheckFailure[]): string {
  const type = typeOfUrn(urn);
  const name = urn.split("::").slice(3).join("::");
  return failures
    .map((f) =>
      f.property
        ? `${type} resource '${name}': property ${f.property} value {${goValue((news as Record<string, unknown>)[f.property])}} has a problem: ${f.reason}`
        : `${type} resource '${name}' has a problem: ${f.reason}`,
    )
    .join("\n");
}
