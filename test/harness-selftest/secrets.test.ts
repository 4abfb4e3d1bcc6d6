import * as fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { isSecret, SECRET_SIG, SIG_KEY } from "../../harness/src";
import { opsByName, removeTempDirs, storeStack } from "./helpers";

afterAll(removeTempDirs);

describe("secrets through config, provider calls, the checkpoint and stack outputs", () => {
  const TOKEN = "tok-PLAINTEXT-9f2c";
  const VALUE = "value-PLAINTEXT-77aa";
  const { stack, log } = storeStack([{ name: "s", value: VALUE, useToken: true, secretDerived: true }], {
    "selftest:token": { value: TOKEN, secret: true },
  });

  it("encrypts secret config and secret outputs at rest, and re-marks them on the way out", async () => {
    const result = await stack.up();
    expect(result.error).toBeUndefined();

    // At rest: neither the secret config value nor the additionalSecretOutputs value is readable.
    const raw = fs.readFileSync(stack.checkpointFile, "utf8");
    expect(raw).not.toContain(TOKEN);
    expect(raw).not.toContain(`derived:${VALUE}`);
    expect(raw).toContain('"ciphertext"');
    expect(raw).toContain(SECRET_SIG);
    // The plain input is stored as it is (only secrets are encrypted).
    expect(raw).toContain(VALUE);

    const item = stack.resources().find((r) => r.urn.endsWith("::s"));
    // The secret input, the same-named output (the provider never saw it as secret) and the
    // additionalSecretOutputs member are secrets again after decryption; the rest is plain.
    expect(item?.inputs.token).toEqual({ [SIG_KEY]: SECRET_SIG, value: TOKEN });
    expect(isSecret(item?.outputs.token)).toBe(true);
    expect(item?.outputs.derived).toEqual({ [SIG_KEY]: SECRET_SIG, value: `derived:${VALUE}` });
    expect(item?.outputs.value).toBe(VALUE);

    // Stack outputs come back with their secret bit, as the Automation API reports them.
    expect(result.outputs.token).toEqual({ value: TOKEN, secret: true });
    expect(result.outputs.derived).toEqual({ value: { s: `derived:${VALUE}` }, secret: true });
    expect(stack.outputs().token).toEqual({ value: TOKEN, secret: true });
  });

  it("strips secrets before provider calls: Configure and Check see plain values", () => {
    const configures = log().filter((e) => e.op === "configure");
    expect(configures.length).toBeGreaterThan(0);
    expect(configures.every((e) => e.token === TOKEN)).toBe(true);
    const checks = log().filter((e) => e.op === "check");
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((e) => e.token === TOKEN)).toBe(true);
  });

  it("decrypts the checkpoint on the next run: unchanged secret inputs are 'same'", async () => {
    const result = await stack.up();
    expect(result.error).toBeUndefined();
    expect(opsByName(result.steps)).toEqual({ s: ["same"] });
    expect(fs.readFileSync(stack.checkpointFile, "utf8")).not.toContain(TOKEN);
  });
});
