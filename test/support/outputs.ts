import type * as pulumi from "@pulumi/pulumi";

/** Resolves an Output's value (undefined while unknown), for tests that run programs under mocks. */
export function resolvedValue<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((v) => resolve(v)));
}
