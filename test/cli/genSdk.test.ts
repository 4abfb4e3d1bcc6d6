/**
 * SDKs generated from the plugin's schema by Pulumi's own generators (`pulumi package gen-sdk plugin
 * --language python|go|nodejs`; see ./languages.ts for why they run in process): none prints a diagnostic
 * about the schema; the nodejs SDK carries the package's name and version and type-checks with the
 * dependencies its package.json asks for (the one home of that check: ./codegenHost.test.ts generates the
 * Python and Go SDKs), and with the repository's TypeScript, and its classes,
 * properties and types match `pulumi-gamehost/native` but for the differences explained in
 * docs/languages.md. (The Python and Go SDKs are made by `pulumi package add` and run in ./languagesDocs.test.ts,
 * from the text of docs/languages.md.)
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { realCli, realCliTitle } from "../support/realPulumi";
import { useCliEnvironment } from "./helpers";
import { generateSdk } from "./languages";

/** The @pulumi/pulumi the generated nodejs SDK asks for (`^3.269.0`), kept in git-ignored .pulumi-cli/. */
const NODEJS_SDK_DEPS = path.join(REPO_ROOT, ".pulumi-cli", "nodejs-sdk");
const NODEJS_SDK_PACKAGES = { "@pulumi/pulumi": "3.270.0", "@types/node": "^20.19.0" };
/**
 * The TypeScript its `build` script runs (`^4.7.0`), in a folder of its own: the folder above is kept between
 * CI runs (the .pulumi-cli cache) as it is, and a package added there would be installed again on each run.
 */
const SDK_TYPESCRIPT_DEPS = path.join(REPO_ROOT, ".pulumi-cli", "nodejs-sdk-typescript");
const SDK_TYPESCRIPT_PACKAGES = { typescript: "^4.7.0" };
/** What the generated SDK's package.json asks for: the packages above are versions of these. */
const SDK_MANIFEST_DEPENDENCIES = {
  dependencies: { "@pulumi/pulumi": "^3.269.0" },
  devDependencies: { "@types/node": "^20", typescript: "^4.7.0" },
};
const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;

/**
 * Every difference between the generated nodejs SDK and `pulumi-gamehost/native`, with why it stays
 * (docs/languages.md, "Generated SDKs", says the same to users).
 */
const EMPTY_OBJECT =
  "`routing: { host: {} }`: the native face types the empty routing kind as Record<string, never> (only {}); the generator's empty interface RoutingKind also accepts any non-null value";
const EXPLAINED: Record<string, string> = {
  "index.config: only generated":
    'the native face has no config module: read `gamehost:*` settings with new pulumi.Config("gamehost")',
  "input.RoutingKindArgs: only generated": EMPTY_OBJECT,
  "output.RoutingKind: only generated": EMPTY_OBJECT,
  "input.PortRoutingArgs.gameGuard: ours narrower": EMPTY_OBJECT,
  "input.PortRoutingArgs.host: ours narrower": EMPTY_OBJECT,
  "output.PortRouting.gameGuard: ours narrower": EMPTY_OBJECT,
  "output.PortRouting.host: ours narrower": EMPTY_OBJECT,
  // The same, one level up each: the types that hold a routing.
  "input.ServerPortSpecArgs.routing: ours narrower": EMPTY_OBJECT,
  "input.ServerNetworkArgs.ports: ours narrower": EMPTY_OBJECT,
  "output.ServerPortSpec.routing: ours narrower": EMPTY_OBJECT,
  "output.ServerPort.routing: ours narrower": EMPTY_OBJECT,
  "output.ServerNetwork.ports: ours narrower": EMPTY_OBJECT,
  "ServerArgs.network: ours narrower": EMPTY_OBJECT,
  "Server.network: ours narrower": EMPTY_OBJECT,
  "Server.ports: ours narrower": EMPTY_OBJECT,
  // The Fleet's template holds the same ports.
  "input.FleetTemplateNetworkArgs.ports: ours narrower": EMPTY_OBJECT,
  "input.FleetTemplateArgs.network: ours narrower": EMPTY_OBJECT,
  "output.FleetTemplateNetwork.ports: ours narrower": EMPTY_OBJECT,
  "output.FleetTemplate.network: ours narrower": EMPTY_OBJECT,
  "FleetArgs.template: ours narrower": EMPTY_OBJECT,
  "Fleet.template: ours narrower": EMPTY_OBJECT,
  "LobbyHistoryExportArgs.queryEnd: ours wider":
    "the native face also takes a Date (sent as RFC 3339); the schema can only say string or integer",
  "LobbyHistoryExportArgs.queryStart: ours wider":
    "the native face also takes a Date (sent as RFC 3339); the schema can only say string or integer",
  "Server.get: ours takes a state":
    "the native get() narrows the lookup by gameId/environmentId; the schema declares no stateInputs",
};

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 900_000 });
  expect(result.status, `${command} ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`).toBe(0);
}

/** `dir`/node_modules holding `packages` (name → version), installed once. */
function installedOnce(dir: string, packages: Record<string, string>): string {
  const marker = path.join(dir, "installed.json");
  const want = JSON.stringify(packages);
  if (!fs.existsSync(marker) || fs.readFileSync(marker, "utf8") !== want) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({ private: true, dependencies: packages }),
    );
    run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], dir);
    fs.writeFileSync(marker, want);
  }
  return path.join(dir, "node_modules");
}

const CLASSES = ["Server", "LobbyHistoryExport", "Fleet", "Provider"] as const;
const FUNCTIONS = [
  "getBootstrap",
  "getGames",
  "getGame",
  "getEnvironment",
  "getDatacenters",
  "getBuilds",
  "getGroupBilling",
  "createPaymentPortalSession",
] as const;

/**
 * Differences between the generated SDK in `sdkDir` and `pulumi-gamehost/native` (both resolving the
 * repo's @pulumi/pulumi): `<Pair>.<property>: <kind>`, where the pairs are each class's instance and
 * constructor args, each function's args, output args and result, and every named input and output type.
 * Types are compared by assignability both ways, so the spelling of a type does not count.
 */
function compareWithNative(sdkDir: string): string[] {
  const native = path.join(REPO_ROOT, "dist", "native", "index");
  const ourTypes = path.join(REPO_ROOT, "dist", "types", "generated");
  const lines = [
    `import type * as pulumi from "@pulumi/pulumi";`,
    `import type * as gen from ${JSON.stringify(path.join(sdkDir, "index"))};`,
    `import type * as ours from ${JSON.stringify(native)};`,
    `import type * as genIn from ${JSON.stringify(path.join(sdkDir, "types", "input"))};`,
    `import type * as genOut from ${JSON.stringify(path.join(sdkDir, "types", "output"))};`,
    `import type * as ourIn from ${JSON.stringify(path.join(ourTypes, "input"))};`,
    `import type * as ourOut from ${JSON.stringify(path.join(ourTypes, "output"))};`,
    "type Base = pulumi.ProviderResource;",
    "type Arg<F, N extends number> = F extends (...a: infer P) => unknown ? NonNullable<P[N]> : never;",
    "export type Pairs = {",
  ];
  for (const c of CLASSES) {
    lines.push(`  "${c}": [Omit<gen.${c}, keyof Base>, Omit<ours.${c}, keyof Base>];`);
    lines.push(
      `  "${c}Args": [NonNullable<ConstructorParameters<typeof gen.${c}>[1]>, NonNullable<ConstructorParameters<typeof ours.${c}>[1]>];`,
    );
  }
  for (const f of FUNCTIONS) {
    lines.push(`  "${f}Args": [Arg<typeof gen.${f}, 0>, Arg<typeof ours.${f}, 0>];`);
    lines.push(`  "${f}OutputArgs": [Arg<typeof gen.${f}Output, 0>, Arg<typeof ours.${f}Output, 0>];`);
    lines.push(
      `  "${f}Result": [Awaited<ReturnType<typeof gen.${f}>>, Awaited<ReturnType<typeof ours.${f}>>];`,
    );
  }
  const named = (file: string) =>
    new Set(
      [...fs.readFileSync(file, "utf8").matchAll(/^export (?:declare )?(?:interface|type) (\w+)/gm)].map(
        (m) => m[1],
      ),
    );
  const out: string[] = [];
  for (const kind of ["input", "output"] as const) {
    const [gen, our] = kind === "input" ? ["genIn", "ourIn"] : ["genOut", "ourOut"];
    const mine = named(path.join(ourTypes, `${kind}.d.ts`));
    for (const name of named(path.join(sdkDir, "types", `${kind}.ts`))) {
      if (mine.has(name)) lines.push(`  "${kind}.${name}": [${gen}.${name}, ${our}.${name}];`);
      else out.push(`${kind}.${name}: only generated`);
    }
  }
  lines.push("};", "");

  const probe = path.join(path.dirname(sdkDir), "probe.ts");
  fs.writeFileSync(probe, lines.join("\n"));
  const program = ts.createProgram([probe], {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const probeErrors = program
    .getSemanticDiagnostics(program.getSourceFile(probe))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  expect(probeErrors).toEqual([]);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(probe);
  const pairsSymbol = file && checker.getSymbolAtLocation(file)?.exports?.get("Pairs" as ts.__String);
  if (!pairsSymbol) throw new Error("the probe declares no Pairs");
  // What each package exports at its root: classes, functions, enums (`NetworkMode.Host`).
  const rootExports = (index: number) => {
    const declaration = file?.statements.filter(ts.isImportDeclaration)[index];
    const module = declaration && checker.getSymbolAtLocation(declaration.moduleSpecifier);
    return new Set(module ? checker.getExportsOfModule(module).map((s) => s.name) : []);
  };
  const [theirRoot, ourRoot] = [rootExports(1), rootExports(2)];
  for (const name of theirRoot) if (!ourRoot.has(name)) out.push(`index.${name}: only generated`);
  const show = (t: ts.Type) => checker.typeToString(t, undefined, ts.TypeFormatFlags.NoTruncation);
  for (const pair of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(pairsSymbol))) {
    const [generated, ours] = checker.getTypeArguments(checker.getTypeOfSymbol(pair) as ts.TypeReference);
    if (!generated || !ours) continue;
    const theirs = new Map(checker.getPropertiesOfType(generated).map((p) => [p.name, p]));
    const mine = new Map(checker.getPropertiesOfType(ours).map((p) => [p.name, p]));
    for (const name of theirs.keys()) if (!mine.has(name)) out.push(`${pair.name}.${name}: only generated`);
    for (const name of mine.keys()) if (!theirs.has(name)) out.push(`${pair.name}.${name}: only ours`);
    for (const [name, a] of theirs) {
      const b = mine.get(name);
      if (!b) continue;
      const optional = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Optional) !== 0;
      if (optional(a) !== optional(b))
        out.push(`${pair.name}.${name}: ${optional(b) ? "optional" : "required"} in ours`);
      const ta = checker.getNonNullableType(checker.getTypeOfSymbol(a));
      const tb = checker.getNonNullableType(checker.getTypeOfSymbol(b));
      const wider = checker.isTypeAssignableTo(ta, tb);
      const narrower = checker.isTypeAssignableTo(tb, ta);
      if (!wider || !narrower) {
        const kind = !wider && !narrower ? "different" : wider ? "ours wider" : "ours narrower";
        console.info(`${pair.name}.${name}: ${kind}: generated ${show(ta)}; ours ${show(tb)}`);
        out.push(`${pair.name}.${name}: ${kind}`);
      }
    }
  }
  // `get`'s parameters: the generated one takes (name, id, opts).
  const getArity = (source: string) => source.match(/static get\(([^)]*)\)/)?.[1]?.split(",").length;
  const ourGet = getArity(
    fs.readFileSync(path.join(REPO_ROOT, "dist", "native", "generated", "resources.d.ts"), "utf8"),
  );
  const theirGet = getArity(fs.readFileSync(path.join(sdkDir, "server.ts"), "utf8"));
  if (ourGet !== theirGet) out.push("Server.get: ours takes a state");
  return out.sort();
}

describe.skipIf(!realCli)(realCliTitle("SDKs generated from the plugin's schema"), () => {
  const setup = useCliEnvironment("gensdk");

  it("nodejs: type-checks, and differs from pulumi-gamehost/native only as explained", {
    timeout: 600_000,
  }, async () => {
    const sdk = path.join(setup.root, "nodejs", "sdk");
    await generateSdk("nodejs", sdk);
    for (const file of ["index.ts", "server.ts", "lobbyHistoryExport.ts", "tsconfig.json"]) {
      expect(fs.existsSync(path.join(sdk, file)), file).toBe(true);
    }
    // The schema's respectSchemaVersion: the SDK carries the package's version, not a placeholder; its
    // packageName is the TypeScript face the npm package ships (what `pulumi import` imports).
    const manifest = JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")) as unknown;
    expect(manifest).toMatchObject({
      name: "pulumi-gamehost/native",
      version: PACKAGE_VERSION,
      ...SDK_MANIFEST_DEPENDENCIES,
    });
    fs.symlinkSync(
      installedOnce(NODEJS_SDK_DEPS, NODEJS_SDK_PACKAGES),
      path.join(sdk, "node_modules"),
      "dir",
    );
    // With the TypeScript its own package.json asks for (its `build` script), then with the repository's.
    const sdkTsc = path.join(installedOnce(SDK_TYPESCRIPT_DEPS, SDK_TYPESCRIPT_PACKAGES), ".bin", "tsc");
    run(sdkTsc, ["-p", "tsconfig.json", "--noEmit"], sdk);
    run(path.join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json", "--noEmit"], sdk);

    // The comparison resolves @pulumi/pulumi as the native face does: a copy beside the repo's node_modules.
    const copy = path.join(setup.root, "compare", "sdk");
    fs.cpSync(sdk, copy, { recursive: true, filter: (f) => !f.endsWith("node_modules") });
    fs.symlinkSync(
      path.join(REPO_ROOT, "node_modules"),
      path.join(setup.root, "compare", "node_modules"),
      "dir",
    );
    expect(compareWithNative(copy)).toEqual(Object.keys(EXPLAINED).sort());
  });
});
