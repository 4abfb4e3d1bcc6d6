/**
 * A Python program in the docs gives an enum-typed property its SDK's enum member, never a string literal:
 * the generated SDK types such a property as the enum class (`pulumi.Input['PortProtocol']`), so
 * `"protocol": "udp"` runs but fails `mypy --strict` and `pyright`, which a typed team runs on the program
 * it copied from the docs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { blocksOf, docPages } from "../support/docBlocks";

interface SchemaProperty {
  readonly $ref?: string;
}
interface Schema {
  readonly types: Record<string, { enum?: unknown[]; properties?: Record<string, SchemaProperty> }>;
  readonly resources: Record<string, { inputProperties?: Record<string, SchemaProperty> }>;
  readonly functions: Record<string, { inputs?: { properties?: Record<string, SchemaProperty> } }>;
}

const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "plugin/schema.json"), "utf8")) as Schema;
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** snake_case names of every property (of a type, a resource's inputs, a function's inputs) typed by an enum. */
function enumProperties(): string[] {
  const isEnum = (p: SchemaProperty) => Boolean(p.$ref && schema.types[p.$ref.split("/").pop() ?? ""]?.enum);
  const groups = [
    ...Object.values(schema.types).map((t) => t.properties ?? {}),
    ...Object.values(schema.resources).map((r) => r.inputProperties ?? {}),
    ...Object.values(schema.functions).map((f) => f.inputs?.properties ?? {}),
  ];
  return [
    ...new Set(
      groups.flatMap((g) =>
        Object.entries(g)
          .filter(([, p]) => isEnum(p))
          .map(([k]) => snake(k)),
      ),
    ),
  ];
}

describe("Python blocks of the docs", () => {
  it("give enum-typed properties the SDK's enum members, not string literals", () => {
    const names = enumProperties();
    expect(names).toEqual(expect.arrayContaining(["protocol", "intent", "mode"]));
    const literal = new RegExp(`(?:"(?:${names.join("|")})":\\s*|\\b(?:${names.join("|")})=)"`);
    const found = docPages()
      .flatMap((page) => blocksOf(page))
      .filter((block) => block.lang === "python")
      .flatMap((block) =>
        block.text
          .split("\n")
          .filter((line) => literal.test(line))
          .map((line) => `${block.page}:${block.line} ${line.trim()}`),
      );
    expect(found).toEqual([]);
  });
});
