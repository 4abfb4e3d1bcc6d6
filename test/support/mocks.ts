import { dist } from "./dist";

/**
 * The mock monitor of `pulumi.runtime.setMocks` ignores `additionalSecretOutputs` (the engine applies
 * them), so this records, per resource name, which outputs the SDK asks the engine to keep secret. Call
 * it after `setMocks`.
 */
export function recordSecretOutputs(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const monitor = dist.pulumi().runtime.getMonitor() as unknown as {
    registerResource(
      req: { getName(): string; getAdditionalsecretoutputsList(): string[] },
      cb: unknown,
    ): void;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, cb) => {
    byName.set(req.getName(), req.getAdditionalsecretoutputsList());
    register(req, cb);
  };
  return byName;
}
