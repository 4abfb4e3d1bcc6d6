/** An output with whether the engine keeps it secret. */
export interface StackOutput {
  value: unknown;
  secret: boolean;
}
export function stackOutputs(
  deployment: { resources: Array<{ type: string; outputs?: Record<string, unknown> }> },
  values: Record<string, unknown>,
): Record<string, StackOutput>;
export function describeOutputs(outputs: Record<string, StackOutput>, log: (line: string) => void): void;
