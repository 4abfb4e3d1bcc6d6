import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { Stack } from "../../harness/src";
import { MISTYPED_PROGRAM, opsByName, removeTempDirs, TYPED_PROGRAM, tempDir } from "./helpers";

afterAll(removeTempDirs);

it("runs a TypeScript program through the SDK's ts-node registration", async () => {
  const stack = new Stack({
    programDir: TYPED_PROGRAM,
    config: { "selftest:text": "hello harness" },
    checkpointFile: path.join(tempDir(), "dev.json"),
  });

  const result = await stack.up();

  expect(result.error).toBeUndefined();
  expect(opsByName(result.steps)).toEqual({ hello: ["create"] });
  expect(result.outputs).toEqual({
    shout: { value: "HELLO HARNESS", secret: false },
    id: { value: "greeting-13", secret: false },
  });
});

it("type-checks TypeScript as `pulumi up` does by default, and runs it transpile-only on request", async () => {
  const checked = new Stack({
    programDir: MISTYPED_PROGRAM,
    checkpointFile: path.join(tempDir(), "dev.json"),
  });

  const refused = await checked.up();

  expect(refused.error).toMatch(/TS2322: Type '(string|"three")' is not assignable to type 'number'/);
  expect(refused.steps.filter((s) => s.custom)).toEqual([]);

  const transpiled = new Stack({
    programDir: MISTYPED_PROGRAM,
    typeCheck: false,
    checkpointFile: path.join(tempDir(), "dev.json"),
  });
  const ran = await transpiled.up();
  expect(ran.error).toBeUndefined();
  expect(ran.outputs.kind?.value).toBe("string"); // what the type check would have caught
});
