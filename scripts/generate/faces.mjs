// The TypeScript faces of the kinds and data sources (src/kinds/), as Pulumi's code generator shapes them:
// the dynamic resource classes with their serialized shims and the modules those shims load
// (src/dynamic/host/), the native classes with `version` and resource-module registration, and the
// data-source wrappers of both faces. Everything a face says about a kind comes from its definition (name,
// description, secrets) or from the package schema's generated types, so adding a kind is one definition.
import { existsSync } from "node:fs";
import path from "node:path";
import { doc, HEADER } from "./typescript.mjs";

const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);
const pascal = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * What the TypeScript classes of a kind take beyond the schema's types: `src/typescript/<kind>.ts`, when it
 * exists, exports `<Kind>Args` and `<kind>Inputs(args)` (e.g. a `Date` where the schema has a string).
 */
function argsOf(repo, kind) {
  const lower = lowerFirst(kind.name);
  if (existsSync(path.join(repo, "src", "typescript", `${lower}.ts`)))
    return { module: `../typescript/${lower}`, type: `${kind.name}Args`, convert: `${lower}Inputs` };
  return undefined;
}

function dynamicResources(repo, kinds) {
  const adapted = kinds.map((k) => [k, argsOf(repo, k)]);
  let text = `${HEADER}import * as pulumi from "@pulumi/pulumi";\nimport * as types from "../../types";\n`;
  for (const [, args] of adapted)
    if (args)
      text += `import { type ${args.type}, ${args.convert} } from "${args.module.replace("../", "../../")}";\n`;
  text += `import { registeredInputs } from "../../typescript/registration";\n\n`;
  for (const [kind, args] of adapted) {
    const lower = lowerFirst(kind.name);
    const subpath = `pulumi-gamehost/provider/${kind.hostSubpath}`;
    const methods = [
      "configure",
      "check",
      "diff",
      "create",
      "read",
      ...(kind.updates ? ["update"] : []),
      "delete",
    ];
    text +=
      doc(
        `The serialized provider of every ${kind.name}. Pulumi stores this object's code in the stack state and runs it later in\n` +
          `a separate host process, so each method only loads the implementation through the package subpath \`${subpath}\`\n` +
          "at call time: nothing of this package (schemas, clients, config) is captured. One shared instance, because the SDK\n" +
          "caches serialization per provider object; arrows that use no `this` keep the text small.\n@internal",
      ) +
      `export const ${lower}Provider: pulumi.dynamic.ResourceProvider = {\n` +
      methods.map((m) => `  ${m}: (...a) => require("${subpath}").${m}(...a),\n`).join("") +
      "};\n\n";
    text += `// The outputs come from the package schema, merged into the class: no class field can overwrite what the SDK sets.\nexport interface ${kind.name} extends types.${kind.name}Outputs {}\n\n`;
    text +=
      doc(
        `${kind.description}\n\nA dynamic resource (\`pulumi-nodejs:dynamic/gamehost:${kind.name}\`): nothing to install.`,
      ) +
      "// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merge only adds the outputs the SDK sets\n" +
      `export class ${kind.name} extends pulumi.dynamic.Resource {\n` +
      `  constructor(name: string, args: ${args ? args.type : `types.${kind.name}Args`}, opts?: pulumi.CustomResourceOptions) {\n` +
      `    const props = registeredInputs(${args ? `${args.convert}(args)` : "args"}, {}, types.${lower}InputProperties, types.${lower}ComputedOutputs);\n` +
      (kind.secretOutputs.length > 0
        ? `    const options = pulumi.mergeOptions(opts, { additionalSecretOutputs: [...types.${lower}SecretOutputs] });\n`
        : "    const options = opts;\n") +
      `    super(${lower}Provider, name, props, options, "gamehost", "${kind.name}");\n  }\n}\n\n`;
  }
  return text;
}

function hostModule(kind) {
  return (
    `${HEADER}` +
    doc(
      `What \`pulumi-gamehost/provider/${kind.hostSubpath}\` loads: the ${kind.name} kind as the dynamic provider host calls it.\n` +
        `The serialized shim of every ${kind.name} in stack state \`require\`s that subpath at call time, so the exported\n` +
        "names and shapes stay as deployed stacks call them.",
    ) +
    `import { ${lowerFirst(kind.name)}Kind } from "../../kinds/${lowerFirst(kind.name)}/implementation";\n` +
    `import { dynamicHostModule } from "../hostModule";\n\n` +
    `export { configure } from "../settings";\n\n` +
    `const host = dynamicHostModule(${lowerFirst(kind.name)}Kind);\n` +
    "export const { check, diff, create, read, update } = host;\n" +
    "const deleteResource = host.delete;\n\nexport { deleteResource as delete };\n"
  );
}

/** The explicit provider class, from the schema's provider inputs (secret ones wrapped as secrets). */
function providerClass(schema) {
  const props = Object.entries(schema.provider.inputProperties);
  const secrets = props.filter(([, spec]) => spec.secret).map(([name]) => name);
  return (
    doc(
      `${schema.provider.description}\n\nAn explicit gamehost provider (\`pulumi:providers:gamehost\`): a second base URL or token in one\n` +
        'program, e.g. `new Server("s", args, { provider })`. Without one, resources use the default provider, configured\n' +
        "by `gamehost:baseUrl` / `gamehost:token` (or `GAMEHOST_BASE_URL` / `GAMEHOST_TOKEN`).",
    ) +
    'export class Provider extends pulumi.ProviderResource {\n  /** @internal */\n  static readonly __pulumiType = "gamehost";\n\n' +
    "  /** Whether `obj` is a gamehost provider (also across copies of the package). */\n" +
    "  static override isInstance(obj: unknown): obj is Provider {\n    // An instance's type is its token, `pulumi:providers:<package>`.\n" +
    '    return pulumi.ProviderResource.isInstance(obj) && (obj as { __pulumiType?: string }).__pulumiType === "pulumi:providers:gamehost";\n  }\n\n' +
    "  constructor(name: string, args?: types.ProviderArgs, opts?: pulumi.ResourceOptions) {\n    const inputs: pulumi.Inputs = {\n" +
    props
      .map(([name, spec]) =>
        spec.secret
          ? `      ${name}: args?.${name} === undefined ? undefined : pulumi.secret(args.${name}),\n`
          : `      ${name}: args?.${name},\n`,
      )
      .join("") +
    `    };\n    super(Provider.__pulumiType, name, inputs, pulumi.mergeOptions(opts, { version: PACKAGE_VERSION, additionalSecretOutputs: ${JSON.stringify(secrets)} }));\n  }\n}\n\n`
  );
}

function nativeResources(repo, kinds, schema) {
  const adapted = kinds.map((k) => [k, argsOf(repo, k)]);
  let text = `${HEADER}import * as pulumi from "@pulumi/pulumi";\nimport * as types from "../../types";\n`;
  for (const [, args] of adapted)
    if (args)
      text += `import { type ${args.type}, ${args.convert} } from "${args.module.replace("../", "../../")}";\n`;
  text += `import { registeredInputs } from "../../typescript/registration";\nimport { PACKAGE_VERSION } from "../../version";\n\n`;
  text += providerClass(schema);
  for (const [kind, args] of adapted) {
    const lower = lowerFirst(kind.name);
    const token = `gamehost:index:${kind.name}`;
    const argsType = args ? args.type : `types.${kind.name}Args`;
    text += `// The outputs come from the package schema, merged into the class, as for the dynamic face.\nexport interface ${kind.name} extends types.${kind.name}Outputs {}\n\n`;
    text +=
      doc(`${kind.description}\n\nManaged by the gamehost provider plugin (\`${token}\`).`) +
      "// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the merge only adds the outputs the SDK sets\n" +
      `export class ${kind.name} extends pulumi.CustomResource {\n` +
      `  /** @internal */\n  static readonly __pulumiType = "${token}";\n\n` +
      doc(
        `An existing ${kind.name}, read by the plugin, not managed: \`id\` is its id; \`state\` may hold some of its properties\n(what the kind needs beyond the id to find it).`,
        "  ",
      ) +
      `  static get(name: string, id: pulumi.Input<pulumi.ID>, state?: types.${kind.name}State, opts?: pulumi.CustomResourceOptions): ${kind.name} {\n` +
      `    return new ${kind.name}(name, state as ${argsType}, { ...opts, id });\n  }\n\n` +
      `  /** Whether \`obj\` is a ${kind.name} of this face (also across copies of the package). */\n` +
      `  static override isInstance(obj: unknown): obj is ${kind.name} {\n` +
      `    return pulumi.CustomResource.isInstance(obj) && (obj as { __pulumiType?: string }).__pulumiType === ${kind.name}.__pulumiType;\n  }\n\n` +
      `  constructor(name: string, args: ${argsType}, opts?: pulumi.CustomResourceOptions) {\n` +
      `    const options = pulumi.mergeOptions(opts, { version: PACKAGE_VERSION${kind.secretOutputs.length > 0 ? `, additionalSecretOutputs: [...types.${lower}SecretOutputs]` : ""} });\n` +
      (args
        ? `    const lookup = options.id !== undefined || options.urn !== undefined;\n    const given = lookup || !args ? args : ${args.convert}(args);\n`
        : "    const given = args;\n") +
      `    super(${kind.name}.__pulumiType, name, registeredInputs(given, options, types.${lower}InputProperties, types.${lower}ComputedOutputs), options);\n  }\n}\n\n`;
  }
  text +=
    "// What Pulumi's generator registers: the engine can rebuild these resources (and the provider) by URN, e.g. for\n// a component's children or a stack reference.\n" +
    'pulumi.runtime.registerResourceModule("gamehost", "index", {\n  version: PACKAGE_VERSION,\n  construct: (name: string, type: string, urn: string): pulumi.Resource => {\n    switch (type) {\n' +
    kinds
      .map(
        (k) =>
          `      case ${k.name}.__pulumiType:\n        return new ${k.name}(name, {} as ${argsOf(repo, k)?.type ?? `types.${k.name}Args`}, { urn });\n`,
      )
      .join("") +
    `      default:\n        throw new Error(\`unknown resource type \${type}\`);\n    }\n  },\n});\n` +
    'pulumi.runtime.registerResourcePackage("gamehost", {\n  version: PACKAGE_VERSION,\n  constructProvider: (name: string, type: string, urn: string): pulumi.ProviderResource => {\n' +
    `    if (type !== "pulumi:providers:gamehost") throw new Error(\`unknown provider type \${type}\`);\n    return new Provider(name, undefined, { urn });\n  },\n});\n`;
  return text;
}

/** Data-source wrappers: `face` is `dynamic` (run in the program) or `native` (invokes of the plugin). */
function functionWrappers(functions, face) {
  const names = [];
  let body = "";
  for (const f of functions) {
    const p = pascal(f.name);
    const hasArgs = Object.keys(f.args.shape ?? {}).length > 0;
    names.push(`${p}Result`, ...(hasArgs ? [`${p}Args`, `${p}OutputArgs`] : []));
    const argsIn = (type) => (hasArgs ? `args: types.${type}, ` : "");
    const argsOut = hasArgs ? "{ ...args }" : "{}";
    const outputDoc = `Output form of {@link ${f.name}}${f.secret ? ": the result is a secret" : ""}.`;
    if (face === "dynamic") {
      body +=
        doc(f.description) +
        `export function ${f.name}(${argsIn(`${p}Args`).replace(/, $/, "")}): Promise<types.${p}Result> {\n  return runFunction(FUNCTIONS.${f.name}, ${hasArgs ? "args" : "{}"});\n}\n` +
        doc(outputDoc) +
        `export function ${f.name}Output(${argsIn(`${p}OutputArgs`)}opts?: pulumi.InvokeOutputOptions): pulumi.Output<types.${p}Result> {\n  return outputFunction(FUNCTIONS.${f.name}, ${hasArgs ? "args" : "{}"}, opts);\n}\n\n`;
    } else {
      body +=
        doc(f.description) +
        `export function ${f.name}(${argsIn(`${p}Args`)}opts?: pulumi.InvokeOptions): Promise<types.${p}Result> {\n  return pulumi.runtime.invoke("gamehost:index:${f.name}", ${argsOut}, opts);\n}\n` +
        doc(outputDoc) +
        `export function ${f.name}Output(${argsIn(`${p}OutputArgs`)}opts?: pulumi.InvokeOutputOptions): pulumi.Output<types.${p}Result> {\n  return pulumi.runtime.invokeOutput("gamehost:index:${f.name}", ${argsOut}, opts);\n}\n\n`;
    }
  }
  const head =
    face === "dynamic"
      ? `${HEADER}// The data sources in the program's own process (the dynamic face): each runs its definition with a client\n// built from the stack config.\nimport type * as pulumi from "@pulumi/pulumi";\nimport { FUNCTIONS } from "../../kinds/functions";\nimport type * as types from "../../types";\nimport { outputFunction, runFunction } from "../runFunction";\n\n`
      : `${HEADER}// The data sources as invokes of the provider plugin (\`gamehost:index:<name>\`): they run in the plugin, configured\n// like its resources (the default provider, or \`opts.provider\`). The Output forms wait for their arguments and keep\n// secrets secret.\nimport * as pulumi from "@pulumi/pulumi";\nimport type * as types from "../../types";\n\n`;
  return { text: head + body, typeNames: names };
}

/** Every generated face file, by repo-relative path. */
export function faceModules(repo, kinds, functions, schema) {
  const list = Object.values(functions);
  const dynamicFunctions = functionWrappers(list, "dynamic");
  const typeNames = [...dynamicFunctions.typeNames].sort();
  const typeList =
    `${HEADER}// The types of the data sources, re-exported at the root of both faces.\n` +
    `export type {\n${typeNames.map((n) => `  ${n},\n`).join("")}} from "../../types";\n`;
  const files = {
    "src/dynamic/generated/functions.ts": dynamicFunctions.text,
    "src/dynamic/generated/resources.ts": dynamicResources(repo, kinds),
    "src/native/generated/functions.ts": functionWrappers(list, "native").text,
    "src/native/generated/resources.ts": nativeResources(repo, kinds, schema),
    "src/dynamic/generated/functionTypes.ts": typeList,
  };
  for (const kind of kinds) files[`src/dynamic/host/${lowerFirst(kind.name)}.ts`] = hostModule(kind);
  return files;
}
