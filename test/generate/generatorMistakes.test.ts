/**
 * The mistakes a contributor makes adding a kind (README "Adding a kind") meet one line from `npm run generate`
 * that names the file, the kind or the field and what to do, not a stack trace from deep in the registry or a
 * schema that silently says "any JSON value". Each case is a copy of the tree with a throwaway kind and one
 * mistake; `--check` writes nothing.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addKind, copyOfTree } from "./kindTree";

const spec = (extraField = "") => `import { z } from "zod";

/** Inputs of a Gadget. */
export const GadgetInputs = z.strictObject({
  label: z.string().min(1).describe("The gadget's label; a change replaces it."),${extraField}
});

/** What the service adds. */
export const GadgetComputed = z.object({ gadgetId: z.string().describe("The gadget's id.") });

export type GadgetInputs = z.infer<typeof GadgetInputs>;
export type GadgetOutputs = GadgetInputs & z.infer<typeof GadgetComputed>;
`;

const implementation = (exportName: string) => `import { defineKind } from "../kind";
import { GadgetComputed, GadgetInputs, type GadgetOutputs } from "./spec";

export const ${exportName} = defineKind<GadgetInputs, GadgetOutputs>({
  name: "Gadget",
  description: "A gadget. Any change replaces it.",
  hostSubpath: "gadget",
  inputs: [GadgetInputs],
  computed: GadgetComputed,
  check: (_olds, news) => ({ inputs: news as GadgetInputs, failures: [] }),
  diff: () => ({ changes: false, replaces: [], diffs: [], detailedDiff: {}, deleteBeforeReplace: false }),
  create: async (_ctx, inputs) => ({ id: "g-1", outputs: { ...inputs, gadgetId: "g-1" } }),
  read: async () => undefined,
});
`;

let base: string;
const trees: string[] = [];

/** A copy of the tree with the Gadget kind as given and, when `registered`, its line in KINDS. */
function treeWith(files: { spec: string; implementation: string }, registered = true): string {
  const tree = copyOfTree("gamehost-kind-mistake-", base);
  trees.push(tree);
  addKind(tree, { folder: "gadget", exportName: "gadgetKind", ...files }, registered);
  return tree;
}

function generateCheck(tree: string) {
  const run = spawnSync(process.execPath, ["scripts/generate.mjs", "--check"], {
    cwd: tree,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { status: run.status, stderr: run.stderr.trim() };
}

beforeAll(() => {
  base = copyOfTree("gamehost-kind-mistakes-");
  trees.push(base);
});

afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

describe("npm run generate, given a kind with a mistake", () => {
  it("names the registry entry whose import names no export, and the module it imports from", () => {
    const { status, stderr } = generateCheck(
      treeWith({ spec: spec(), implementation: implementation("gadget") }),
    );
    expect(status).toBe(1);
    expect(stderr).toBe(
      "generate: KINDS in src/kinds/index.ts lists gadgetKind, which is undefined: " +
        "./gadget/implementation exports no gadgetKind (a misnamed export or import?)",
    );
  });

  it("names the kind and the input whose zod type the package schema cannot describe", () => {
    const { status, stderr } = generateCheck(
      treeWith({
        spec: spec('\n  born: z.date().optional().describe("When it was made."),'),
        implementation: implementation("gadgetKind"),
      }),
    );
    expect(status).toBe(1);
    expect(stderr).toBe(
      "generate: Gadget's property born has a zod type no package schema can describe (Date cannot be " +
        "represented in JSON Schema): give it one of strings, numbers, booleans, enums, arrays, records or objects",
    );
  });

  it("names the kind whose schema import names no export of its spec", () => {
    const { status, stderr } = generateCheck(
      treeWith({
        spec: spec().replace("export const GadgetComputed =", "export const GadgetOutputsSchema ="),
        implementation: implementation("gadgetKind"),
      }),
    );
    expect(status).toBe(1);
    expect(stderr).toBe(
      "generate: the kind Gadget's computed is undefined, not a zod schema (an import that names no export?)",
    );
  });

  it("says a kind's inputs are a list when it is given one schema", () => {
    const { status, stderr } = generateCheck(
      treeWith({
        spec: spec(),
        implementation: implementation("gadgetKind").replace(
          "inputs: [GadgetInputs],",
          "inputs: GadgetInputs,",
        ),
      }),
    );
    expect(status).toBe(1);
    expect(stderr).toBe(
      "generate: the kind Gadget's inputs is one schema, not a list of them: write `inputs: [Schema]`",
    );
  });

  it("refuses a kind copied from another with its hostSubpath or name unchanged", () => {
    // Left as it was, the copy re-pointed the released `./provider/server` subpath at its own host module: every
    // stack's Server shim would have loaded the Gadget's implementation.
    for (const [field, copied, stderr] of [
      [
        'hostSubpath: "gadget"',
        'hostSubpath: "server"',
        'generate: the kinds Server and Gadget have the same hostSubpath "server": give Gadget its own (a released ' +
          "subpath never changes: stack states require it)",
      ],
      [
        'name: "Gadget"',
        'name: "Server"',
        'generate: two kinds have the same name "Server": give each its own',
      ],
    ] as const) {
      const result = generateCheck(
        treeWith({ spec: spec(), implementation: implementation("gadgetKind").replace(field, copied) }),
      );
      expect(result).toEqual({ status: 1, stderr });
    }
  });

  it("names a kind its module exports that KINDS does not list", () => {
    const { status, stderr } = generateCheck(
      treeWith({ spec: spec(), implementation: implementation("gadgetKind") }, false),
    );
    expect(status).toBe(1);
    expect(stderr).toBe(
      "generate: src/kinds/gadget/implementation.ts exports the kind Gadget (gadgetKind), which KINDS in " +
        'src/kinds/index.ts does not list: add it there (README "Adding a kind", step 2)',
    );
  });
});
