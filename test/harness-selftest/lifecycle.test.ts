import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { customSteps, UNKNOWN } from "../../harness/src";
import { type ItemSpec, mutations, opsByName, removeTempDirs, storeStack } from "./helpers";

afterAll(removeTempDirs);

// One stack taken through preview → up → up → changes → refresh → destroy; each step builds on the last.
describe("a stack's lifecycle through the SDK's language host and dynamic provider host", () => {
  const initial: ItemSpec[] = [
    { name: "a", value: "1", delayMs: 250 },
    { name: "b", value: "2", dependsOn: ["a"] },
    { name: "c", value: "3", dependsOn: ["b"] },
    { name: "d", value: "unused", valueFrom: "a" },
  ];
  const { stack, stateDir, setItems, log } = storeStack(initial);
  const idOf = (name: string) => stack.resources().find((r) => r.urn.endsWith(`::${name}`))?.id;

  it("preview plans every create but sends no Create, and leaves no checkpoint", async () => {
    const result = await stack.preview();

    expect(result.error).toBeUndefined();
    expect(opsByName(result.steps)).toEqual({ a: ["create"], b: ["create"], c: ["create"], d: ["create"] });
    expect(customSteps(result.steps).every((s) => s.preview)).toBe(true);
    expect(mutations(log())).toEqual([]);
    // d's value comes from a's output, unknown in a preview: Check sees the SDK's unknown sentinel.
    expect(log().find((e) => e.op === "check" && e.name === "d")?.value).toBe(UNKNOWN);
    // Outputs the provider would compute are unknown in a preview.
    expect(result.outputs.derived?.value).toEqual({ a: UNKNOWN, b: UNKNOWN, c: UNKNOWN, d: UNKNOWN });
    expect(stack.checkpoint()).toBeUndefined();
  });

  it("up creates every resource, each only after the resources it depends on", async () => {
    const result = await stack.up();

    expect(result.error).toBeUndefined();
    expect(opsByName(result.steps)).toEqual({ a: ["create"], b: ["create"], c: ["create"], d: ["create"] });
    const created = Object.fromEntries(mutations(log()).map((e) => [e.name, e]));
    expect(Object.keys(created).sort()).toEqual(["a", "b", "c", "d"]);
    // b's Create starts after a's (which takes 250 ms) has finished; c's after b's.
    expect(created.b?.start).toBeGreaterThanOrEqual(created.a?.at ?? Number.POSITIVE_INFINITY);
    expect(created.c?.start).toBeGreaterThanOrEqual(created.b?.at ?? Number.POSITIVE_INFINITY);
    expect(result.outputs.derived).toEqual({
      value: { a: "derived:1", b: "derived:2", c: "derived:3", d: "derived:derived:1" },
      secret: false,
    });
    expect(result.outputs.names).toEqual({ value: ["a", "b", "c", "d"], secret: false });
    for (const name of ["a", "b", "c", "d"]) expect(idOf(name)).toBe(created[name]?.id);
  });

  it("a second up without changes is all 'same' and sends no Create/Update/Delete", async () => {
    const before = mutations(log()).length;
    const result = await stack.up();

    expect(result.error).toBeUndefined();
    expect(opsByName(result.steps)).toEqual({ a: ["same"], b: ["same"], c: ["same"], d: ["same"] });
    expect(mutations(log())).toHaveLength(before);
  });

  it("updates in place, replaces create-before-delete (or delete-before-create), deletes what was removed", async () => {
    const ids = { a: idOf("a"), b: idOf("b"), c: idOf("c"), d: idOf("d") };
    const before = mutations(log()).length;
    setItems([
      { name: "a", value: "1-changed" },
      { name: "b", value: "2", key: "k2", dependsOn: ["a"] },
      { name: "c", value: "3", key: "k2", dependsOn: ["b"], deleteBeforeReplace: true },
    ]);

    const result = await stack.up();

    expect(result.error).toBeUndefined();
    expect(opsByName(result.steps)).toEqual({
      a: ["update"],
      b: ["replace", "delete"],
      c: ["delete", "replace"],
      d: ["delete"],
    });
    const calls = mutations(log()).slice(before);
    const at = (op: string, id: string | undefined) => calls.findIndex((e) => e.op === op && e.id === id);
    const created = (name: string) => calls.find((e) => e.op === "create" && e.name === name)?.id;
    expect(at("update", ids.a)).toBeGreaterThanOrEqual(0);
    // b: the replacement exists before the old b is deleted; c (deleteBeforeReplace): the other way round.
    expect(at("create", created("b"))).toBeLessThan(at("delete", ids.b));
    expect(at("delete", ids.c)).toBeLessThan(at("create", created("c")));
    expect(at("delete", ids.d)).toBeGreaterThanOrEqual(0);
    expect(idOf("a")).toBe(ids.a);
    expect(idOf("b")).toBe(created("b"));
    expect(idOf("d")).toBeUndefined();
    expect(result.outputs.derived?.value).toEqual({ a: "derived:1-changed", b: "derived:2", c: "derived:3" });
  });

  it("refresh drops a resource that was deleted out of band and keeps the rest", async () => {
    const aId = idOf("a");
    fs.rmSync(path.join(stateDir, `${aId}.json`));

    const result = await stack.refresh();

    expect(result.error).toBeUndefined();
    expect(customSteps(result.steps).map((s) => [s.name, s.op, Boolean(s.gone)])).toEqual([
      ["a", "refresh", true],
      ["b", "refresh", false],
      ["c", "refresh", false],
    ]);
    expect(idOf("a")).toBeUndefined();
    expect(idOf("b")).toBeDefined();
  });

  it("destroy deletes everything in reverse dependency order, using the provider stored in state", async () => {
    const ids = { b: idOf("b"), c: idOf("c") };
    const before = mutations(log()).length;

    const result = await stack.destroy();

    expect(result.error).toBeUndefined();
    expect(
      mutations(log())
        .slice(before)
        .map((e) => [e.op, e.id]),
    ).toEqual([
      ["delete", ids.c],
      ["delete", ids.b],
    ]);
    expect(result.steps.every((s) => s.op === "delete")).toBe(true);
    expect(stack.resources()).toEqual([]);
    expect(fs.readdirSync(stateDir).filter((f) => f.endsWith(".json"))).toEqual([]);
  });
});
