/**
 * The GitHub workflows (.github/workflows) pass actionlint, which checks their syntax, expressions, action
 * inputs and the shell of every `run:` step; so do the workflows the docs give users (a block with
 * `file=.github/workflows/<name>.yml`), written out as they are. actionlint comes from the Go module proxy, pinned, so the
 * check needs only Go (which CI has for the pinned Pulumi CLI).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { blocksOf, docPages } from "../support/docBlocks";

const ACTIONLINT = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12";
const hasGo = spawnSync("go", ["version"], { encoding: "utf8" }).status === 0;
if (!hasGo && process.env.CI === "true")
  throw new Error("the workflow check needs Go (actionlint), and CI has none");

const workflows = fs
  .readdirSync(path.join(REPO_ROOT, ".github", "workflows"))
  .filter((f) => f.endsWith(".yml"))
  .map((f) => path.join(".github", "workflows", f));

const docsWorkflows = docPages().flatMap((page) =>
  blocksOf(page).filter((b) => b.lang === "yaml" && b.file?.startsWith(".github/workflows/")),
);

describe.skipIf(!hasGo)("GitHub workflows", () => {
  it("CI runs .ci/run on Node.js 20 and 22, and a tag releases every artifact", () => {
    const ci = fs.readFileSync(path.join(REPO_ROOT, ".github/workflows/ci.yml"), "utf8");
    expect(ci).toMatch(/node: \[20, 22\]/);
    expect(ci).toMatch(/run: \.ci\/run/);
    // The upgrade tests `git archive` an earlier commit, which a shallow checkout (the default) does not have.
    expect(ci).toMatch(/fetch-depth: 0/);
    const release = fs.readFileSync(path.join(REPO_ROOT, ".github/workflows/release.yml"), "utf8");
    for (const step of [
      "npm publish --provenance",
      "pypa/gh-action-pypi-publish",
      "gh release create",
      "sdk/go/gamehost/v",
    ]) {
      expect(release).toContain(step);
    }
  });

  it("pass actionlint, the repository's and those the docs give", { timeout: 300_000 }, () => {
    expect(workflows.length).toBeGreaterThan(0);
    expect(docsWorkflows.map((b) => `${b.page}:${b.file}`)).toEqual(
      expect.arrayContaining([
        "docs/reconcile.md:.github/workflows/drift.yml",
        "docs/testing.md:.github/workflows/stack.yml",
      ]),
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-docs-workflows-"));
    try {
      const written = docsWorkflows.map((block, i) => {
        const file = path.join(dir, `${i}-${path.basename(block.file ?? "")}`);
        fs.writeFileSync(file, block.text);
        return file;
      });
      const run = spawnSync("go", ["run", ACTIONLINT, "-no-color", ...workflows, ...written], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 280_000,
      });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
