/**
 * Resource options the engine reads from a registration: `ignoreChanges` and `customTimeouts`.
 */
import type { PropertyMap } from "../proto";

/**
 * `pkg/resource/deploy/step_generator.go: processIgnoreChanges` for top-level property names: ignored
 * properties keep their old value.
 */
export function processIgnoreChanges(
  news: PropertyMap,
  olds: PropertyMap,
  ignoreChanges: readonly string[],
): PropertyMap {
  if (ignoreChanges.length === 0) return news;
  const result: PropertyMap = { ...news };
  for (const key of ignoreChanges) {
    const old = olds[key];
    if (old === undefined) delete result[key];
    else result[key] = old;
  }
  return result;
}

/** `customTimeouts` of a resource, in seconds (0: none), as the engine sends them to a provider. */
export interface CustomTimeouts {
  create?: number;
  update?: number;
  delete?: number;
}

/**
 * Whether any timeout is set: `resource.CustomTimeouts.IsNotEmpty`, which `stack.SerializeResource` asks
 * before it writes `customTimeouts` into the checkpoint (all-zero timeouts are not stored).
 */
export function hasCustomTimeouts(timeouts: CustomTimeouts | undefined): timeouts is CustomTimeouts {
  return !!timeouts && (!!timeouts.create || !!timeouts.update || !!timeouts.delete);
}

const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/**
 * Go's `time.ParseDuration`, which `resource_options.go`/`source_eval.go` use on the SDK's `customTimeouts`
 * strings (`"5m"`, `"1h30m"`, `"90s"`), in seconds. An empty string is no timeout.
 */
export function parseDuration(text: string): number {
  if (text === "" || text === "0") return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
  }
  return parts.reduce((total, p) => total + Number(p[1]) * (UNITS[p[2] ?? "s"] ?? 1), 0);
}
