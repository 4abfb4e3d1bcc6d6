import type * as pulumi from "@pulumi/pulumi";

/**
 * The inputs a plugin resource registers, as Pulumi's code generator builds them: for a lookup (`get`,
 * or a resource rehydrated by URN) every property from the optional state; otherwise every input
 * property (given or not) and every computed output as unknown, so each of them becomes an Output.
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
  return registered;
}
