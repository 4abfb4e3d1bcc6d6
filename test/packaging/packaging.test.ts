/**
 * The package as users get it: `npm pack` (whose `prepare` builds, as on publish), the tarball's contents,
 * fresh projects from both generations of Pulumi's TypeScript template with TypeScript 5 and 6 type-checking
 * the README snippet, the examples and the subpaths, and the quickstart copied out of the repo, installed
 * from the tarball and deployed and destroyed by the real `pulumi` CLI (which type-checks it) at both ends
 * of what we claim: Node 20 with the lowest `@pulumi/pulumi` (3.248.0), and Node 22 from the registry's
 * `node` package with the newest; on Node 20 also in a legacy-template (commonjs/node) project, and
 * README.md's snippet. Everything is installed from the npm registry.
 */

import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { connection, expectTokenNowhere, summaryOf } from "../cli/helpers";
import { TYPES } from "../engine/helpers";
import { type EmulatorModule, REPO_ROOT } from "../support/dist";
import { liveServers } from "../support/emulator";
import { type CliConfigEntry, CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";
import {
  type CommandResult,
  describeFailure,
  latestVersion,
  npmInstall,
  type Packed,
  packRepo,
  readJson,
  readmeSnippet,
  removeTempDirs,
  runCommand,
  sharedNode,
  TEMPLATE_PACKAGE_JSON,
  TEMPLATE_TSCONFIG,
  type TemplateGeneration,
  tempDir,
  writeJson,
} from "./support";

/** The lowest `@pulumi/pulumi` we claim (package.json `^3.248.0`), the last one that runs on Node 20. */
const LOWEST_SDK = "3.248.0";

/** An install (shared), then a CLI stack init, config, up, two outputs, destroy and an export, on two busy cores. */
const DEPLOY_TIMEOUT_MS = 600_000;

interface Manifest {
  name: string;
  version: string;
  main?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  typesVersions: Record<string, Record<string, string[]>>;
  bin: Record<string, string>;
  files: string[];
}

const manifest = readJson<Manifest>(path.join(REPO_ROOT, "package.json"));

let workDir: string;
let packed: Packed;
/** The registry's newest `@pulumi/pulumi` (asked online: also the check that the registry answers). */
let newestSdk: string;

// A hang guard: packing runs the build (tsc), which took over 3 min with two suites at once on 2 cores.
beforeAll(async () => {
  workDir = tempDir("pack");
  // The registry first: without it nothing below can run, and the failure should say so.
  newestSdk = await latestVersion("@pulumi/pulumi", workDir);
  packed = await packRepo(workDir);
}, 600_000);

// Removing the installs (several node_modules trees) can take longer than the default 30 s on a busy machine.
afterAll(removeTempDirs, 120_000);

describe("npm pack", () => {
  it("ships the build with declarations and source maps, the plugin, fixtures and docs, and nothing else", () => {
    const files = packed.files.map((f) => f.path);
    const has = (file: string) => files.includes(file);

    // Only what `files` names, plus what npm always adds.
    const allowed = /^(dist|plugin|fixtures|docs)\/|^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(files.filter((f) => /^(src|test|bench|harness|examples|scripts)\//.test(f))).toEqual([]);
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    for (const file of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "fixtures/default.json"]) {
      expect(has(file), file).toBe(true);
    }
    expect(files.filter((f) => f.startsWith("docs/reference/")).length).toBeGreaterThan(0);
    expect(has("docs/installation-configuration.md")).toBe(true);

    // Every entry point package.json names is in the tarball: exports, typesVersions, bins, main, types.
    const targets = [
      ...Object.values(manifest.exports).flatMap((t) => (typeof t === "string" ? [t] : Object.values(t))),
      ...Object.values(manifest.typesVersions["*"] ?? {}).flat(),
      ...Object.values(manifest.bin),
      "dist/index.js",
      "dist/index.d.ts",
    ].map((t) => path.posix.normalize(t));
    expect(targets.filter((t) => !has(t))).toEqual([]);

    // The plugin folder users point Pulumi at, with an executable entry.
    for (const file of ["PulumiPlugin.yaml", "package.json", "schema.json", "pulumi-resource-gamehost"]) {
      expect(has(`plugin/${file}`), `plugin/${file}`).toBe(true);
    }
    expect(packed.files.find((f) => f.path === "plugin/pulumi-resource-gamehost")?.mode).toBe(0o755);
    // npm makes bins executable when it links them; they need the shebang.
    for (const bin of Object.values(manifest.bin)) {
      expect(fs.readFileSync(path.join(packed.extracted, bin), "utf8"), bin).toMatch(
        /^#!\/usr\/bin\/env node\n/,
      );
    }

    // Each compiled module has its declarations and its source map.
    const js = files.filter((f) => f.startsWith("dist/") && f.endsWith(".js"));
    expect(js.length).toBeGreaterThan(20);
    expect(js.filter((f) => !has(f.replace(/\.js$/, ".d.ts")) || !has(`${f}.map`))).toEqual([]);
  });

  it("source maps carry their sources, since src/ is not shipped", () => {
    const maps = packed.files.map((f) => f.path).filter((f) => f.endsWith(".js.map"));
    const missing: string[] = [];
    for (const map of maps) {
      const { sources, sourcesContent } = readJson<{ sources: string[]; sourcesContent?: unknown[] }>(
        path.join(packed.extracted, map),
      );
      if (sourcesContent?.length !== sources.length || !sourcesContent.every((s) => typeof s === "string")) {
        missing.push(map);
      }
    }
    expect(missing).toEqual([]);
    // And the text is the source the build compiled.
    const index = readJson<{ sourcesContent: string[] }>(path.join(packed.extracted, "dist/index.js.map"));
    expect(index.sourcesContent[0]).toBe(fs.readFileSync(path.join(REPO_ROOT, "src", "index.ts"), "utf8"));
  });
});

describe("the examples users copy", () => {
  it("are standalone projects: pulumi-gamehost by version, the template's dependencies and tsconfig", () => {
    for (const example of ["quickstart", "lobby-export"]) {
      const dir = path.join(REPO_ROOT, "examples", example);
      const pkg = readJson<Manifest>(path.join(dir, "package.json"));
      expect(pkg.dependencies?.["pulumi-gamehost"], example).toBe(`^${manifest.version}`);
      expect(pkg.dependencies?.["@pulumi/pulumi"], example).toBe(manifest.dependencies?.["@pulumi/pulumi"]);
      expect(pkg.devDependencies?.typescript, example).toBe(TEMPLATE_PACKAGE_JSON.devDependencies.typescript);
      expect(pkg.main, example).toBe(TEMPLATE_PACKAGE_JSON.main);
      expect(readJson(path.join(dir, "tsconfig.json")), example).toEqual({
        ...TEMPLATE_TSCONFIG.current,
        files: ["index.ts"],
      });
    }
  });
});

/** The two ends of what we claim: the Node.js major, and the `@pulumi/pulumi` version on it. */
interface End {
  node: number;
  sdk: () => string;
  /** What else the project gets: the tsc matrix runs on the Node 20 end only, with the template's deps. */
  extras: string[];
}
const ENDS = {
  lowest: {
    node: 20,
    sdk: () => LOWEST_SDK,
    // The template's own `@types/node` (the examples ask for `^20`, the newest end keeps that), the user's
    // zod (for the api subpath), and TypeScript 6 next to the template's 5 under an alias.
    extras: [
      `@types/node@${TEMPLATE_PACKAGE_JSON.devDependencies["@types/node"]}`,
      `zod@${manifest.dependencies?.zod}`,
      "typescript6@npm:typescript@~6.0",
    ],
  },
  newest: { node: 22, sdk: () => newestSdk, extras: [] },
} satisfies Record<string, End>;
type EndName = keyof typeof ENDS;

/**
 * One install per end: `examples/quickstart` copied out of the repo as a user copies it (its package.json is
 * the template's, depending on `pulumi-gamehost` by version, with the template's tsconfig), then
 * `npm install <tarball> @pulumi/pulumi@<end's version> …`, as a user adds the package to such a project.
 */
const projects: Partial<Record<EndName, Promise<string>>> = {};
function projectOf(end: EndName): Promise<string> {
  projects[end] ??= (async () => {
    const { sdk, extras } = ENDS[end];
    const dir = tempDir(`quickstart-${end}`);
    const source = path.join(REPO_ROOT, "examples", "quickstart");
    for (const file of fs.readdirSync(source)) fs.copyFileSync(path.join(source, file), path.join(dir, file));
    await npmInstall(dir, [packed.tarball, `@pulumi/pulumi@${sdk()}`, ...extras]);

    // The package came from the tarball (not a link to the repo), and the program and the package share
    // one SDK: a second copy would make two Pulumi runtimes.
    const installed = path.join(dir, "node_modules", "pulumi-gamehost");
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(readJson<Manifest>(path.join(installed, "package.json")).version).toBe(manifest.version);
    expect(fs.existsSync(path.join(installed, "node_modules", "@pulumi", "pulumi"))).toBe(false);
    const sdkManifest = readJson<Manifest>(
      path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"),
    );
    expect(sdkManifest.version).toBe(sdk());
    return dir;
  })();
  return projects[end];
}

/**
 * The code the tsc matrix checks besides the project's own `index.ts` (the quickstart), in `typecheck/` of
 * the Node 20 project: the README snippet as written, the lobby-export example, and user code on the
 * subpaths. Each variant's tsconfig sits next to the template's `tsconfig.json`, which stays as copied.
 */
function writeTypecheckSources(dir: string): string {
  const folder = path.join(dir, "typecheck");
  fs.mkdirSync(folder, { recursive: true });
  const sources: Record<string, string> = {
    "readme.ts": readmeSnippet(),
    "lobby-export.ts": fs.readFileSync(path.join(REPO_ROOT, "examples", "lobby-export", "index.ts"), "utf8"),
    "native.ts": fs.readFileSync(path.join(__dirname, "consumer", "native.ts"), "utf8"),
    "api.ts": fs.readFileSync(path.join(__dirname, "consumer", "api.ts"), "utf8"),
    "emulator.ts": fs.readFileSync(path.join(__dirname, "consumer", "emulator.ts"), "utf8"),
    "schemas.ts": fs.readFileSync(path.join(__dirname, "consumer", "schemas.ts"), "utf8"),
  };
  for (const [file, text] of Object.entries(sources)) fs.writeFileSync(path.join(folder, file), text);
  return dir;
}

let typecheckDir: Promise<string> | undefined;
function typecheckFolder(): Promise<string> {
  typecheckDir ??= projectOf("lowest").then(writeTypecheckSources);
  return typecheckDir;
}

const COMPILERS = {
  "TypeScript 5 (the template's)": { bin: "typescript", major: "5" },
  "TypeScript 6": { bin: "typescript6", major: "6" },
} as const;
type Compiler = keyof typeof COMPILERS;

/**
 * A hang guard for the compilers of a type check, not a speed bound: they took over 300 s in a run beside
 * three other test processes (load 28), and one compiler over 240 s with two suites at once on 2 cores; they
 * pass in well under that on an idle machine.
 */
const TYPECHECK_HANG_MS = 900_000;

/** One type check: a template generation's tsconfig over `files`, with `extra` compiler options. */
interface Variant {
  generation: TemplateGeneration;
  files: string[];
  extra?: Record<string, unknown>;
}

/**
 * What a user writes with the main entry, `/native`, `/api` and `/emulator`; `schemas.ts` uses `/api/schemas`
 * (with the project's zod).
 */
const USER_CODE = [
  "index.ts",
  ...["readme.ts", "lobby-export.ts", "native.ts", "api.ts", "emulator.ts"].map((f) => `typecheck/${f}`),
];

// zod's own declarations (`export =` modules re-exported as defaults) need `esModuleInterop` under
// `module: commonjs`. The schemas subpath exposes zod types, so that code gets the flag the docs name;
// everything else, the typed client on `/api` and the emulator included, compiles with the legacy
// template exactly as it is.
const VARIANTS: Variant[] = [
  { generation: "current", files: [...USER_CODE, "typecheck/schemas.ts"] },
  { generation: "legacy", files: USER_CODE },
  { generation: "legacy", files: ["typecheck/schemas.ts"], extra: { esModuleInterop: true } },
];

/**
 * The tsconfig of a variant: the template's (of its generation) over its files, `noEmit` as `tsc --noEmit`
 * gives it. Under TypeScript 6 the legacy template's `moduleResolution: node` is TypeScript's own deprecation
 * error (TS5107) in any project, so that variant carries the `ignoreDeprecations` TypeScript asks for.
 */
function writeConfig(dir: string, compiler: Compiler, { generation, files, extra = {} }: Variant): string {
  const { bin, major } = COMPILERS[compiler];
  const deprecations = generation === "legacy" && major === "6" ? { ignoreDeprecations: "6.0" } : {};
  const compilerOptions = {
    ...TEMPLATE_TSCONFIG[generation].compilerOptions,
    ...deprecations,
    ...extra,
    noEmit: true,
  };
  const config = `tsconfig.${generation}.${bin}${Object.keys(extra).length ? ".extra" : ""}.json`;
  writeJson(path.join(dir, config), { compilerOptions, files });
  return config;
}

/** A compiler's run over every variant: its output, and the part of it each config's build printed. */
interface CompilerRun {
  version: string;
  result: CommandResult;
  byConfig: Map<string, string>;
}

/**
 * Each compiler checks every variant in one `tsc -b` (one process reads the declarations they share, the
 * package's, @pulumi/pulumi's and Node's, once instead of three times: about a quarter less CPU), which
 * builds each config as `tsc -p` would and says which config it builds before that build's errors.
 */
const compilerRuns: Partial<Record<Compiler, Promise<CompilerRun>>> = {};
function compilerRun(dir: string, compiler: Compiler): Promise<CompilerRun> {
  compilerRuns[compiler] ??= (async () => {
    const { bin, major } = COMPILERS[compiler];
    const tsc = path.join(dir, "node_modules", bin, "bin", "tsc");
    const version = readJson<Manifest>(path.join(dir, "node_modules", bin, "package.json")).version;
    expect(version.split(".")[0], `${bin} is ${version}`).toBe(major);
    const configs = VARIANTS.map((v) => writeConfig(dir, compiler, v));
    const result = await runCommand(
      process.execPath,
      [tsc, "-b", "--verbose", "--pretty", "false", ...configs],
      {
        cwd: dir,
        // A hang guard: two compilers run at once here, and two suites at once on 2 cores took one past 240 s.
        timeoutMs: TYPECHECK_HANG_MS - 60_000,
      },
    );
    const byConfig = new Map<string, string>();
    for (const part of result.output.split(/^.*Building project '/m).slice(1)) {
      const config = path.basename(part.slice(0, part.indexOf("'")));
      byConfig.set(config, part.slice(part.indexOf("\n") + 1).replace(/^.* - Project '[\s\S]*$/m, ""));
    }
    return { version, result, byConfig };
  })();
  return compilerRuns[compiler];
}

/** `generation`'s variants type-check with 0 errors under `compiler`. */
async function typeCheck(dir: string, generation: TemplateGeneration, compiler: Compiler): Promise<void> {
  const { version, result, byConfig } = await compilerRun(dir, compiler);
  const errors = (text: string) => text.split("\n").filter((l) => /error TS\d+/.test(l));
  // A failure outside any config's build (a crash, a bad flag, the hang guard) fails every variant.
  const anyBuildFailed = [...byConfig.values()].some((text) => errors(text).length > 0);
  expect(result.code === 0 || anyBuildFailed, describeFailure(result)).toBe(true);
  for (const variant of VARIANTS.filter((v) => v.generation === generation)) {
    const config = writeConfig(dir, compiler, variant);
    const what = `${compiler} ${version}, ${generation} template ${JSON.stringify(variant.extra ?? {})}, ${variant.files.join(" ")}`;
    const built = byConfig.get(config);
    expect(built, `${what}: tsc -b built no ${config}:\n${describeFailure(result)}`).toBeDefined();
    expect(errors(built ?? ""), `${what}:\n${built}`).toEqual([]);
  }
}

const COMPILER_NAMES = Object.keys(COMPILERS) as Compiler[];

/** The node binary of a major: this process's, or the registry's `node` package (once per run). */
async function nodeOf(major: number): Promise<string> {
  if (process.versions.node.split(".")[0] === String(major)) return process.execPath;
  return sharedNode(major);
}

/** A program to run: its directory, its stack config, what `up` creates and what its outputs must be. */
interface Deployment {
  programDir: string;
  config: (emulator: RunningEmulator) => Record<string, CliConfigEntry>;
  created: string[];
  /** Checks `pulumi stack output --json --show-secrets` (`shown`) and without `--show-secrets` (`hidden`). */
  checkUp: (outputs: { shown: Outputs; hidden: Outputs }, emulator: RunningEmulator) => void;
}
type Outputs = Record<string, unknown>;

/**
 * `pulumi up` then `pulumi destroy` through the real CLI (its nodejs host type-checks the program, the
 * default) with `node` first on PATH, against an emulator started from the package installed in
 * `projectDir`: every resource created, then deleted, no server left live, the token in no output or file.
 */
async function deploy(projectDir: string, node: string, deployment: Deployment): Promise<void> {
  const installed = createRequire(path.join(projectDir, "package.json"));
  const emulatorModule = installed("pulumi-gamehost/emulator") as EmulatorModule;
  const emulator = await emulatorModule.startEmulator({ placementDelayMs: 20, watchHoldMs: 500 });
  try {
    const project = new CliProject(deployment.programDir, tempDir("cli"), {
      PATH: cliPath(path.dirname(node)),
    });
    await project.configure(deployment.config(emulator));
    // The language host runs the program with the `node` first on PATH: the one this deployment is for.
    const about = JSON.parse((await project.run(["about", "--json"])).stdout) as {
      runtime?: { version?: string };
    };
    const nodeVersion = (await runCommand(node, ["--version"], { cwd: projectDir })).stdout.trim();
    expect(about.runtime?.version).toBe(nodeVersion);
    const ids = async () => Object.keys(await project.stateIds(DYNAMIC_TYPES)).sort();

    const up = await project.ok(["up", "--yes", "--skip-preview"]);
    // The stack and each resource of the program (data sources and the default provider are not counted).
    expect(summaryOf(up)).toEqual({ created: deployment.created.length + 1 });
    expect(await ids()).toEqual(deployment.created);
    const shown = await project.outputsJson();
    const hidden = JSON.parse(await project.ok(["stack", "output", "--json"])) as Outputs;
    deployment.checkUp({ shown, hidden }, emulator);

    const destroy = await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(summaryOf(destroy)).toEqual({ deleted: deployment.created.length + 1 });
    expect(liveServers(emulator)).toEqual([]);
    expect(await ids()).toEqual([]);
    await expectTokenNowhere(project, emulator.tokens.user);
  } finally {
    await emulator.stop();
  }
}

const DYNAMIC_TYPES = [TYPES.dynamic.server, TYPES.dynamic.export];

/** The quickstart's config as a user sets it with `pulumi config set`. */
function quickstartCliConfig(emulator: RunningEmulator): Record<string, CliConfigEntry> {
  return {
    ...connection(emulator),
    "gamehost-quickstart:game": { value: emulator.fixture.games[0]?.nameId ?? "" },
    "gamehost-quickstart:buildTags": { value: { channel: "stable" } },
  };
}

/** The quickstart, as copied (in `dir`, or its copy in a subfolder): two servers and yesterday's lobby history, read back by name. */
function quickstart(dir: string): Deployment {
  return {
    programDir: dir,
    config: quickstartCliConfig,
    created: ["lobby", "match", "yesterday"],
    checkUp: ({ shown, hidden }, emulator) => {
      const live = liveServers(emulator).map((s) => s.id);
      expect(live.sort()).toEqual([shown.lobbyServerId, shown.matchServerId].sort());
      const game = emulator.fixture.games[0];
      expect(shown.gameName).toBe(game?.displayName);
      expect([...(shown.environments as string[])].sort()).toEqual(
        game?.environments.map((e) => e.nameId).sort(),
      );
      expect(shown.matchEndpoint).toMatch(/^[^:]+:\d+$/);
      expect(String(shown.lobbyEndpoint)).toContain(String(shown.lobbyServerId));
      expect(shown.historyRows).toBeGreaterThan(0);
      expect(shown.historySha256).toMatch(/^[0-9a-f]{64}$/);
      expect(String(shown.historyUrl)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__exports\//);
      expect(hidden.historyUrl).toBe("[secret]");
    },
  };
}

/**
 * The quickstart in a project of the legacy template (`module: commonjs`, `moduleResolution: node`, as
 * `pulumi new typescript` made before `nodenext`): in `legacy/` of the Node 20 project, sharing its modules.
 */
function legacyQuickstart(projectDir: string): Deployment {
  const dir = path.join(projectDir, "legacy");
  fs.mkdirSync(dir, { recursive: true });
  for (const file of ["Pulumi.yaml", "index.ts"])
    fs.copyFileSync(path.join(projectDir, file), path.join(dir, file));
  writeJson(path.join(dir, "package.json"), { name: "gamehost-quickstart-legacy", ...TEMPLATE_PACKAGE_JSON });
  writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.legacy, files: ["index.ts"] });
  return quickstart(dir);
}

/**
 * README.md's snippet as a program of its own (in `readme/` of the Node 20 project, the template's
 * tsconfig, the project's modules): it declares one match server in the datacenter it names.
 */
function readmeProgram(projectDir: string): Deployment {
  const dir = path.join(projectDir, "readme");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: readme-snippet\nruntime: nodejs\n");
  writeJson(path.join(dir, "package.json"), { name: "readme-snippet", ...TEMPLATE_PACKAGE_JSON });
  writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
  const snippet = readmeSnippet();
  fs.writeFileSync(path.join(dir, "index.ts"), snippet);
  const slug = /slug: "([^"]+)"/.exec(snippet)?.[1];
  return {
    programDir: dir,
    config: connection,
    created: ["match"],
    checkUp: ({ shown }, emulator) => {
      const datacenter = emulator.fixture.games[0]?.datacenters.find((d) => d.slug === slug);
      expect(datacenter, `the emulator's fixture has no datacenter ${slug}`).toBeDefined();
      const [server, ...others] = liveServers(emulator);
      expect(others).toEqual([]);
      expect(server?.datacenter).toBe(datacenter?.id);
      expect(server?.tags.role).toBe("match");
      // The snippet picks its build by tag: the newest upload of the fixture is a debug build.
      const prod = emulator.fixture.games[0]?.environments.find((e) => e.nameId === "prod");
      expect(prod?.builds.find((b) => b.id === server?.runtime.build)?.tags.channel).toBe("stable");
      const port = server?.network.ports.game;
      expect(shown.endpoint).toBe(`${port?.public_hostname}:${port?.public_port}`);
    },
  };
}

// The slow part: every install, type check and deployment at once (their processes share the two cores).
describe.concurrent("installed from the tarball", () => {
  it("a fresh project from the current template (nodenext) type-checks with 0 errors, TypeScript 5 and 6", {
    timeout: TYPECHECK_HANG_MS,
  }, async () => {
    const dir = await typecheckFolder();
    await Promise.all(COMPILER_NAMES.map((c) => typeCheck(dir, "current", c)));
  });

  // The legacy variants: the user code as it is, and schemas.ts with `esModuleInterop` (see VARIANTS).
  it("a fresh project from the legacy template (commonjs/node) type-checks with 0 errors, TypeScript 5 and 6", {
    timeout: TYPECHECK_HANG_MS,
  }, async () => {
    const dir = await typecheckFolder();
    await Promise.all(COMPILER_NAMES.map((c) => typeCheck(dir, "legacy", c)));
  });
});

// Through the real `pulumi` (test/support/realPulumi.ts), as a user runs the project: both template generations.
describe.skipIf(!realCli).concurrent(realCliTitle("installed from the tarball, run by pulumi"), () => {
  for (const [end, { node }] of Object.entries(ENDS) as [EndName, End][]) {
    const what = end === "lowest" ? `the lowest @pulumi/pulumi, ${LOWEST_SDK}` : "the newest @pulumi/pulumi";
    it(`the quickstart (current template) goes up and down on Node ${node} with ${what}`, {
      timeout: DEPLOY_TIMEOUT_MS,
    }, async () => {
      const [nodePath, dir] = await Promise.all([nodeOf(node), projectOf(end)]);
      await deploy(dir, nodePath, quickstart(dir));
    });
  }

  it("the quickstart in a legacy-template project (commonjs/node) goes up and down (Node 20)", {
    timeout: DEPLOY_TIMEOUT_MS,
  }, async () => {
    const [nodePath, dir] = await Promise.all([nodeOf(ENDS.lowest.node), projectOf("lowest")]);
    await deploy(dir, nodePath, legacyQuickstart(dir));
  });

  it("README.md's snippet goes up and down as written (Node 20, the lowest @pulumi/pulumi)", {
    timeout: DEPLOY_TIMEOUT_MS,
  }, async () => {
    const [nodePath, dir] = await Promise.all([nodeOf(ENDS.lowest.node), projectOf("lowest")]);
    await deploy(dir, nodePath, readmeProgram(dir));
  });
});
