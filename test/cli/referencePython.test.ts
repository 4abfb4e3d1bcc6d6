/**
 * The Python Usage programs of the functions' reference pages (docs/reference/*.md, written by
 * scripts/generate/docs.mjs) as the pages show them, through the real `pulumi` CLI and its Python host,
 * against the emulator, in one project whose SDK `pulumi package add` made: each program's `up` succeeds,
 * and a function with a secret result (createPaymentPortalSession's URL) leaves it secret: `[secret]` in
 * the outputs, nowhere in the state in clear.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { blocksOf, docPages } from "../support/docBlocks";
import { CliProject, cliPath, realCli, realCliTitle, walk } from "../support/realPulumi";
import { connection, useCliEnvironment } from "./helpers";
import { PLUGIN_DIR, PYPI_PULUMI, SCHEMA_FILE } from "./languages";

/** The function pages (a function's page says so by its Result section) and their Python programs. */
const programs = docPages()
  .filter((page) => page.startsWith("docs/reference/") && !page.endsWith("_index.md"))
  .flatMap((page) => {
    if (!fs.readFileSync(path.join(REPO_ROOT, page), "utf8").includes("\n## Result\n")) return [];
    return blocksOf(page)
      .filter((b) => b.check && b.lang === "python")
      .map((b) => ({ page, text: b.text }));
  });

describe.skipIf(!realCli)(realCliTitle("the Python Usage programs of the functions' reference pages"), () => {
  const setup = useCliEnvironment("reference-python");

  it("each runs; a secret result stays secret in the outputs and the state", {
    timeout: 600_000,
  }, async () => {
    expect(programs.map((p) => path.basename(p.page, ".md"))).toContain("create-payment-portal-session");
    const dir = path.join(setup.root, "reference-python");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      ["name: reference-python", "runtime: python", "packages:", `  gamehost: ${PLUGIN_DIR}`, ""].join("\n"),
    );
    fs.writeFileSync(path.join(dir, "requirements.txt"), `${PYPI_PULUMI}\n`);
    const project = new CliProject(dir, setup.root);
    await project.ok(["package", "add", SCHEMA_FILE]);
    const env = { VIRTUAL_ENV: dir, PATH: cliPath(path.join(dir, "bin")) };
    await project.configure(connection(setup.emulator));

    for (const { page, text } of programs) {
      fs.writeFileSync(path.join(dir, "__main__.py"), text);
      await project.ok(["up", "--yes", "--skip-preview"], env);
      if (!page.endsWith("create-payment-portal-session.md")) continue;
      const shown = JSON.parse(await project.ok(["stack", "output", "--json"])) as Record<string, unknown>;
      expect(shown.url, page).toBe("[secret]");
      // The emulator's portal URLs are …/billing/portal/<session>: none in any state or backend file.
      for (const file of walk(project.backend)) {
        expect(fs.readFileSync(file, "utf8"), `${page}: ${file}`).not.toContain("/billing/portal/");
      }
      expect(JSON.stringify(await project.exported()), page).not.toContain("/billing/portal/");
    }
    project.expectNoLeak(setup.emulator.tokens.user);
  });
});
