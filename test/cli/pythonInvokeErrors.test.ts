/**
 * docs/known-issues.md, "Python: a failed data source prints a traceback before its message", through the
 * real `pulumi` CLI and its Python host against the emulator, with a rejected token (the user's first
 * mistakes include it): the Python program of docs/languages.md as written fails with a Python traceback
 * and the provider's message last (what the page says happens), and the page's own program fails with the
 * message alone; with the right token it runs. The page's other case, the program without a required input,
 * fails in the generated SDK with the property's name. Nothing prints a token.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { docBlock } from "../support/docBlocks";
import { CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";
import { connection, useCliEnvironment } from "./helpers";
import { PLUGIN_DIR, PYPI_PULUMI, SCHEMA_FILE } from "./languages";

const PAGE = "docs/known-issues.md";
const SECTION = "Python: a failed data source prints a traceback before its message";
const WRONG_TOKEN = "emu_user_mallory";

describe.skipIf(!realCli)(realCliTitle(`${PAGE}, ${SECTION}`), () => {
  const setup = useCliEnvironment("python-invoke-errors");

  it("the plain lookup prints a traceback; the page's RunError prints the message alone", {
    timeout: 600_000,
  }, async () => {
    const dir = path.join(setup.root, "python-invoke-errors");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      ["name: python-invoke-errors", "runtime: python", "packages:", `  gamehost: ${PLUGIN_DIR}`, ""].join(
        "\n",
      ),
    );
    fs.writeFileSync(path.join(dir, "requirements.txt"), `${PYPI_PULUMI}\n`);
    const project = new CliProject(dir, setup.root);
    await project.ok(["package", "add", SCHEMA_FILE]);
    const env = { VIRTUAL_ENV: dir, PATH: cliPath(path.join(dir, "bin")) };
    await project.configure({
      ...connection(setup.emulator),
      "gamehost:token": { value: WRONG_TOKEN, secret: true },
    });

    fs.writeFileSync(path.join(dir, "__main__.py"), docBlock("docs/languages.md", "Python", "python").text);
    const plain = await project.fails(["preview"], env);
    expect(plain).toContain("Traceback (most recent call last)");
    expect(plain).toMatch(/Exception: invoke of gamehost:index:getEnvironment failed: .*gamehost:token/);

    // The page's other case: the same program without a required input fails in the generated SDK.
    await project.setConfig({ "gamehost:token": { value: setup.emulator.tokens.user, secret: true } });
    const withoutDatacenter = docBlock("docs/languages.md", "Python", "python").text.replace(
      /^\s*datacenter=.*\n/m,
      "",
    );
    fs.writeFileSync(path.join(dir, "__main__.py"), withoutDatacenter);
    expect(await project.fails(["preview"], env)).toContain(
      "TypeError: Missing required property 'datacenter'",
    );
    await project.setConfig({ "gamehost:token": { value: WRONG_TOKEN, secret: true } });

    fs.writeFileSync(path.join(dir, "__main__.py"), docBlock(PAGE, SECTION, "python").text);
    const caught = await project.fails(["preview"], env);
    expect(caught).toMatch(/error: invoke of gamehost:index:getEnvironment failed: .*gamehost:token/);
    expect(caught).not.toContain("Traceback");
    expect(caught).not.toMatch(/^\s+File "/m);

    await project.setConfig({ "gamehost:token": { value: setup.emulator.tokens.user, secret: true } });
    await project.ok(["up", "--yes", "--skip-preview"], env);
    const prod = setup.emulator.fixture.games[0]?.environments.find((e) => e.nameId === "prod");
    expect((await project.outputsJson()).environmentId).toBe(prod?.id);
    project.expectNoLeak(WRONG_TOKEN);
    project.expectNoLeak(setup.emulator.tokens.user);
  });
});
