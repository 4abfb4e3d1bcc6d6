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

/**
 * The lookups the Usage programs start from, by the name the examples use: each a complete statement in each
 * language, against the emulator's fixture (game `space-race`, datacenter `us-east-atl`, builds tagged
 * `channel: stable`).
 */
const LOOKUPS = {
  env: {
    ts: `const env = gamehost.getEnvironmentOutput({ game: "space-race", environment: "prod" });`,
    yaml: `  env:
    fn::invoke:
      function: gamehost:index:getEnvironment
      arguments: { game: space-race, environment: prod }`,
    python: `env = gamehost.get_environment(game="space-race", environment="prod")`,
  },
  dc: {
    ts: `const dc = gamehost.getDatacentersOutput({ gameId: env.gameId, environmentId: env.environmentId, slug: "us-east-atl" });`,
    yaml: `  dc:
    fn::invoke:
      function: gamehost:index:getDatacenters
      arguments: { gameId: "\${env.gameId}", environmentId: "\${env.environmentId}", slug: us-east-atl }`,
    python: `dc = gamehost.get_datacenters(game_id=env.game_id, environment_id=env.environment_id, slug="us-east-atl")`,
  },
  build: {
    ts: `const build = gamehost.getBuildsOutput({ gameId: env.gameId, environmentId: env.environmentId, tags: { channel: "stable" } });`,
    yaml: `  build:
    fn::invoke:
      function: gamehost:index:getBuilds
      arguments: { gameId: "\${env.gameId}", environmentId: "\${env.environmentId}", tags: { channel: stable } }`,
    python: `build = gamehost.get_builds(game_id=env.game_id, environment_id=env.environment_id, tags={"channel": "stable"})`,
  },
  games: {
    ts: `const games = gamehost.getGamesOutput();`,
    yaml: `  games:
    fn::invoke:
      function: gamehost:index:getGames`,
    python: `games = gamehost.get_games()`,
  },
};

/**
 * Each function's example: the lookups it needs, its arguments (TypeScript and YAML in camelCase, Python in
 * snake_case) and the result property the program exports.
 */
const FUNCTION_EXAMPLES = {
  getBootstrap: { uses: [], args: null, output: "cluster" },
  getGames: { uses: [], args: null, output: "games" },
  getGame: { uses: ["env"], args: { gameId: "env.gameId" }, output: "game" },
  getEnvironment: {
    uses: [],
    args: { game: '"space-race"', environment: '"prod"' },
    output: "environmentId",
  },
  getDatacenters: {
    uses: ["env"],
    args: { gameId: "env.gameId", environmentId: "env.environmentId", slug: '"us-east-atl"' },
    output: "datacenters",
  },
  getBuilds: {
    uses: ["env"],
    args: { gameId: "env.gameId", environmentId: "env.environmentId", tags: { channel: '"stable"' } },
    output: "builds",
  },
  getGroupBilling: { uses: ["games"], args: { groupId: "games.groups[0].groupId" }, output: "group" },
  createPaymentPortalSession: {
    uses: ["games"],
    args: { groupId: "games.groups[0].groupId", intent: '"general"' },
    // Python types an enum argument as the enum class: a string literal fails mypy and pyright.
    pythonArgs: { intent: "gamehost.PaymentIntent.GENERAL" },
    output: "url",
  },
};

/** An example argument value (a quoted literal, a reference such as `env.gameId`, or an object of them). */
function argText(value, lang) {
  if (typeof value === "object") {
    const entries = Object.entries(value).map(
      ([k, v]) => `${lang === "python" ? JSON.stringify(k) : k}: ${argText(v, lang)}`,
    );
    return `{ ${entries.join(", ")} }`.replace(/^\{ (.*) \}$/, lang === "python" ? "{$1}" : "{ $1 }");
  }
  if (value.startsWith('"')) return lang === "yaml" ? JSON.parse(value) : value;
  if (lang === "ts") return value;
  const path = value.replace(/\[0\]\.(\w+)/g, (_, p) => `[0].${lang === "python" ? snake(p) : p}`);
  const [head, ...rest] = path.split(".");
  if (lang === "yaml") return `"\${${value}}"`;
  return [head, ...rest.map((p) => (p.startsWith("groups") ? p : snake(p)))].join(".");
}

/**
 * The three programs of a function's Usage section. Python calls a function with a secret result in its
 * `_output` form: the plain form's result is a plain value, so an export of it would be stored in clear.
 */
function functionPrograms(name, token, secretResult) {
  const example = FUNCTION_EXAMPLES[name];
  if (!example)
    throw new Error(`docs.mjs has no Usage example for the function ${name}: add it to FUNCTION_EXAMPLES`);
  const lookups = (lang) => example.uses.map((u) => LOOKUPS[u][lang]);
  // `own`: a language's own text for an argument (Python's enum members), else the shared one.
  const args = (lang, join, own = {}) =>
    example.args ? Object.entries(example.args).map(([k, v]) => join(k, own[k] ?? argText(v, lang))) : [];
  const tsArgs = args("ts", (k, v) => `${k}: ${v}`);
  const pyArgs = args("python", (k, v) => `${snake(k)}=${v}`, example.pythonArgs);
  const yamlArgs = args("yaml", (k, v) => `${k}: ${v}`);
  const ts = [
    `import * as gamehost from "pulumi-gamehost";`,
    "",
    ...lookups("ts"),
    `const result = gamehost.${name}Output(${tsArgs.length ? `{ ${tsArgs.join(", ")} }` : ""});`,
    `export const ${example.output} = result.${example.output};`,
  ].join("\n");
  const yaml = [
    `name: ${kebab(name)}-example`,
    "runtime: yaml",
    "plugins:",
    "  providers:",
    "    - name: gamehost",
    "      path: ./node_modules/pulumi-gamehost/plugin",
    "variables:",
    ...lookups("yaml"),
    "  result:",
    "    fn::invoke:",
    `      function: ${token}`,
    ...(yamlArgs.length ? [`      arguments: { ${yamlArgs.join(", ")} }`] : []),
    "outputs:",
    `  ${example.output}: \${result.${example.output}}`,
  ].join("\n");
  const python = [
    "import pulumi",
    "import pulumi_gamehost as gamehost",
    "",
    ...lookups("python"),
    `result = gamehost.${snake(name)}${secretResult ? "_output" : ""}(${pyArgs.join(", ")})`,
    `pulumi.export("${example.output}", result.${snake(example.output)})`,
  ].join("\n");
  return { ts, yaml, python };
}

/** A resource example's statement as a whole program: the lookups it uses, then it, then its export. */
function resourcePrograms(name, example) {
  const lookups = (lang) => example.uses.map((u) => LOOKUPS[u][lang]);
  const [variable, output] = example.export;
  const ts = [
    `import * as gamehost from "pulumi-gamehost";`,
    "",
    ...lookups("ts"),
    "",
    example.ts,
    `export const ${output} = ${variable}.${output};`,
  ].join("\n");
  const yaml = [
    `name: ${kebab(name)}-example`,
    "runtime: yaml",
    "plugins:",
    "  providers:",
    "    - name: gamehost",
    "      path: ./node_modules/pulumi-gamehost/plugin",
    "variables:",
    ...lookups("yaml"),
    "resources:",
    example.yaml,
    "outputs:",
    `  ${output}: \${${example.yaml.trim().split(":")[0]}.${output}}`,
  ].join("\n");
  const python = [
    "import pulumi",
    "import pulumi_gamehost as gamehost",
    "",
    ...lookups("python"),
    "",
    example.python,
    `pulumi.export("${output}", ${variable}.${snake(output)})`,
  ].join("\n");
  return { ts, yaml, python };
}

const EXAMPLES = {
  Server: {
    uses: ["env", "dc", "build"],
    export: ["server", "endpoints"],
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
      runtime: { build: "\${build.builds[0].id}" }
      network: { ports: { game: { protocol: udp, internalPort: 7777, routing: { host: {} } } } }
      resources: { cpu: 1000, memory: 1024 }`,
    python: `server = gamehost.Server("match",
    game_id=env.game_id,
    environment_id=env.environment_id,
    datacenter=dc.datacenters[0].id,
    tags={"role": "match"},
    runtime={"build": build.builds[0].id},
    network={"ports": {"game": {"protocol": gamehost.PortProtocol.UDP, "internal_port": 7777, "routing": {"host": {}}}}},
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
  Fleet: {
    uses: ["env", "build"],
    export: ["fleet", "status"],
    ts: `const fleet = new gamehost.Fleet("match", {
  gameId: env.gameId,
  environmentId: env.environmentId,
  datacenters: { "us-east-atl": 3 },
  template: {
    tags: { role: "match" },
    runtime: { build: build.builds[0].id },
    network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } },
    resources: { cpu: 1000, memory: 1024 },
  },
  rollout: { maxSurge: 1, maxUnavailable: "25%" },
});`,
    yaml: `  match:
    type: gamehost:index:Fleet
    properties:
      gameId: \${env.gameId}
      environmentId: \${env.environmentId}
      datacenters: { us-east-atl: 3 }
      template:
        tags: { role: match }
        runtime: { build: "\${build.builds[0].id}" }
        network: { ports: { game: { protocol: udp, internalPort: 7777, routing: { host: {} } } } }
        resources: { cpu: 1000, memory: 1024 }
      rollout: { maxSurge: 1, maxUnavailable: 25% }`,
    python: `fleet = gamehost.Fleet("match",
    game_id=env.game_id,
    environment_id=env.environment_id,
    datacenters={"us-east-atl": 3},
    template={
        "tags": {"role": "match"},
        "runtime": {"build": build.builds[0].id},
        "network": {"ports": {"game": {"protocol": gamehost.PortProtocol.UDP, "internal_port": 7777, "routing": {"host": {}}}}},
        "resources": {"cpu": 1000, "memory": 1024},
    },
    rollout={"max_surge": 1, "max_unavailable": "25%"})`,
  },
  LobbyHistoryExport: {
    uses: ["env"],
    export: ["history", "rowCount"],
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

/** The `## List` section of a resource with `listInputs`: what `pulumi do <token> list` takes and prints. */
function listSectionOf(schema, token, listInputs) {
  const flags = Object.keys(listInputs.properties)
    .filter((name) => listInputs.required?.includes(name))
    // The CLI's flag of a list input: its name in kebab case (`gameId` → `--game-id`).
    .map((name) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} <${name}>`)
    .join(" ");
  return `
## List

${listInputs.description ?? ""} The provider's \`List\` answers with import ids, so any of them can be passed to
\`pulumi import\`. Scalar inputs are flags; a map (\`tags\`) goes in an input file (\`--input pcl --input-file
FILE\`); how the CLI finds the plugin and its connection: [reconcile](../reconcile.md#listing-servers-pulumi-do).

\`\`\`sh
pulumi do ${token} list ${flags}
\`\`\`

${table(schema, listInputs.properties, listInputs.required)}
`;
}

function resourcePage(schema, token, resource, typescriptAccepts = {}) {
  const name = nameOf(token);
  const example = EXAMPLES[name];
  // A new kind needs no example to generate (adding a kind is its spec, implementation and registry line); its
  // page has no Usage section until EXAMPLES has one.
  const programs = example ? resourcePrograms(name, example) : undefined;
  const usage = programs
    ? `
## Usage

Complete programs, type-checked by the suite (\`test/lint/referenceUsage.test.ts\`). TypeScript, the dynamic
resource (the same arguments work with \`gamehost.native.${name}\`, which uses the provider plugin):

\`\`\`ts check
${programs.ts}
\`\`\`

YAML (with the plugin, see [languages](../languages.md#yaml)):

\`\`\`yaml check
${programs.yaml}
\`\`\`

Python (after \`pulumi package add\`, see [languages](../languages.md#python)):

\`\`\`python check
${programs.python}
\`\`\`
`
    : "";
  const importSection = example?.import ? `\n## Import\n\n${example.import}\n` : "";
  const listSection = resource.listInputs ? listSectionOf(schema, token, resource.listInputs) : "";
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
${importSection}${listSection}${typesSection(schema, resource.properties)}`;
}

function functionPage(schema, token, fn) {
  const name = nameOf(token);
  const secretResult = Object.values(fn.outputs?.properties ?? {}).some((p) => p.secret);
  const programs = functionPrograms(name, token, secretResult);
  return `${HEADER}
# ${name}

\`${token}\`

${fn.description}

## Usage

Complete programs, type-checked by the suite (\`test/lint/referenceUsage.test.ts\`). TypeScript (the
\`Output\` form; \`await gamehost.${name}(…)\` gives the plain result):

\`\`\`ts check
${programs.ts}
\`\`\`

YAML (with the plugin, see [languages](../languages.md#yaml)):

\`\`\`yaml check
${programs.yaml}
\`\`\`

Python (after \`pulumi package add\`, see [languages](../languages.md#python))${
    secretResult
      ? `, in the \`_output\` form: the
plain \`${snake(name)}(…)\` returns plain values, and exporting one would store the secret in the state in clear`
      : ""
  }:

\`\`\`python check
${programs.python}
\`\`\`

## Arguments

${fn.inputs !== undefined ? table(schema, fn.inputs.properties, fn.inputs.required) : "None."}

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
