import type * as pulumi from "@pulumi/pulumi";

/** Names the SDK gives a meaning of its own in a resource's properties: never registered from arguments. */
const RESERVED = new Set(["id", "urn", "__provider"]);

/**
 * The inputs a plugin resource registers, as Pulumi's code generator builds them: for a lookup (`get`,
 * or a resource rehydrated by URN) every property from the optional state; otherwise every input
 * property (given or not) and every computed output as unknown, so each of them becomes an Output.
 *
 * An argument that is none of these (a misspelt `readyTimeoutSecond` in JavaScript, or an object spread
 * into the arguments, which TypeScript lets through) is registered too, so the kind's check names it;
 * Pulumi's generated SDKs drop it, and the setting the user meant silently did not apply.
 */
export function registeredInputs(
  args: object | undefined,
  opts: pulumi.CustomResourceOptions,
  inputs: readonly string[],
  computed: readonly string[],
): pulumi.Inputs {
  const from = (args ?? {}) as Record<string, unknown>;
  const registered: pulumi.Inputs = {};
  const lookup = opts.id !== undefined || opts.urn !== undefined;
  for (const key of inputs) registered[key] = from[key];
  for (const key of computed) registered[key] = lookup ? from[key] : undefined;
  if (lookup) return registered;
  for (const [key, value] of Object.entries(from)) {
    if (!(key in registered) && !RESERVED.has(key) && value !== undefined) registered[key] = value;
  }
  return registered;
}
