/**
 * Adding a kind is its spec, its implementation and one registry line (README "Adding a kind"): in a copy of
 * the tree, a throwaway kind gets exactly those, `scripts/generate.mjs` writes every face from the sources,
 * and the package type-checks with the kind in each face.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addKind, copyOfTree } from "./kindTree";

const SPEC = `import { z } from "zod";

/** Inputs of a Widget. */
export const WidgetInputs = z.strictObject({
  label: z.string().min(1).describe("The widget's label; a change replaces it."),
});

/** What the service adds. */
export const WidgetComputed = z.object({
  widgetId: z.string().describe("The widget's id."),
});

export type WidgetInputs = z.infer<typeof WidgetInputs>;
export type WidgetOutputs = WidgetInputs & z.infer<typeof WidgetComputed>;
`;

const IMPLEMENTATION = `import { defineKind } from "../kind";
import { WidgetComputed, WidgetInputs, type WidgetOutputs } from "./spec";

const FIELDS = WidgetInputs.keyof().options;

/** A throwaway kind: proves that a kind needs no more than this. */
export const throwawayWidget = defineKind<WidgetInputs, WidgetOutputs>({
  name: "Widget",
  description: "A widget. Any change replaces it.",
  hostSubpath: "widget",
  inputs: [WidgetInputs],
  computed: WidgetComputed,
  check(_olds, news) {
    const parsed = WidgetInputs.safeParse(news);
    return parsed.success
      ? { inputs: parsed.data, failures: [] }
      : { inputs: news as WidgetInputs, failures: parsed.error.issues.map((i) => ({ property: i.path.join("."), reason: i.message })) };
  },
  diff(_id, olds, news) {
    const replaces = FIELDS.filter((field) => olds[field] !== news[field]);
    return {
      changes: replaces.length > 0,
      replaces,
      diffs: replaces,
      detailedDiff: Object.fromEntries(replaces.map((field) => [field, "update-replace" as const])),
      deleteBeforeReplace: false,
    };
  },
  async create(_ctx, inputs) {
    return { id: "w-1", outputs: { ...inputs, widgetId: "w-1" } };
  },
  async read(_ctx, id, recorded) {
    return recorded ? { id, outputs: recorded.outputs, inputs: recorded.inputs } : undefined;
  },
});
`;

let tree: string;
const run = (command: string, args: string[]) =>
  spawnSync(command, args, { cwd: tree, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });

beforeAll(() => {
  tree = copyOfTree("gamehost-add-kind-");
  // The three steps: spec, implementation, one registry line (and its import).
  addKind(tree, {
    folder: "widget",
    exportName: "throwawayWidget",
    spec: SPEC,
    implementation: IMPLEMENTATION,
  });
}, 60_000);

afterAll(() => {
  if (tree) rmSync(tree, { recursive: true, force: true });
});

describe("adding a kind", () => {
  // A hang guard, not a speed bound: generate, tsc and generate --check took 150 s beside two suites on 2 cores.
  it("generates every face from the spec, the implementation and the registry line, and type-checks", {
    timeout: 600_000,
  }, () => {
    const generate = run(process.execPath, ["scripts/generate.mjs"]);
    expect(generate.stderr).toBe("");
    expect(generate.status).toBe(0);

    const manifest = JSON.parse(readFileSync(path.join(tree, "package.json"), "utf8"));
    expect(manifest.exports["./provider/widget"]).toEqual({
      types: "./dist/dynamic/generated/host/widget.d.ts",
      default: "./dist/dynamic/generated/host/widget.js",
    });
    expect(manifest.typesVersions["*"]["provider/widget"]).toEqual([
      "dist/dynamic/generated/host/widget.d.ts",
    ]);
    const schema = JSON.parse(readFileSync(path.join(tree, "plugin/schema.json"), "utf8"));
    expect(Object.keys(schema.resources["gamehost:index:Widget"].inputProperties)).toEqual(["label"]);
    const host = readFileSync(path.join(tree, "src/dynamic/generated/host/widget.ts"), "utf8");
    expect(host).toContain(`import { throwawayWidget } from "../../../kinds/widget/implementation";`);
    for (const face of ["src/dynamic/generated/resources.ts", "src/native/generated/resources.ts"])
      expect(readFileSync(path.join(tree, face), "utf8")).toMatch(/export class Widget extends/);
    expect(existsSync(path.join(tree, "docs/reference/widget.md"))).toBe(true);

    // What a program imports: the kind at the package's root on both faces, with its types (README "Adding a
    // kind" promises no step but the three; the root once listed its classes by hand).
    writeFileSync(
      path.join(tree, "src/widgetInAProgram.ts"),
      'import { native, Widget, type WidgetArgs } from "./index";\n' +
        "export const classes = [Widget, native.Widget];\n" +
        "export type Types = [WidgetArgs, native.WidgetArgs, native.WidgetState];\n",
    );
    const typeCheck = run(process.execPath, [
      require.resolve("typescript/bin/tsc"),
      "-p",
      "tsconfig.json",
      "--noEmit",
    ]);
    expect(typeCheck.stdout).toBe("");
    expect(typeCheck.status).toBe(0);

    // Generation is complete: a second run finds nothing stale.
    const again = run(process.execPath, ["scripts/generate.mjs", "--check"]);
    expect([again.status, again.stderr]).toEqual([0, ""]);
  });
});
