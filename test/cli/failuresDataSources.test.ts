/**
 * The first mistakes a user makes (a misspelt game name, a rejected token, a base URL where nothing
 * answers), raised where a TypeScript program meets them: in a data source, in its Output form and its
 * Promise form (awaited in the async entry point), on both faces (`pulumi-gamehost` and
 * `pulumi-gamehost/native`), through the real `pulumi` CLI on Node 20 with the lowest `@pulumi/pulumi` we
 * support (every combination) and on Node 22 (the registry's `node` package) with the newest (a covering
 * set). Then README's and the docs' programs, extracted from their text, with the same mistakes.
 *
 * Before the package's mitigations (docs/known-issues.md) each of these grew the program to GBs and ended
 * with `Program exited with non-zero exit code: -1`: every run is under a watchdog that kills the CLI's
 * process tree above 1 GB, and must print the cause and the fix, with no stack trace and no token, from a
 * program that stays under 500 MB and ends within 10 s.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import {
  latestVersion,
  mustRun,
  npmInstall,
  readmeSnippet,
  sharedNode,
  sharedPackBuilt,
  TEMPLATE_TSCONFIG,
  writeJson,
} from "../packaging/support";
import { REPO_ROOT } from "../support/dist";
import { docBlock } from "../support/docBlocks";
import { linkNodeModules, onPluginFace, pluginProviderYaml } from "../support/examples";
import { CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";
import { expectProgramBounded, useCliEnvironment, type WatchedRun, watchedRun } from "./helpers";

/** Each run's figures, printed at the end (see the report). */
const timings: { cpuMs: number; wallMs: number; peak: number }[] = [];
const PROGRAM_DIR = path.join(__dirname, "programs", "failing-data-source");
const REJECTED_TOKEN = "emu_not_a_token_7d2e";
const UNREACHABLE_URL = "http://127.0.0.1:9";
const MISSPELT_GAME = "space-rase";
const TROUBLESHOOTING = fs.readFileSync(path.join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");

/** A mistake: the stack config that makes it, what docs/troubleshooting.md calls it, what must be printed. */
interface Mistake {
  name: "name" | "token" | "url";
  config: (emulator: RunningEmulator) => Record<string, { value: string; secret?: boolean }>;
  /** The words of docs/troubleshooting.md for it. */
  documented: string;
  cause: string;
  fix: string;
}

const connection = (emulator: RunningEmulator, over: { baseUrl?: string; token?: string } = {}) => ({
  "gamehost:baseUrl": { value: over.baseUrl ?? emulator.url },
  "gamehost:token": { value: over.token ?? emulator.tokens.user, secret: true },
});

const MISTAKES: readonly Mistake[] = [
  {
    name: "name",
    config: (emulator) => connection(emulator),
    documented: "(available: ",
    cause: `No game "${MISSPELT_GAME}" in the caller's games`,
    fix: "(available: puzzle-quest, space-race)",
  },
  {
    name: "token",
    config: (emulator) => connection(emulator, { token: REJECTED_TOKEN }),
    documented: "`400 TOKEN_INVALID`",
    cause: "The token is not valid",
    fix: "`pulumi config set --secret gamehost:token <token>`",
  },
  {
    name: "url",
    config: (emulator) => connection(emulator, { baseUrl: UNREACHABLE_URL }),
    documented: "`Nothing answers at <url>`",
    cause: `Nothing answers at ${UNREACHABLE_URL}`,
    fix: "`pulumi config set gamehost:baseUrl <url>`",
  },
];

/** `pulumi preview` of `stack` under the watchdog. */
const watchedPreview = (project: CliProject, stack: string, env: NodeJS.ProcessEnv) =>
  watchedRun(project, ["preview", "--stack", stack], env);

/** The checks of every run: killed by nothing, bounded, and the cause and the fix alone. */
function expectReported(run: WatchedRun, mistake: Mistake, secrets: readonly string[]): void {
  const { output, report } = run;
  const program = expectProgramBounded(report);
  timings.push({
    cpuMs: program.cpuMs,
    wallMs: program.lastSeenMs - program.firstSeenMs,
    peak: program.peakRssBytes,
  });
  expect(TROUBLESHOOTING, "docs/troubleshooting.md names the mistake").toContain(mistake.documented);
  expect(output).not.toContain("Program exited with non-zero exit code");
  expect(output, "no stack trace").not.toMatch(/^\s+at /m);
  const diagnostics = output.slice(output.indexOf("Diagnostics:"));
  // Said once, however many of the program's data sources meet it (each with its own request and ray id).
  const stated = diagnostics
    .split("\n")
    .filter((l) => l.trim().startsWith("error:") && l.includes(mistake.cause));
  expect(stated, diagnostics).toHaveLength(1);
  // The data source's message alone: the SDK's prefix for a resource input it reached adds nothing.
  expect(diagnostics).not.toContain("error serializing property");
  expect(diagnostics).toContain(mistake.fix);
  for (const secret of secrets) expect(output).not.toContain(secret);
}

/**
 * A project running {@link PROGRAM_DIR}'s program, with one stack per mistake; `prepare` gives it its
 * node_modules. The program's face and form come from the environment, so the stacks are made once.
 */
async function mistakeProject(
  root: string,
  folder: string,
  emulator: RunningEmulator,
  pluginDir: string,
  extraEnv: NodeJS.ProcessEnv,
  prepare: (dir: string) => Promise<void>,
): Promise<CliProject> {
  const dir = path.join(root, folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(PROGRAM_DIR, "index.ts"), path.join(dir, "index.ts"));
  writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: failing-data-source\nruntime: nodejs\nplugins:\n  providers:\n    - name: gamehost\n      path: ${pluginDir}\n`,
  );
  await prepare(dir);
  const project = new CliProject(dir, root, extraEnv);
  for (const mistake of MISTAKES) {
    await project.configure(
      { ...mistake.config(emulator), "failing-data-source:game": { value: MISSPELT_GAME } },
      mistake.name,
    );
  }
  return project;
}

const CASES = MISTAKES.flatMap((mistake) =>
  (["root", "native"] as const).flatMap((face) =>
    (["output", "promise"] as const).map((form) => ({ mistake, face, form })),
  ),
);

/**
 * Node 22 with the newest SDK: each mistake, each face and each form, and every face × form pair, in four runs
 * instead of twelve. What changes there is the runtime and the SDK under the same package code, and Node 20
 * runs every combination.
 */
const NODE22_CASES = (
  [
    ["name", "root", "output"],
    ["token", "native", "promise"],
    ["url", "root", "promise"],
    ["url", "native", "output"],
  ] as const
).map(([name, face, form]) => {
  const found = CASES.find((c) => c.mistake.name === name && c.face === face && c.form === form);
  if (!found) throw new Error(`no case ${name}/${face}/${form}`);
  return found;
});

describe.skipIf(!realCli)(realCliTitle("a failing data source as the CLI prints it"), () => {
  afterAll(() => {
    if (timings.length === 0) return;
    const max = (f: (t: (typeof timings)[number]) => number) => Math.max(...timings.map(f));
    console.info(
      `failing data sources: ${timings.length} runs; program max CPU ${max((t) => t.cpuMs)} ms, max wall ${max((t) => t.wallMs)} ms, max peak RSS ${Math.round(max((t) => t.peak) / 2 ** 20)} MB`,
    );
  });

  const cli = useCliEnvironment("failing-data-source");
  const secrets = () => [cli.emulator.tokens.user, REJECTED_TOKEN];

  describe("Node 20, @pulumi/pulumi 3.248 (the repository's)", () => {
    let project: CliProject;
    beforeAll(async () => {
      project = await mistakeProject(
        cli.root,
        "node20",
        cli.emulator,
        path.join(REPO_ROOT, "plugin"),
        {},
        async (dir) => {
          writeJson(path.join(dir, "package.json"), { name: "failing-data-source", main: "index.ts" });
          linkNodeModules(dir);
        },
      );
    }, 300_000);

    it.each(CASES)("$mistake.name in the $form form, $face face", { timeout: 120_000 }, async (c) => {
      const run = await watchedPreview(project, c.mistake.name, { FACE: c.face, FORM: c.form });
      expectReported(run, c.mistake, secrets());
    });

    // Servers declared in a loop and an export that waits on no lookup: the program's main has returned
    // when the lookup fails, and the SDK printed the failure's stack trace under the message.
    it.each(["root", "native"] as const)(
      "token, servers declared from the lookups, %s face",
      {
        timeout: 120_000,
      },
      async (face) => {
        const token = MISTAKES.find((m) => m.name === "token") as Mistake;
        const run = await watchedPreview(project, token.name, { FACE: face, FORM: "declared" });
        expectReported(run, token, secrets());
      },
    );
  });

  describe("Node 22, the newest @pulumi/pulumi", () => {
    let project: CliProject;
    let sdkVersion = "";
    let node22 = "";
    beforeAll(async () => {
      const work = path.join(cli.root, "node22-work");
      fs.mkdirSync(work, { recursive: true });
      // Node 22 and the tarball: made once per run, shared with test/packaging.
      node22 = await sharedNode(22);
      sdkVersion = await latestVersion("@pulumi/pulumi", work);
      // The built package as npm publishes it (dist is built before the suite runs).
      const tarball = await sharedPackBuilt();
      project = await mistakeProject(
        cli.root,
        "node22",
        cli.emulator,
        path.join(cli.root, "node22", "node_modules", "pulumi-gamehost", "plugin"),
        { PATH: cliPath(path.dirname(node22)) },
        async (dir) => {
          writeJson(path.join(dir, "package.json"), {
            name: "failing-data-source",
            main: "index.ts",
            dependencies: { "@pulumi/pulumi": sdkVersion, "pulumi-gamehost": `file:${tarball}` },
            devDependencies: { "@types/node": "^22", typescript: "^5.0.0" },
          });
          await npmInstall(dir);
        },
      );
    }, 600_000);

    it("runs on Node 22 (the `node` the CLI finds first) with the newest SDK", async () => {
      const node = await mustRun("node", ["--version"], {
        cwd: project.dir,
        env: { PATH: cliPath(path.dirname(node22)) },
      });
      expect(node.stdout.trim()).toMatch(/^v22\./);
      const installed = JSON.parse(
        fs.readFileSync(path.join(project.dir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
      ) as { version: string };
      expect(installed.version).toBe(sdkVersion);
    });

    it.each(NODE22_CASES)("$mistake.name in the $form form, $face face", { timeout: 120_000 }, async (c) => {
      const run = await watchedPreview(project, c.mistake.name, { FACE: c.face, FORM: c.form });
      expectReported(run, c.mistake, secrets());
    });
  });

  it("YAML: a failed invoke is one line of the package's, for a lookup and for a bad argument", {
    timeout: 300_000,
  }, async () => {
    const dir = path.join(cli.root, "yaml-invoke");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      [
        "name: yaml-invoke",
        "runtime: yaml",
        pluginProviderYaml().trimEnd(),
        "variables:",
        "  env:",
        "    fn::invoke:",
        "      function: gamehost:index:getEnvironment",
        `      arguments: { game: ${MISSPELT_GAME}, environment: prod }`,
        "  game:",
        "    fn::invoke:",
        "      function: gamehost:index:getGame",
        "      arguments: { gameId: my-game }",
        "outputs:",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Pulumi YAML interpolation, not JavaScript
        "  gameId: ${env.gameId}",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Pulumi YAML interpolation, not JavaScript
        "  name: ${game.game.nameId}",
        "",
      ].join("\n"),
    );
    const project = new CliProject(dir, cli.root);
    await project.configure(connection(cli.emulator));
    const output = await project.fails(["preview"]);
    const diagnostics = output.slice(output.indexOf("Diagnostics:"));
    const lookup = MISTAKES.find((m) => m.name === "name") as Mistake;
    const errorLines = diagnostics.split("\n").filter((l) => l.trim().startsWith("error:"));
    // Each invoke's failure is one line holding the package's message, once; the Go SDK's multi-line
    // list of invoke failures (`1 error occurred: * … invoke failed: …`) is gone. What pulumi-yaml adds
    // itself (`Error registering variable [env]: no diagnostics`) is not the plugin's to change.
    for (const message of [
      `${lookup.cause} (available: puzzle-quest, space-race).`,
      "Invalid arguments of getGame: gameId: must be a UUID",
    ]) {
      const lines = errorLines.filter((l) => l.includes(message));
      expect(lines, `${message} in:\n${diagnostics}`).toHaveLength(1);
    }
    expect(diagnostics).not.toMatch(/error occurred|invoke failed|^\s+at /m);
    for (const secret of secrets()) expect(output).not.toContain(secret);
  });

  describe("README's and the docs' programs, as written, with a mistake", () => {
    /** Every TypeScript block of README.md and docs/*.md that reads game data from the package. */
    const programs = (): { where: string; program: string }[] => {
      const files = ["README.md", ...fs.readdirSync(path.join(REPO_ROOT, "docs")).map((f) => `docs/${f}`)];
      return files
        .filter((f) => f.endsWith(".md"))
        .flatMap((file) => {
          const text = fs.readFileSync(path.join(REPO_ROOT, file), "utf8");
          return [...text.matchAll(/^```typescript\n([\s\S]*?)^```$/gm)].map((m, i) => ({
            where: `${file} block ${i + 1}`,
            program: m[1] ?? "",
          }));
        })
        .filter(
          ({ program }) =>
            /from "pulumi-gamehost(\/native)?"/.test(program) &&
            /\.get[A-Z]\w*(Output)?\(/.test(program) &&
            !program.includes("…") &&
            // A script that drives stacks through the Automation API (docs/testing.md) is no Pulumi program:
            // test/cli/docsAutomation runs it as written.
            !/\bLocalWorkspace\b|\.automation\b/.test(program),
        );
    };

    it("README's Using-the-package program is among them", () => {
      expect(programs().map((p) => p.program)).toContain(readmeSnippet());
    });

    it("docs/real-service.md's program under Base URL is among them", () => {
      const block = docBlock("docs/real-service.md", "Base URL", "typescript");
      expect(programs().map((p) => p.program)).toContain(block.text);
    });

    it("each, on both faces: the misspelt game name (or, without one, the unreachable URL) reported", {
      timeout: 600_000,
    }, async () => {
      const found = programs();
      expect(found.length).toBeGreaterThan(0);
      for (const { where, program } of found) {
        const misspelt = program.includes('"space-race"');
        const mistake = MISTAKES.find((m) => m.name === (misspelt ? "name" : "url")) as Mistake;
        for (const face of ["dynamic", "plugin"] as const) {
          const folder = `${where.replace(/\W+/g, "-")}-${face}`;
          const dir = path.join(cli.root, folder);
          fs.mkdirSync(dir, { recursive: true });
          let text = misspelt ? program.replaceAll('"space-race"', `"${MISSPELT_GAME}"`) : program;
          if (face === "plugin" && !text.includes('"pulumi-gamehost/native"')) text = onPluginFace(text);
          fs.writeFileSync(path.join(dir, "index.ts"), text);
          writeJson(path.join(dir, "package.json"), { name: "docs-program", main: "index.ts" });
          writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: ["index.ts"] });
          fs.writeFileSync(
            path.join(dir, "Pulumi.yaml"),
            `name: docs-program\nruntime: nodejs\n${face === "plugin" ? pluginProviderYaml() : ""}`,
          );
          linkNodeModules(dir);
          const project = new CliProject(dir, cli.root);
          await project.configure(mistake.config(cli.emulator));
          const run = await watchedPreview(project, "dev", {});
          try {
            expectReported(run, mistake, secrets());
          } catch (error) {
            throw new Error(`${where} on the ${face} face: ${(error as Error).message}\n${run.output}`);
          }
        }
      }
    });
  });
});
