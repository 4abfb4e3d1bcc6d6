/**
 * A TypeScript ES module as a reader writes it beside a project (a script of the docs): type-checked
 * strictly, as `nodenext` for its top-level await, against the project's node_modules, then turned into the
 * JavaScript that `node` runs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { expect } from "vitest";

/** Writes `source` to `dir/<name>.mts`, asserts it type-checks, and writes `dir/<name>.mjs`: its path. */
export function writeCheckedModule(dir: string, name: string, source: string): string {
  const file = path.join(dir, `${name}.mts`);
  fs.writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    typeRoots: [path.join(dir, "node_modules", "@types")],
  });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  expect(errors, `${name}.mts type-checks`).toEqual([]);
  const js = path.join(dir, `${name}.mjs`);
  fs.writeFileSync(
    js,
    ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText,
  );
  return js;
}
