import { afterAll, describe, expect, it } from "vitest";
import { customSteps } from "../../harness/src";
import { mutations, opsByName, removeTempDirs, storeStack } from "./helpers";

afterAll(removeTempDirs);

describe("failures are reported, fast, with what the engine would keep", () => {
  // The timeout is the hang guard (a wall-clock bound in the test failed under load, at 10.7 s).
  it("a program that throws fails with its message in the result", { timeout: 60_000 }, async () => {
    const { stack } = storeStack([{ name: "x", value: "1" }], { "selftest:throw": "boom-from-the-program" });

    const result = await stack.up();

    // The harness adds nothing to the language host: the program throws a stackless error (see the program).
    expect(result.exitCode).not.toBe(0);
    expect(result.error).toContain("boom-from-the-program");
    expect(customSteps(result.steps)).toEqual([]);
  });

  it("check failures fail the run with the property and the reason", async () => {
    const { stack, log } = storeStack([{ name: "empty", value: "" }]);

    const result = await stack.up();

    // As the real CLI prints it: the engine shows the top-level value it found under the property's name.
    expect(result.error).toContain(
      "resource 'empty': property value value {} has a problem: value must be a non-empty string",
    );
    expect(mutations(log())).toEqual([]);
    expect(stack.resources().some((r) => r.urn.endsWith("::empty"))).toBe(false);
  });

  it("a create that fails after allocating an id records a partially created resource", async () => {
    const { stack, setItems, log } = storeStack([
      { name: "ok", value: "1" },
      { name: "bad", value: "2", dependsOn: ["ok"], failCreate: true },
    ]);

    const failed = await stack.up();

    expect(failed.error).toContain("item bad failed to start");
    const step = customSteps(failed.steps).find((s) => s.name === "bad");
    expect(step).toMatchObject({ op: "create", initErrors: ["health check failed"] });
    expect(step?.error).toContain("item bad failed to start");
    const badId = mutations(log()).find((e) => e.name === "bad")?.id;
    const bad = stack.resources().find((r) => r.urn.endsWith("::bad"));
    expect(bad).toMatchObject({ id: badId, initErrors: ["health check failed"] });
    expect(stack.resources().some((r) => r.urn.endsWith("::ok"))).toBe(true);

    // Next run: an unhealthy resource without input changes gets an (empty) update, not a create.
    setItems([
      { name: "ok", value: "1" },
      { name: "bad", value: "2", dependsOn: ["ok"] },
    ]);
    const healed = await stack.up();
    expect(healed.error).toBeUndefined();
    expect(opsByName(healed.steps)).toEqual({ ok: ["same"], bad: ["update"] });
    expect(stack.resources().find((r) => r.urn.endsWith("::bad"))).toMatchObject({ id: badId });
    expect(stack.resources().find((r) => r.urn.endsWith("::bad"))?.initErrors).toBeUndefined();
  });
});
