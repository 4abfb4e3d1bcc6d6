/**
 * Every fenced block of README.md and docs/ is accounted for (docs/testing.md, "How the docs are tested"):
 * output (```text without `file=`), marked `no-run`, type-checked (`check`, the generated reference's Usage
 * blocks: test/lint/referenceUsage.test.ts), or run by the suite test named in RUN_BY, which must extract it by
 * its page and heading (not copy it). A block that is none of these fails here, so a new program or command
 * sequence in the docs cannot go untested unnoticed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { blockId, blocksOf, docPages } from "../support/docBlocks";

interface RunBy {
  readonly page: string;
  readonly section: string;
  readonly lang: string;
  readonly file?: string;
  /** The test that extracts the block (by page and heading) and runs it. */
  readonly test: string;
}
const LANGUAGES_DOCS = "test/cli/languagesDocs.test.ts";
const RUN_BY: readonly RunBy[] = [
  { page: "README.md", section: "Using the package", lang: "typescript", test: "test/packaging/support.ts" },
  { page: "README.md", section: "YAML, Python and Go", lang: "bash", test: LANGUAGES_DOCS },
  ...["YAML", "Python", "Go"].flatMap((section) => [
    { page: "docs/languages.md", section, lang: "sh", test: LANGUAGES_DOCS },
    { page: "docs/languages.md", section, lang: "yaml", file: "Pulumi.yaml", test: LANGUAGES_DOCS },
  ]),
  { page: "docs/languages.md", section: "2. Configure it", lang: "sh", test: LANGUAGES_DOCS },
  {
    page: "docs/languages.md",
    section: "Python",
    lang: "text",
    file: "requirements.txt",
    test: LANGUAGES_DOCS,
  },
  { page: "docs/languages.md", section: "Python", lang: "python", file: "__main__.py", test: LANGUAGES_DOCS },
  { page: "docs/languages.md", section: "Go", lang: "text", file: "go.mod", test: LANGUAGES_DOCS },
  { page: "docs/languages.md", section: "Go", lang: "go", file: "main.go", test: LANGUAGES_DOCS },
  {
    page: "docs/adopting-servers.md",
    section: "With the provider plugin: `pulumi import`",
    lang: "bash",
    test: "test/cli/importCodegen.test.ts",
  },
  {
    page: "docs/languages.md",
    section: "Import and get",
    lang: "sh",
    test: "test/cli/importCodegen.test.ts",
  },
  { page: "docs/reference/server.md", section: "Import", lang: "sh", test: "test/cli/importCodegen.test.ts" },
  { page: "docs/client.md", section: "", lang: "typescript", test: "test/api/clientDocs.test.ts" },
  { page: "docs/client.md", section: "Proxies", lang: "typescript", test: "test/api/clientDocs.test.ts" },
  ...(["sh", "hcl"] as const).map((lang) => ({
    page: "docs/reconcile.md",
    section: "Listing servers: `pulumi do`",
    lang,
    ...(lang === "hcl" ? { file: "web.pcl" } : {}),
    test: "test/cli/listServers.test.ts",
  })),
  { page: "docs/reference/server.md", section: "List", lang: "sh", test: "test/cli/listServers.test.ts" },
  {
    page: "docs/reconcile.md",
    section: "After Pulumi's state commands",
    lang: "sh",
    test: "test/reconcile/stateCommands.test.ts",
  },
  { page: "docs/fleets.md", section: "Fleets", lang: "typescript", test: "test/cli/fleetDocProgram.test.ts" },
  {
    page: "docs/installation-configuration.md",
    section: "Rotating the token",
    lang: "sh",
    test: "test/cli/configInState.test.ts",
  },
  {
    page: "docs/installation-configuration.md",
    section: "Upgrading",
    lang: "bash",
    test: "test/cli/upgrade.test.ts",
  },
  {
    page: "docs/languages.md",
    section: "Moving a resource between the faces",
    lang: "typescript",
    test: "test/cli/faceMoves.test.ts",
  },
  {
    page: "docs/_index.md",
    section: "Components and stack references",
    lang: "typescript",
    test: "test/cli/faceMoves.test.ts",
  },
  {
    page: "docs/_index.md",
    section: "Policies and transforms",
    lang: "yaml",
    test: "test/cli/policyPack.test.ts",
  },
  {
    page: "docs/_index.md",
    section: "Policies and transforms",
    lang: "typescript",
    test: "test/cli/policyPack.test.ts",
  },
  { page: "docs/fleets.md", section: "YAML", lang: "yaml", test: "test/cli/fleetLanguages.test.ts" },
  { page: "docs/fleets.md", section: "Python", lang: "python", test: "test/cli/fleetLanguages.test.ts" },
  { page: "docs/fleets.md", section: "Go", lang: "go", test: "test/cli/fleetLanguages.test.ts" },
  ...(
    [
      ["README.md", "The emulator", "bash"],
      ["docs/emulator.md", "Running it", "bash"],
      ["docs/emulator.md", "Starting it from code", "typescript"],
      ["docs/emulator.md", "The admin API", "bash"],
    ] as const
  ).map(([page, section, lang]) => ({ page, section, lang, test: "test/cli/docsEmulator.test.ts" })),
  ...(
    [
      ["docs/_index.md", "Example", "typescript"],
      ["docs/installation-configuration.md", "Running against the local emulator", "bash"],
      ["docs/testing.md", "Integration tests against the emulator", "yaml", ".github/workflows/stack.yml"],
    ] as const
  ).map(([page, section, lang, file]) => ({
    page,
    section,
    lang,
    ...(file ? { file } : {}),
    test: "test/cli/docsIndexExample.test.ts",
  })),
  { page: "docs/client.md", section: "Watches", lang: "typescript", test: "test/cli/docsClient.test.ts" },
  ...(
    [
      ["Unit tests with `pulumi.runtime.setMocks`", "typescript", "index.ts"],
      ["Unit tests with `pulumi.runtime.setMocks`", "typescript", "index.test.ts"],
      ["Unit tests with `pulumi.runtime.setMocks`", "sh", undefined],
      ["Data sources under mocks", "typescript", "dataSources.test.ts"],
      ["Integration tests with the Automation API", "typescript", "stack.test.ts"],
      ["Integration tests with the Automation API", "sh", undefined],
    ] as const
  ).map(([section, lang, file]) => ({
    page: "docs/testing.md",
    section,
    lang,
    ...(file ? { file } : {}),
    test: "test/cli/docsTesting.test.ts",
  })),
  {
    page: "docs/testing.md",
    section: "Many stacks from one script: inline programs",
    lang: "typescript",
    test: "test/cli/docsAutomation.test.ts",
  },
  // The class a program's own errors are told to have, thrown by a stack's program under `reconcile --remediate`.
  {
    page: "docs/known-issues.md",
    section: "An uncaught error is formatted with colours, and Node's colouring never ends",
    lang: "typescript",
    test: "test/reconcile/drift.test.ts",
  },
  {
    page: "docs/known-issues.md",
    section: "Python: a failed data source prints a traceback before its message",
    lang: "python",
    file: "__main__.py",
    test: "test/cli/referencePython.test.ts",
  },
  // Run with each mistake a user makes first (the unreachable URL), on both faces.
  {
    page: "docs/real-service.md",
    section: "Base URL",
    lang: "typescript",
    test: "test/cli/failuresDataSources.test.ts",
  },
];
const runIds = new Set(RUN_BY.map(blockId));

const allBlocks = docPages().flatMap(blocksOf);

describe("the fenced blocks of README.md and docs/", () => {
  it("are output, marked no-run, type-checked, or run by the suite from the page's text", () => {
    const unaccounted: string[] = [];
    for (const block of allBlocks) {
      const id = blockId(block);
      const output = block.lang === "text" && !block.file;
      if (output || block.noRun || block.check || runIds.has(id)) continue;
      unaccounted.push(`${block.page}:${block.line} (${id})`);
    }
    expect(unaccounted, "blocks neither run, checked nor marked no-run").toEqual([]);
  });

  it("that the suite runs exist, and their tests extract them by page and heading", () => {
    const ids = new Set(allBlocks.map(blockId));
    for (const entry of RUN_BY) {
      expect(ids.has(blockId(entry)), `${blockId(entry)} is no block of the docs`).toBe(true);
      const source = fs.readFileSync(path.join(REPO_ROOT, entry.test), "utf8");
      expect(source, `${entry.test} names ${entry.page}`).toContain(entry.page);
      expect(source, `${entry.test} names the heading "${entry.section}"`).toContain(entry.section);
    }
  });

  it("have info strings the suite knows: a language, then no-run, check or file=<name>", () => {
    for (const block of allBlocks) {
      expect(block.lang, `${block.page}:${block.line}`).toMatch(/^[a-z]+$/);
    }
  });
});
