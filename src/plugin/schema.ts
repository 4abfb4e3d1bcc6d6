/**
 * The Pulumi package schema of `gamehost`, generated from the zod schemas the kinds and data sources
 * check with: property names, types, required fields and descriptions come from there (wire names
 * camelCased), so the schema, the checks and the docs generated from the schema cannot drift.
 */
import { z } from "zod";
import { snakeToCamel } from "../api/case";
import { CONFIG_KEYS } from "../api/config";
import { PACKAGE_NAME, PACKAGE_VERSION, PLUGIN_DOWNLOAD_URL, REPOSITORY_URL } from "../version";
import { ProviderConfig, SECRET_CONFIG } from "./config";
import { FUNCTION_ENTRIES, MODULE, PACKAGE, type PropertySource, RESOURCES } from "./registry";

/** A JSON Schema node as `z.toJSONSchema` writes it (the parts read here). */
interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
}

/** A property or type reference of the package schema (`#/$defs/propertySpec`). */
export interface PropertySpec {
  type?: string;
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  oneOf?: PropertySpec[];
  description?: string;
  secret?: boolean;
  defaultInfo?: { environment: string[] };
}

/** An object type of the package schema. */
export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

/** An enum type of the package schema. */
export interface EnumTypeSpec {
  type: "string";
  description?: string;
  enum: { value: string; name?: string }[];
}

/** The package schema, the parts this package fills. */
export interface PackageSchema {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  homepage: string;
  repository: string;
  license: string;
  publisher: string;
  pluginDownloadURL: string;
  meta: { moduleFormat: string };
  config: { variables: Record<string, PropertySpec> };
  provider: { description: string; inputProperties: Record<string, PropertySpec> };
  types: Record<string, ObjectTypeSpec | EnumTypeSpec>;
  resources: Record<
    string,
    ObjectTypeSpec & {
      inputProperties: Record<string, PropertySpec>;
      requiredInputs: string[];
      /** What `List` takes (`pulumi do <token> list`); absent for a kind that cannot list. */
      listInputs?: ObjectTypeSpec;
    }
  >;
  /** `inputs` is absent for a function without arguments. */
  functions: Record<string, { description: string; inputs?: ObjectTypeSpec; outputs: ObjectTypeSpec }>;
  language: Record<string, Record<string, unknown>>;
}

const tokenOf = (name: string) => `${PACKAGE}:${MODULE}:${name}`;
const pascal = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** `ports` → `Port`: the element of a collection. */
const singular = (text: string) => (text.endsWith("s") ? text.slice(0, -1) : text);

/** Builds the named types while it turns JSON Schema into package-schema properties. */
class SchemaWriter {
  readonly types: Record<string, ObjectTypeSpec | EnumTypeSpec> = {};

  /** The object's properties, camelCased; nested objects become named types. */
  object(node: JsonSchema, defs: Record<string, JsonSchema>, owner: string): ObjectTypeSpec {
    const properties: Record<string, PropertySpec> = {};
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const name = snakeToCamel(key);
      properties[name] = this.property(child, defs, `${owner}${pascal(name)}`);
    }
    return {
      type: "object",
      ...(node.description ? { description: node.description } : {}),
      properties,
      ...(node.required?.length ? { required: node.required.map(snakeToCamel) } : {}),
    };
  }

  /** One property: a primitive, array, map, union or a reference to a named type. */
  property(node: JsonSchema, defs: Record<string, JsonSchema>, nameIfObject: string): PropertySpec {
    const description = node.description ? { description: node.description } : {};
    if (node.$ref) {
      const id = node.$ref.replace("#/$defs/", "");
      const target = defs[id] ?? {};
      return this.property({ ...target, description: node.description ?? target.description }, defs, id);
    }
    const union = node.anyOf ?? node.oneOf;
    if (union) {
      return {
        oneOf: union.map((u, i) => this.property(u, defs, `${nameIfObject}${i}`)),
        ...description,
      };
    }
    if (node.enum) {
      const token = tokenOf(nameIfObject);
      this.types[token] ??= {
        type: "string",
        ...(node.description ? { description: node.description } : {}),
        enum: node.enum.map((value) => ({ value: String(value) })),
      };
      return { $ref: `#/types/${token}`, ...description };
    }
    switch (node.type) {
      case "string":
      case "boolean":
      case "integer":
      case "number":
        return { type: node.type, ...description };
      case "array":
        return {
          type: "array",
          items: this.property(node.items ?? {}, defs, singular(nameIfObject)),
          ...description,
        };
      case "object": {
        if (node.properties) {
          const token = tokenOf(nameIfObject);
          this.types[token] ??= this.object(node, defs, nameIfObject);
          return { $ref: `#/types/${token}`, ...description };
        }
        const values = typeof node.additionalProperties === "object" ? node.additionalProperties : undefined;
        return {
          type: "object",
          ...(values ? { additionalProperties: this.property(values, defs, singular(nameIfObject)) } : {}),
          ...description,
        };
      }
      default:
        return { $ref: "pulumi.json#/Any", ...description };
    }
  }

  /** The properties of several sources merged (their keys never overlap). */
  merged(sources: readonly PropertySource[], owner: string): ObjectTypeSpec {
    const merged: ObjectTypeSpec = { type: "object", properties: {}, required: [] };
    for (const schema of sources) {
      const json = jsonSchemaOf(schema, owner);
      const part = this.object(json, json.$defs ?? {}, owner);
      Object.assign(merged.properties, part.properties);
      merged.required?.push(...(part.required ?? []));
    }
    return merged;
  }
}

/**
 * A property whose zod type no package schema can describe (a `Date`, a bigint, a `Map`…), by its owner and name:
 * `npm run generate` prints the message alone. (Written as "any JSON value" instead, such a property reached every
 * language's SDK and the reference as something it is not.)
 */
export class UndescribableProperty extends Error {
  override name = "UndescribableProperty";
}

/** JSON Schema of what a schema accepts (its input side: transforms and defaults do not change it). */
function jsonSchemaOf(schema: z.ZodType, owner: string): JsonSchema {
  const describe = (part: z.ZodType) => z.toJSONSchema(part, { io: "input" }) as JsonSchema;
  try {
    return describe(schema);
  } catch (error) {
    // Not zod's "cannot be represented": a bug, with its own message and stack.
    if (!(error instanceof Error) || !/cannot be represented/.test(error.message)) throw error;
    const shape: Record<string, z.ZodType> = schema instanceof z.ZodObject ? schema.shape : {};
    const field = Object.keys(shape).find((key) => {
      try {
        describe(shape[key] as z.ZodType);
        return false;
      } catch {
        return true;
      }
    });
    throw new UndescribableProperty(
      `${owner}'s property ${field === undefined ? "(unknown)" : snakeToCamel(field)} has a zod type no package schema ` +
        `can describe (${(error as Error).message}): give it one of strings, numbers, booleans, enums, arrays, records or objects`,
    );
  }
}

/** A listing's query as the schema's `listInputs` (with its description). */
function listInputsOf(writer: SchemaWriter, source: PropertySource): ObjectTypeSpec {
  const { description } = jsonSchemaOf(source, "List");
  const spec = writer.merged([source], "List");
  if (!spec.required?.length) delete spec.required;
  return description ? { ...spec, description } : spec;
}

function resourceSpecs(writer: SchemaWriter): PackageSchema["resources"] {
  const resources: PackageSchema["resources"] = {};
  for (const entry of RESOURCES) {
    const inputs = writer.merged(entry.kind.inputs, entry.kind.name);
    const computed = writer.merged([entry.kind.computed], entry.kind.name);
    const properties: Record<string, PropertySpec> = { ...inputs.properties, ...computed.properties };
    for (const name of entry.kind.secretOutputs) properties[name] = { ...properties[name], secret: true };
    resources[entry.token] = {
      type: "object",
      description: entry.kind.description,
      properties,
      required: [...new Set([...(inputs.required ?? []), ...(computed.required ?? [])])],
      inputProperties: inputs.properties,
      requiredInputs: inputs.required ?? [],
      ...(entry.kind.listing ? { listInputs: listInputsOf(writer, entry.kind.listing.inputs) } : {}),
    };
  }
  return resources;
}

function functionSpecs(writer: SchemaWriter): PackageSchema["functions"] {
  const functions: PackageSchema["functions"] = {};
  for (const { token, definition } of FUNCTION_ENTRIES) {
    const owner = pascal(definition.name);
    const outputs = writer.merged([definition.result], `${owner}Result`);
    if (definition.secret) {
      for (const name of Object.keys(outputs.properties)) {
        outputs.properties[name] = { ...outputs.properties[name], secret: true };
      }
    }
    const inputs = writer.merged([definition.args], `${owner}Args`);
    functions[token] = {
      description: definition.description,
      // None for a function without arguments: Pulumi's generators then emit `getX(opts?)`, as the native
      // face declares it, instead of `getX(args?, opts?)` with an empty args type.
      ...(Object.keys(inputs.properties).length > 0 ? { inputs } : {}),
      outputs,
    };
  }
  return functions;
}

function configVariables(writer: SchemaWriter): Record<string, PropertySpec> {
  const { properties } = writer.merged([ProviderConfig], "Provider");
  const variables: Record<string, PropertySpec> = {};
  for (const [name, spec] of Object.entries(properties)) {
    const env = CONFIG_KEYS[name as keyof typeof CONFIG_KEYS]?.env;
    variables[name] = {
      ...spec,
      ...((SECRET_CONFIG as readonly string[]).includes(name) ? { secret: true } : {}),
      // Only on single-typed variables: Go's generator reads an environment default into a union-typed
      // input as invalid Go (`pulumi.(d.(string))`), and needs none, since the provider falls back to
      // the variable itself (readSettings).
      ...(env && spec.type !== undefined ? { defaultInfo: { environment: [env] } } : {}),
    };
  }
  return variables;
}

/** The package schema of the provider. */
export function packageSchema(): PackageSchema {
  const writer = new SchemaWriter();
  const variables = configVariables(writer);
  const resources = resourceSpecs(writer);
  const functions = functionSpecs(writer);
  return {
    name: PACKAGE,
    displayName: "Gamehost",
    version: PACKAGE_VERSION,
    description:
      "Game servers and lobby-history exports of a multiplayer game hosting platform as code, and data sources for its games, environments, datacenters, builds and billing.",
    keywords: ["pulumi", "gamehost", "game-servers", "category/infrastructure", "kind/native"],
    homepage: REPOSITORY_URL,
    repository: "https://github.com/pulumi-gamehost/pulumi-gamehost",
    license: "Apache-2.0",
    publisher: "pulumi-gamehost",
    // The generated SDKs hand it to the CLI, which downloads a missing plugin from the release archives there.
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    meta: { moduleFormat: "(.*)" },
    config: { variables },
    provider: {
      description: "The provider type of the gamehost package: one per service base URL and token.",
      inputProperties: variables,
    },
    types: writer.types,
    resources,
    functions,
    // respectSchemaVersion: the generated SDKs carry the schema's version (the package's). Without it they
    // are 0.0.0 (a placeholder for a publishing step to fill in), and a program on such an SDK asks the
    // engine for gamehost 0.0.0, which no plugin is.
    language: {
      // packageName is what generated TypeScript imports (`pulumi import`, `convert`): the plugin's TypeScript
      // face that the npm package ships, so that code compiles as printed. (A nodejs SDK generated from this
      // schema is not a product: TypeScript programs use pulumi-gamehost/native; see docs/languages.md.)
      nodejs: {
        packageName: `${PACKAGE_NAME}/native`,
        packageDescription: "A Pulumi SDK for the gamehost provider plugin (pulumi-resource-gamehost).",
        respectSchemaVersion: true,
      },
      python: { packageName: "pulumi_gamehost", respectSchemaVersion: true },
      go: { importBasePath: "example.com/pulumi-gamehost/sdk/go/gamehost", respectSchemaVersion: true },
      csharp: { rootNamespace: "Gamehost", packageReferences: { Pulumi: "3.*" } },
    },
  };
}

let cachedText: string | undefined;

/** The package schema as GetSchema answers it (computed once). */
export function packageSchemaText(): string {
  cachedText ??= JSON.stringify(packageSchema());
  return cachedText;
}
