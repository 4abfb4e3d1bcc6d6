// Loads the package's TypeScript sources (src/) in plain Node, so the generators read the kind definitions as
// written rather than a dist/ that may be stale or, after a rename, not build at all. Each `.ts` file is
// transpiled on require by the TypeScript compiler the repo already has (no type check: `npm run check` does
// that), to CommonJS as `npm run build` emits it.
import { createRequire } from "node:module";
import path from "node:path";

/** A `require` that loads `src/**\/*.ts` of the repository at `repo`. */
export function sourceRequire(repo) {
  const require = createRequire(path.join(repo, "package.json"));
  const ts = require("typescript");
  const Module = require("node:module");
  if (!Module._extensions[".ts"]) {
    const options = {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      resolveJsonModule: true,
      sourceMap: false,
      inlineSourceMap: true,
    };
    Module._extensions[".ts"] = (module, filename) => {
      const source = ts.sys.readFile(filename);
      const { outputText } = ts.transpileModule(source, { compilerOptions: options, fileName: filename });
      module._compile(outputText, filename);
    };
  }
  return require;
}
