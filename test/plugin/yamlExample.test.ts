// The YAML example checked against the package schema, as Pulumi YAML's type checker would before it
// runs (no YAML language host runs here): every resource type, function, property and argument exists,
// required ones are given, literal enum values are allowed, and every `${…}` reference resolves to a
// config key, variable or resource and then to a property its schema has.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";

interface Spec {
  type?: string;
  $ref?: string;
  items?: Spec;
  additionalProperties?: Spec;
  oneOf?: Spec[];
  properties?: Record<string, Spec>;
  required?: string[];
  enum?: { value: string }[];
}
interface Schema {
  types: Record<string, Spec>;
  resources: Record<
    string,
    { properties: Record<string, Spec>; inputProperties: Record<string, Spec>; requiredInputs: string[] }
  >;
  functions: Record<string, { inputs?: Spec; outputs: Spec }>;
}
interface Program {
  plugins?: { providers?: { name: string; path: string }[] };
  config?: Record<string, unknown>;
  variables?: Record<string, { "fn::invoke": { function: string; arguments?: Record<string, unknown> } }>;
  resources: Record<string, { type: string; properties?: Record<string, unknown> }>;
  outputs?: Record<string, unknown>;
}

const EXAMPLE = path.join(REPO_ROOT, "examples", "yaml-quickstart");
const yaml = createRequire(require.resolve("@pulumi/pulumi"))("js-yaml") as { load(text: string): unknown };
const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "plugin", "schema.json"), "utf8")) as Schema;
const program = yaml.load(readFileSync(path.join(EXAMPLE, "Pulumi.yaml"), "utf8")) as Program;

/** The named type a spec refers to, if any. */
function target(spec: Spec): Spec | undefined {
  return spec.$ref?.startsWith("#/types/") ? schema.types[spec.$ref.slice("#/types/".length)] : undefined;
}

/** Problems of a literal value against a property spec (interpolations are checked separately). */
function valueProblems(spec: Spec, value: unknown, at: string): string[] {
  if (typeof value === "string" && value.includes("${")) return [];
  const named = target(spec);
  if (named?.enum) {
    return named.enum.some((e) => e.value === value)
      ? []
      : [`${at}: ${String(value)} is not one of the enum's values`];
  }
  const objectSpec = named ?? spec;
  if (objectSpec.properties && typeof value === "object" && value !== null) {
    return objectProblems(
      objectSpec.properties,
      objectSpec.required ?? [],
      value as Record<string, unknown>,
      at,
    );
  }
  if (spec.additionalProperties && typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([k, v]) =>
      valueProblems(spec.additionalProperties as Spec, v, `${at}.${k}`),
    );
  }
  if (spec.items && Array.isArray(value)) {
    return value.flatMap((v, i) => valueProblems(spec.items as Spec, v, `${at}[${i}]`));
  }
  return [];
}

function objectProblems(
  properties: Record<string, Spec>,
  required: readonly string[],
  given: Record<string, unknown>,
  at: string,
): string[] {
  const unknown = Object.keys(given)
    .filter((k) => !(k in properties))
    .map((k) => `${at}.${k}: no such property`);
  const missing = required.filter((k) => !(k in given)).map((k) => `${at}.${k}: required`);
  const values = Object.entries(given).flatMap(([k, v]) =>
    properties[k] ? valueProblems(properties[k], v, `${at}.${k}`) : [],
  );
  return [...unknown, ...missing, ...values];
}

/** Whether a property path (`datacenters[0].id`, `endpoints.web`) exists below a set of properties. */
function pathResolves(properties: Record<string, Spec>, segments: string[]): boolean {
  let spec: Spec = { properties };
  for (const segment of segments) {
    const named = target(spec) ?? spec;
    if (/^\[\d+\]$/.test(segment)) {
      if (!named.items) return false;
      spec = named.items;
    } else if (named.properties) {
      if (!named.properties[segment]) return false;
      spec = named.properties[segment];
    } else if (named.additionalProperties) {
      spec = named.additionalProperties;
    } else {
      return false;
    }
  }
  return true;
}

/** Every `${…}` expression anywhere in a value. */
function references(value: unknown): string[] {
  if (typeof value === "string") return [...value.matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1] as string);
  if (Array.isArray(value)) return value.flatMap(references);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(references);
  return [];
}

describe("examples/yaml-quickstart", () => {
  it("points the engine at the plugin folder the npm package ships", () => {
    const entry = program.plugins?.providers?.find((p) => p.name === "gamehost");
    expect(entry?.path).toBe("./node_modules/pulumi-gamehost/plugin");
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { files: string[] };
    expect(pkg.files).toContain("plugin");
    const example = JSON.parse(readFileSync(path.join(EXAMPLE, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    // From a clone, `npm install` takes the package from the clone itself, never the registry (README of the example).
    expect(example.dependencies["pulumi-gamehost"]).toBe("file:../..");
  });

  it("declares resources and invokes with properties and arguments the schema has", () => {
    const problems: string[] = [];
    for (const [name, resource] of Object.entries(program.resources)) {
      const spec = schema.resources[resource.type];
      if (!spec) {
        problems.push(`${name}: no resource type ${resource.type}`);
        continue;
      }
      problems.push(
        ...objectProblems(spec.inputProperties, spec.requiredInputs, resource.properties ?? {}, name),
      );
    }
    for (const [name, variable] of Object.entries(program.variables ?? {})) {
      const invoke = variable["fn::invoke"];
      const fn = schema.functions[invoke.function];
      if (!fn) {
        problems.push(`${name}: no function ${invoke.function}`);
        continue;
      }
      problems.push(
        ...objectProblems(
          fn.inputs?.properties ?? {},
          fn.inputs?.required ?? [],
          invoke.arguments ?? {},
          name,
        ),
      );
    }
    expect(problems).toEqual([]);
    expect(Object.keys(program.resources).length).toBeGreaterThan(0);
  });

  it("refers only to config, variables and resources that exist, by properties they have", () => {
    const expressions = references([program.variables, program.resources, program.outputs]);
    expect(expressions.length).toBeGreaterThan(5);
    const unresolved = expressions.filter((expression) => {
      const [root = "", ...rest] = expression.replace(/\[/g, ".[").split(".");
      if (program.config && root in program.config) return rest.length > 0;
      const variable = program.variables?.[root];
      if (variable) {
        const fn = schema.functions[variable["fn::invoke"].function];
        return !fn || !pathResolves(fn.outputs.properties ?? {}, rest);
      }
      const resource = program.resources[root];
      if (resource) {
        const spec = schema.resources[resource.type];
        return !spec || !pathResolves(spec.properties, rest);
      }
      return true;
    });
    expect(unresolved).toEqual([]);
  });
});
