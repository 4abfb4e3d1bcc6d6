/**
 * The Usage programs of the generated reference (docs/reference/*.md, `check` blocks written by
 * scripts/generate/docs.mjs), as the pages show them: the TypeScript ones type-check, strict, against the
 * package (`pulumi-gamehost`, resolved as a project resolves it); the YAML ones name only tokens, arguments and
 * properties of plugin/schema.json, with every required one given; the Python ones compile and call only
 * functions and classes of the SDK generated from that schema, with its snake_case argument names.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { blocksOf, docPages } from "../support/docBlocks";
import { linkNodeModules } from "../support/examples";

/** YAML as the SDK reads it (js-yaml, a dependency of @pulumi/pulumi). */
const yaml = createRequire(require.resolve("@pulumi/pulumi/package.json"))("js-yaml") as {
  load(text: string): unknown;
};

interface Properties {
  properties?: Record<string, unknown>;
  required?: string[];
}
const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "plugin", "schema.json"), "utf8")) as {
  resources: Record<string, { inputProperties: Record<string, unknown>; requiredInputs?: string[] }>;
  functions: Record<string, { inputs?: Properties; outputs: Properties }>;
};
const snake = (text: string) => text.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const pages = docPages().filter((p) => p.startsWith("docs/reference/") && !p.endsWith("_index.md"));
const usage = pages.flatMap((page) => blocksOf(page).filter((b) => b.check));
const root = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-reference-usage-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("the Usage programs of docs/reference", () => {
  it("are on every page, one per language, with no placeholders", () => {
    for (const page of pages) {
      const langs = usage.filter((b) => b.page === page).map((b) => b.lang);
      expect(langs, page).toEqual(["ts", "yaml", "python"]);
    }
    for (const block of usage) expect(block.text, block.page).not.toMatch(/\{ \.\.\. \}|\(\.\.\.\)|…\)/);
  });

  it("TypeScript: each type-checks against pulumi-gamehost, strict", () => {
    linkNodeModules(root);
    const files = usage
      .filter((b) => b.lang === "ts")
      .map((b) => {
        const file = path.join(root, `${path.basename(b.page, ".md")}.ts`);
        fs.writeFileSync(file, b.text);
        return file;
      });
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(errors).toEqual([]);
  });

  it("YAML: each names only the schema's tokens, arguments and properties, required ones given", () => {
    for (const block of usage.filter((b) => b.lang === "yaml")) {
      const program = yaml.load(block.text) as {
        variables?: Record<
          string,
          { "fn::invoke": { function: string; arguments?: Record<string, unknown> } }
        >;
        resources?: Record<string, { type: string; properties: Record<string, unknown> }>;
        outputs: Record<string, string>;
      };
      const results = new Map<string, Properties>();
      for (const [name, variable] of Object.entries(program.variables ?? {})) {
        const invoke = variable["fn::invoke"];
        const fn = schema.functions[invoke.function];
        expect(fn, `${block.page}: ${invoke.function}`).toBeDefined();
        const given = Object.keys(invoke.arguments ?? {});
        for (const arg of given) expect(Object.keys(fn?.inputs?.properties ?? {}), block.page).toContain(arg);
        for (const req of fn?.inputs?.required ?? []) expect(given, block.page).toContain(req);
        if (fn) results.set(name, fn.outputs);
      }
      for (const resource of Object.values(program.resources ?? {})) {
        const spec = schema.resources[resource.type];
        expect(spec, `${block.page}: ${resource.type}`).toBeDefined();
        const given = Object.keys(resource.properties);
        for (const p of given) expect(Object.keys(spec?.inputProperties ?? {}), block.page).toContain(p);
        for (const req of spec?.requiredInputs ?? []) expect(given, block.page).toContain(req);
      }
      // `${result.<property>}` of a function names a property of its result.
      for (const value of Object.values(program.outputs)) {
        const [variable, property] = /^\$\{(\w+)\.(\w+)\}$/.exec(value)?.slice(1) ?? [];
        const outputs = variable ? results.get(variable) : undefined;
        if (outputs) expect(Object.keys(outputs.properties ?? {}), block.page).toContain(property);
      }
      expect(Object.keys(program.outputs).length, block.page).toBe(1);
    }
  });

  it("Python: each compiles and calls only the SDK's functions and classes, with its argument names", () => {
    const names = new Map<string, string[]>();
    for (const [token, fn] of Object.entries(schema.functions)) {
      const args = Object.keys(fn.inputs?.properties ?? {}).map(snake);
      names.set(snake(token.split(":")[2] ?? ""), args);
      names.set(`${snake(token.split(":")[2] ?? "")}_output`, args);
    }
    for (const [token, r] of Object.entries(schema.resources))
      names.set(token.split(":")[2] ?? "", [...Object.keys(r.inputProperties).map(snake), "opts"]);
    for (const block of usage.filter((b) => b.lang === "python")) {
      const file = path.join(root, `${path.basename(block.page, ".md")}.py`);
      fs.writeFileSync(file, block.text);
      const compiled = spawnSync("python3", ["-m", "py_compile", file], { encoding: "utf8" });
      expect(compiled.status, `${block.page}: ${compiled.stderr}`).toBe(0);
      // Each call `gamehost.<name>(…)`, with its keyword arguments (a call spans lines up to its `)`).
      for (const call of block.text.matchAll(/gamehost\.(\w+)\(((?:[^()]|\([^()]*\))*)\)/g)) {
        const [, name = "", args = ""] = call;
        expect(names.has(name), `${block.page}: gamehost.${name}`).toBe(true);
        for (const [, keyword] of args.matchAll(/(?:^|,)\s*(\w+)=/g))
          expect(names.get(name), `${block.page}: ${name}(${keyword}=…)`).toContain(keyword);
      }
    }
  });
});
