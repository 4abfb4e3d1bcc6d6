// Reference pages (docs/reference/) from the package schema: one per resource and function, with its
// token, inputs, outputs and the nested types they use, and how to declare it in TypeScript (both faces),
// YAML and Python. Generated, so the pages say exactly what the schema (and so the zod checks) say.
import { HEADER as TS_HEADER } from "./typescript.mjs";

const nameOf = (token) => token.split(":").pop();
const snake = (text) => text.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const kebab = (text) => text.replace(/[A-Z]/g, (c, i) => `${i ? "-" : ""}${c.toLowerCase()}`);

export const HEADER = `<!-- ${TS_HEADER.replaceAll("// ", "").replaceAll("\n", " ").trim()} -->\n`;

/** The page file of a resource or function name, e.g. `Server` → `server.md`. */
export const pageOf = (name) => `${kebab(name)}.md`;

/** A property's type as the reference shows it (named types link to their section). */
function typeText(schema, spec) {
  if (spec.$ref === "pulumi.json#/Any") return "any JSON value";
  if (spec.$ref?.startsWith("#/types/")) {
    const token = spec.$ref.slice("#/types/".length);
    const target = schema.types[token];
    const name = nameOf(token);
    if (target.enum) return `${name} (${target.enum.map((e) => `\`${e.value}\``).join(" \\| ")})`;
    if (Object.keys(target.properties ?? {}).length === 0) return "`{}`";
    return `[${name}](#${name.toLowerCase()})`;
  }
  if (spec.oneOf) return spec.oneOf.map((s) => typeText(schema, s)).join(" or ");
  switch (spec.type) {
    case "array":
      return `list of ${typeText(schema, spec.items)}`;
    case "object":
      return spec.additionalProperties
        ? `map of ${typeText(schema, spec.additionalProperties)}`
        : "map of any JSON value";
    default:
      return spec.type ?? "any JSON value";
  }
}

const cell = (text) => (text ?? "").replaceAll("|", "\\|").replaceAll("\n", " ");

/**
 * `extra`: what the TypeScript type of an argument accepts beyond the schema's type, by property name
 * (e.g. a `Date`, which the TypeScript classes convert before the provider sees it).
 */
function table(schema, properties, required, extra = {}) {
  const needed = new Set(required ?? []);
  const rows = Object.entries(properties).map(
    ([name, spec]) =>
      `| \`${name}\` | ${typeText(schema, spec)}${extra[name] ? ` (TypeScript: or ${extra[name]})` : ""} | ${needed.has(name) ? "yes" : "no"} | ${cell(spec.description)}${spec.secret ? " **Secret.**" : ""} |`,
  );
  return ["| property | type | required | description |", "|---|---|---|---|", ...rows].join("\n");
}

/** Named object types reachable from some properties, in the order first met. */
function nestedTypes(schema, properties) {
  const found = [];
  const visit = (spec) => {
    if (!spec) return;
    if (spec.$ref?.startsWith("#/types/")) {
      const token = spec.$ref.slice("#/types/".length);
      const target = schema.types[token];
      if (target.enum || Object.keys(target.properties ?? {}).length === 0 || found.includes(token)) return;
      found.push(token);
      for (const child of Object.values(target.properties)) visit(child);
    }
    for (const s of spec.oneOf ?? []) visit(s);
    visit(spec.items);
    if (typeof spec.additionalProperties === "object") visit(spec.additionalProperties);
  };
  for (const spec of Object.values(properties)) visit(spec);
  return found;
}

function typesSection(schema, properties) {
  const tokens = nestedTypes(schema, properties);
  if (tokens.length === 0) return "";
  const parts = tokens.map((token) => {
    const t = schema.types[token];
    return `### ${nameOf(token)}\n\n${t.description ? `${t.description}\n\n` : ""}${table(schema, t.properties, t.required)}`;
  });
  return `\n## Types\n\n${parts.join("\n\n")}\n`;
}

const EXAMPLES = {
  Server: {
    ts: `const server = new gamehost.Server("match", {
  gameId: env.gameId,
  environmentId: env.environmentId,
  datacenter: dc.datacenters[0].id,
  tags: { role: "match" },
  runtime: { build: build.builds[0].id },
  network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
  resources: { cpu: 1000, memory: 1024 },
});`,
    yaml: `  match:
    type: gamehost:index:Server
    properties:
      gameId: \${env.gameId}
      environmentId: \${env.environmentId}
      datacenter: \${dc.datacenters[0].id}
      tags: { role: match }
      runtime: { build: \${build.builds[0].id} }
      network: { ports: { game: { protocol: udp, internalPort: 7777, routing: { host: {} } } } }
      resources: { cpu: 1000, memory: 1024 }`,
    python: `server = gamehost.Server("match",
    game_id=env.game_id,
    environment_id=env.environment_id,
    datacenter=dc.datacenters[0].id,
    tags={"role": "match"},
    runtime={"build": build.builds[0].id},
    network={"ports": {"game": {"protocol": "udp", "internal_port": 7777, "routing": {"host": {}}}}},
    resources={"cpu": 1000, "memory": 1024})`,
    import: `Import an existing server by \`<gameId>/<environmentId>/<serverId>\` (its GET path needs all three);
the state then holds its plain id, the server UUID:

\`\`\`sh
pulumi import gamehost:index:Server match <gameId>/<environmentId>/<serverId>
\`\`\`

or declare it with the \`import\` resource option (\`{ import: "<gameId>/<environmentId>/<serverId>" }\`) and the
spec it has: the next \`pulumi up\` shows no changes. \`gamehost.native.Server.get("match", id)\` reads one without
managing it. The dynamic face cannot import (pulumi/pulumi#16175); it adopts with \`adoptServerId\` instead.`,
  },
  LobbyHistoryExport: {
    ts: `const history = new gamehost.LobbyHistoryExport("yesterday", {
  gameId: env.gameId,
  queryStart: "2026-11-22T00:00:00Z",
  queryEnd: "2026-11-23T00:00:00Z",
  summarize: true,
});`,
    yaml: `  yesterday:
    type: gamehost:index:LobbyHistoryExport
    properties:
      gameId: \${env.gameId}
      queryStart: 2026-11-22T00:00:00Z
      queryEnd: 2026-11-23T00:00:00Z
      summarize: true`,
    python: `history = gamehost.LobbyHistoryExport("yesterday",
    game_id=env.game_id,
    query_start="2026-11-22T00:00:00Z",
    query_end="2026-11-23T00:00:00Z",
    summarize=True)`,
  },
};

function resourcePage(schema, token, resource, typescriptAccepts = {}) {
  const name = nameOf(token);
  const example = EXAMPLES[name];
  const usage = example
    ? `
## Usage

TypeScript (\`import * as gamehost from "pulumi-gamehost"\`: the dynamic resource; the same arguments work
with \`gamehost.native.${name}\`, which uses the provider plugin):

\`\`\`ts
${example.ts}
\`\`\`

YAML (with the plugin, see [languages](../languages.md)):

\`\`\`yaml
resources:
${example.yaml}
\`\`\`

Python (after \`pulumi package add\`):

\`\`\`python
${example.python}
\`\`\`
`
    : "";
  const importSection = example?.import ? `\n## Import\n\n${example.import}\n` : "";
  const outputsOnly = Object.fromEntries(
    Object.entries(resource.properties).filter(([key]) => !(key in resource.inputProperties)),
  );
  return `${HEADER}
# ${name}

\`${token}\` (plugin) · \`pulumi-nodejs:dynamic/gamehost:${name}\` (dynamic)

${resource.description}
${usage}
## Inputs

${table(schema, resource.inputProperties, resource.requiredInputs, typescriptAccepts)}

## Outputs

Every input is also an output. In addition:

${table(schema, outputsOnly, resource.required)}
${importSection}${typesSection(schema, resource.properties)}`;
}

function functionPage(schema, token, fn) {
  const name = nameOf(token);
  const hasArgs = fn.inputs !== undefined;
  const tsArgs = hasArgs ? "{ ... }" : "";
  const pyArgs = hasArgs ? "..." : "";
  return `${HEADER}
# ${name}

\`${token}\`

${fn.description}

## Usage

\`\`\`ts
const result = await gamehost.${name}(${tsArgs}); // or gamehost.${name}Output(${tsArgs}) for an Output
\`\`\`

\`\`\`yaml
variables:
  result:
    fn::invoke:
      function: ${token}${hasArgs ? "\n      arguments: { ... }" : ""}
\`\`\`

\`\`\`python
result = gamehost.${snake(name)}(${pyArgs})
\`\`\`

## Arguments

${hasArgs ? table(schema, fn.inputs.properties, fn.inputs.required) : "None."}

## Result

${table(schema, fn.outputs.properties, fn.outputs.required)}
${typesSection(schema, { ...fn.inputs?.properties, ...fn.outputs.properties })}`;
}

/** `configEnv`: each config key's environment variable (CONFIG_KEYS), which the schema names only for some. */
function indexPage(schema, configEnv) {
  const link = (token, what) => `- [${nameOf(token)}](${pageOf(nameOf(token))}) — ${what}`;
  const firstSentence = (text) => `${text.split(/(?<=\.)\s/)[0]}`;
  const config = Object.entries(schema.config.variables).map(
    ([key, spec]) =>
      `| \`gamehost:${key}\` | ${configEnv[key] ? `\`${configEnv[key]}\`` : ""} | ${cell(spec.description)}${spec.secret ? " **Secret.**" : ""} |`,
  );
  return `${HEADER}
# Reference

Generated from the package schema (\`plugin/schema.json\`, the plugin's \`GetSchema\` answer), which is generated
from the zod schemas the provider checks with.

## Resources

${Object.entries(schema.resources)
  .map(([token, r]) => link(token, firstSentence(r.description)))
  .join("\n")}

## Functions

${Object.entries(schema.functions)
  .map(([token, f]) => link(token, firstSentence(f.description)))
  .join("\n")}

## Provider configuration

| key | environment variable | description |
|---|---|---|
${config.join("\n")}
`;
}

/** The files of `docs/reference/`, by file name. */
export function referencePages(schema, typescriptAccepts = {}, configEnv = {}) {
  const pages = { "_index.md": indexPage(schema, configEnv) };
  for (const [token, resource] of Object.entries(schema.resources)) {
    pages[pageOf(nameOf(token))] = resourcePage(schema, token, resource, typescriptAccepts[nameOf(token)]);
  }
  for (const [token, fn] of Object.entries(schema.functions)) {
    pages[pageOf(nameOf(token))] = functionPage(schema, token, fn);
  }
  return pages;
}
