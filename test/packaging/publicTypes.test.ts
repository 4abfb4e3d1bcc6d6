// The declarations a program's type check reads must reach only @pulumi/pulumi: Pulumi's older TypeScript
// template (module commonjs, no esModuleInterop, no skipLibCheck) fails on zod's own declaration files,
// and undici's need DOM-like globals. The subpaths for tools (api, emulator, provider) may use undici's.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";

/** Bare module specifiers imported by a declaration file and everything it imports, transitively. */
function externalImports(entry: string): Map<string, string[]> {
  const seen = new Set<string>();
  const external = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      if (!specifier) continue;
      if (specifier.startsWith(".")) {
        const base = path.resolve(path.dirname(file), specifier);
        const next = [`${base}.d.ts`, path.join(base, "index.d.ts")].find((f) => existsSync(f));
        if (next) visit(next);
      } else {
        external.set(specifier, [...(external.get(specifier) ?? []), path.relative(REPO_ROOT, file)]);
      }
    }
  };
  visit(entry);
  return external;
}

describe("public declarations", () => {
  it.each(["dist/index.d.ts", "dist/native/index.d.ts"])("%s reach no module but @pulumi/pulumi", (entry) => {
    const external = externalImports(path.join(REPO_ROOT, entry));
    expect(Object.fromEntries(external)).toEqual({ "@pulumi/pulumi": expect.any(Array) });
  });
});

describe("pulumi-gamehost/api", () => {
  it("declares the client without zod (its schemas are pulumi-gamehost/api/schemas)", () => {
    const external = [...externalImports(path.join(REPO_ROOT, "dist/api/index.d.ts")).keys()];
    expect(external.filter((specifier) => /^zod(\/|$)/.test(specifier))).toEqual([]);
    const schemas = externalImports(path.join(REPO_ROOT, "dist/api/schemas/index.d.ts"));
    expect(schemas.has("zod")).toBe(true);
  });
});

describe("pulumi-gamehost/emulator", () => {
  it("declares the emulator, its fixture, faults and mutations without zod or any other module", () => {
    const external = externalImports(path.join(REPO_ROOT, "dist/emulator/index.d.ts"));
    expect(Object.fromEntries(external)).toEqual({});
  });
});
