import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { Stack } from "../../harness/src";
import { opsByName, removeTempDirs, TYPED_PROGRAM, tempDir } from "./helpers";

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
