// Stack outputs as the engine stored them: each value with whether the engine keeps it secret. The
// secret bit is read from the state itself (a secret is stored as `{<sig key>: <secret sig>, …}`),
// never from a list kept here, so an output that stops being secret shows in plain text.

/** `sdk/nodejs/runtime/rpc.ts: specialSigKey` and `specialSecretSig`. */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

const isSecret = (value) =>
  typeof value === "object" && value !== null && !Array.isArray(value) && value[SIG_KEY] === SECRET_SIG;

/**
 * `{ name: { value, secret } }` for the root stack's outputs in a deployment (`pulumi stack export`'s
 * `deployment`, or a checkpoint's `latest`). `values` holds the plain values (`pulumi stack output
 * --json`), used for every output that is not secret.
 */
export function stackOutputs(deployment, values) {
  const stack = deployment.resources.find((r) => r.type === "pulumi:pulumi:Stack");
  const stored = stack?.outputs ?? {};
  return Object.fromEntries(
    Object.keys(stored).map((name) => [
      name,
      isSecret(stored[name]) ? { value: undefined, secret: true } : { value: values[name], secret: false },
    ]),
  );
}

/** Prints outputs sorted by name, secrets as `[secret]`. */
export function describeOutputs(outputs, log) {
  log("outputs:");
  const width = Math.max(...Object.keys(outputs).map((k) => k.length));
  for (const key of Object.keys(outputs).sort()) {
    const { value, secret } = outputs[key];
    log(`  ${key.padEnd(width)}  ${secret ? "[secret]" : JSON.stringify(value)}`);
  }
}
