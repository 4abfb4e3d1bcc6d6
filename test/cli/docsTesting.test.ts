/**
 * docs/testing.md's unit tests as written: the `file=` blocks of "Unit tests with `pulumi.runtime.setMocks`"
 * (the program and its Vitest file) and of "Data sources under mocks" (a Vitest file with the emulator) written
 * into a fresh project where the package, `@pulumi/pulumi` and Vitest are installed, then the section's command
 * (`npx vitest run`) run there: both files and their tests must pass. "Integration tests with the Automation
 * API": its Vitest file beside the same program, in a Pulumi project, run by its command through the real CLI
 * (on PATH, as the Automation API finds it): the program is deployed to the test's emulator and destroyed.
 */

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TEMPLATE_TSCONFIG, type TemplateGeneration } from "../packaging/support";
import { type DocBlock, docBlock, sectionBlocks } from "../support/docBlocks";
import { linkNodeModules } from "../support/examples";
import { CliProject, realCli, tempRoot } from "../support/realPulumi";
import { runLine } from "./docCommands";

const PAGE = "docs/testing.md";
const MOCKS = "Unit tests with `pulumi.runtime.setMocks`";
const DATA_SOURCES = "Data sources under mocks";
const AUTOMATION = "Integration tests with the Automation API";

let root: string;
let project: CliProject;
beforeAll(() => {
  root = tempRoot("docs-testing");
  const dir = path.join(root, "project");
  fs.mkdirSync(dir);
  linkNodeModules(dir);
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "my-project", "main": "index.ts" }\n');
  project = new CliProject(dir, root);
});
afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** The `file=` blocks of a section: what the page has the reader write. */
const filesOf = (section: string): DocBlock[] =>
  sectionBlocks(PAGE, section).filter((b) => b.file && !b.noRun);

it(`${PAGE}: the setMocks test and the data-source test pass under npx vitest run`, {
  timeout: 300_000,
}, async () => {
  const files = [...filesOf(MOCKS), ...filesOf(DATA_SOURCES)];
  expect(files.map((b) => b.file)).toEqual(["index.ts", "index.test.ts", "dataSources.test.ts"]);
  for (const block of files) fs.writeFileSync(path.join(project.dir, block.file as string), block.text);

  const command = docBlock(PAGE, MOCKS, "sh").text.trim();
  expect(command).toBe("npx vitest run");
  // This suite's own Vitest settings stay out of the reader's run.
  const ours = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith("VITEST") || k === "TEST" || k === "NODE_ENV")
      .map((k) => [k, undefined]),
  );
  const { stdout } = await runLine(project, command, { ...ours, NO_COLOR: "1" });
  expect(stdout).toMatch(/Test Files\s+2 passed \(2\)/);
  expect(stdout).toMatch(/Tests\s+2 passed \(2\)/);
});

it(`${PAGE}: the program and its test files type-check in both generations of Pulumi's TypeScript template`, {
  timeout: 120_000,
}, () => {
  // A reader's editor and a CI `tsc --noEmit` check the tests beside the program with the project's own
  // tsconfig: the current template's nodenext in a CommonJS package (no top-level await, `import()` with an
  // extension) and the older commonjs/node one. Vitest runs them either way; the compiler must not refuse them.
  const dir = path.join(root, "typecheck");
  fs.mkdirSync(dir);
  linkNodeModules(dir);
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "my-project", "main": "index.ts" }\n');
  const files = [...filesOf(MOCKS), ...filesOf(DATA_SOURCES), ...filesOf(AUTOMATION)];
  for (const block of files) fs.writeFileSync(path.join(dir, block.file as string), block.text);
  const failures: string[] = [];
  for (const generation of ["current", "legacy"] as TemplateGeneration[]) {
    const compilerOptions = {
      ...TEMPLATE_TSCONFIG[generation].compilerOptions,
      // TypeScript 6 refuses the older template's "node" resolution without it (docs/troubleshooting.md).
      ...(generation === "legacy" ? { ignoreDeprecations: "6.0" } : {}),
      noEmit: true,
    };
    const config = `tsconfig.${generation}.json`;
    fs.writeFileSync(
      path.join(dir, config),
      JSON.stringify({ compilerOptions, files: files.map((b) => b.file) }),
    );
    try {
      execFileSync(
        process.execPath,
        [require.resolve("typescript/bin/tsc"), "-p", config, "--pretty", "false"],
        {
          cwd: dir,
          encoding: "utf8",
        },
      );
    } catch (error) {
      const output = (error as { stdout?: string }).stdout ?? String(error);
      // Under the older template's "node" resolution Vitest's own typings fail to resolve theirs (the page
      // says so): only errors in the reader's files count there.
      const ours = output
        .split("\n")
        .filter((line) => /error TS\d+/.test(line))
        .filter((line) => generation === "current" || !line.includes("node_modules/"));
      if (ours.length > 0) failures.push(`${generation}:\n${ours.join("\n")}`);
    }
  }
  expect(failures).toEqual([]);
});

it.skipIf(!realCli)(
  `${PAGE}: the Automation API test deploys the program to its emulator and destroys it`,
  {
    timeout: 600_000,
  },
  async () => {
    const dir = path.join(root, "automation");
    fs.mkdirSync(dir);
    linkNodeModules(dir);
    fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "my-project", "main": "index.ts" }\n');
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: my-project\nruntime: nodejs\n");
    const program = filesOf(MOCKS).find((b) => b.file === "index.ts");
    const files = filesOf(AUTOMATION);
    expect(files.map((b) => b.file)).toEqual(["stack.test.ts"]);
    for (const block of [program, ...files] as DocBlock[])
      fs.writeFileSync(path.join(dir, block.file as string), block.text);
    const automation = new CliProject(dir, root);

    const command = docBlock(PAGE, AUTOMATION, "sh").text.trim();
    expect(command).toBe("npx vitest run stack.test.ts");
    const ours = Object.fromEntries(
      Object.keys(process.env)
        .filter((k) => k.startsWith("VITEST") || k === "TEST" || k === "NODE_ENV")
        .map((k) => [k, undefined]),
    );
    const { stdout } = await runLine(automation, command, { ...ours, NO_COLOR: "1" });
    expect(stdout).toMatch(/Tests\s+1 passed \(1\)/);
    // The stack is gone, as the test left it: nothing in the backend but what removeStack leaves.
    expect((await automation.run(["stack", "ls", "--json"])).stdout).not.toContain('"ci"');
  },
);
