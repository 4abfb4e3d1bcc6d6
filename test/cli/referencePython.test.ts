/**
 * Python programs of the docs as the pages show them, through the real `pulumi` CLI and its Python host,
 * against the emulator, in one project whose SDK `pulumi package add` made (made once: the virtualenv and
 * PyPI's `pulumi` in it are most of a Python project's cost):
 * - the Usage programs of the functions' reference pages (docs/reference/*.md, written by
 *   scripts/generate/docs.mjs): each program's `up` succeeds, and a function with a secret result
 *   (createPaymentPortalSession's URL) leaves it secret: `[secret]` in the outputs, nowhere in the state in clear;
 * - docs/known-issues.md, "Python: a failed data source prints a traceback before its message", with a rejected
 *   token (the user's first mistakes include it): the Python program of docs/languages.md as written fails with
 *   a Python traceback and the provider's message last (what the page says happens), and the page's own program
 *   fails with the message alone; with the right token it runs. The page's other case, the program without a
 *   required input, fails in the generated SDK with the property's name. Nothing prints a token;
 * - docs/fleets.md's Python Fleet program (its YAML and Go ones are ./fleetLanguages.test.ts's): up makes 2 + 1
 *   ready servers of the fleet, the outputs say so, destroy removes them.
 * - a misspelt key inside a dict argument (`"internal_prot"`, `"max_surg"`, `"tag"`), which the generated SDK passes
 *   on as written: the preview names the property and the fields there are;
 * - a token set with the `Bearer ` of README's curl line: the preview names gamehost:token and the fix;
 * - a number setting given with a unit (`30s`): the preview says what the setting takes;
 * - an https:// base URL for the emulator, which has no TLS: the preview says so, not to retry;
 * - a datacenter looked up by a display name that is none: the error lists the display names, not the slugs;
 * None of the other programs makes a server, so the fleet's checks of every live server hold in any order.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/dist";
import { blocksOf, docBlock, docPages } from "../support/docBlocks";
import { liveServers } from "../support/emulator";
import { CliProject, cliPath, realCli, realCliTitle, walk } from "../support/realPulumi";
import { connection, useCliEnvironment } from "./helpers";
import { expectDocsFleet, fleetsDocBlock, PLUGIN_DIR, PYPI_PULUMI, SCHEMA_FILE } from "./languages";

/** The function pages (a function's page says so by its Result section) and their Python programs. */
const programs = docPages()
  .filter((page) => page.startsWith("docs/reference/") && !page.endsWith("_index.md"))
  .flatMap((page) => {
    if (!fs.readFileSync(path.join(REPO_ROOT, page), "utf8").includes("\n## Result\n")) return [];
    return blocksOf(page)
      .filter((b) => b.check && b.lang === "python")
      .map((b) => ({ page, text: b.text }));
  });

const PAGE = "docs/known-issues.md";
const SECTION = "Python: a failed data source prints a traceback before its message";
const WRONG_TOKEN = "emu_user_mallory";

describe.skipIf(!realCli)(realCliTitle("Python programs of the docs, in one package-added project"), () => {
  const setup = useCliEnvironment("python-programs");
  let dir: string;
  let project: CliProject;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    if (!realCli) return;
    dir = path.join(setup.root, "python-programs");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      ["name: python-programs", "runtime: python", "packages:", `  gamehost: ${PLUGIN_DIR}`, ""].join("\n"),
    );
    fs.writeFileSync(path.join(dir, "requirements.txt"), `${PYPI_PULUMI}\n`);
    project = new CliProject(dir, setup.root);
    // GeneratePackage and Link of the pinned build's wrapped Python host (tools/codegen-host): the SDK is
    // written, named in requirements.txt and installed into the venv the host makes.
    const added = await project.ok(["package", "add", SCHEMA_FILE]);
    expect(added).toContain("import pulumi_gamehost as gamehost");
    expect(fs.readFileSync(path.join(dir, "requirements.txt"), "utf8")).toBe(
      `${PYPI_PULUMI}\n./sdks/gamehost\n`,
    );
    env = { VIRTUAL_ENV: dir, PATH: cliPath(path.join(dir, "bin")) };
    await project.configure(connection(setup.emulator));
  }, 600_000);

  it("the reference pages' programs each run; a secret result stays secret in the outputs and the state", {
    timeout: 600_000,
  }, async () => {
    expect(programs.map((p) => path.basename(p.page, ".md"))).toContain("create-payment-portal-session");
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

  it("docs/fleets.md's Python program: up, outputs, destroy", { timeout: 600_000 }, async () => {
    fs.writeFileSync(path.join(dir, "__main__.py"), fleetsDocBlock("Python", "python"));
    await project.ok(["up", "--yes", "--skip-preview"], env);
    expect((await project.outputsJson()).ready).toEqual({ "us-east-atl": 2, "eu-central-fra": 1 });
    expectDocsFleet(setup.emulator);
    await project.ok(["destroy", "--yes", "--skip-preview"], env);
    expect(liveServers(setup.emulator)).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });

  it("a misspelt key in a dict (the SDK passes it on as written): the preview names it and the fields there are", {
    timeout: 600_000,
  }, async () => {
    const server = docBlock("docs/languages.md", "Python", "python").text;
    expect(server).toContain('"internal_port": 7777');
    fs.writeFileSync(path.join(dir, "__main__.py"), server.replace('"internal_port"', '"internal_prot"'));
    expect(await project.fails(["preview"], env)).toContain(
      "property network.ports.game.internal_prot value {<nil>} has a problem: is not a known field (known: internalPort, protocol, routing)",
    );

    const fleet = fleetsDocBlock("Python", "python");
    expect(fleet).toContain('"max_surge"');
    expect(fleet).toContain('"tags": {');
    fs.writeFileSync(
      path.join(dir, "__main__.py"),
      fleet.replace('"max_surge"', '"max_surg"').replace('"tags": {', '"tag": {'),
    );
    const out = await project.fails(["preview"], env);
    expect(out).toContain(
      "rollout.max_surg value {<nil>} has a problem: is not a known field (known: maxSurge, maxUnavailable)",
    );
    // A fleet's template takes a Server's fields but its datacenter (the keys of `datacenters`).
    expect(out).toContain(
      "template.tag value {<nil>} has a problem: is not a known field (known: lifecycle, network, resources, runtime, tags)",
    );
    expect(liveServers(setup.emulator)).toEqual([]);
  });

  it("a token pasted with its header's `Bearer ` (as README's curl line shows it): the preview says so, naming gamehost:token", {
    timeout: 600_000,
  }, async () => {
    const user = setup.emulator.tokens.user;
    expect(fs.readFileSync(path.join(REPO_ROOT, "README.md"), "utf8")).toContain(
      `Authorization: Bearer ${user}`,
    );
    fs.writeFileSync(path.join(dir, "__main__.py"), docBlock("docs/languages.md", "Python", "python").text);
    await project.setConfig({ "gamehost:token": { value: `Bearer ${user}`, secret: true } });
    try {
      expect(await project.fails(["preview"], env)).toMatch(
        /Configuration gamehost:token starts with `Bearer ` \(give the token alone: .*\): run `pulumi config set --secret gamehost:token/,
      );
    } finally {
      await project.setConfig({ "gamehost:token": { value: user, secret: true } });
    }
    project.expectNoLeak(user);
  });

  it("a datacenter looked up by a display name that is not one: the error lists the names there are", {
    timeout: 600_000,
  }, async () => {
    const program = docBlock("docs/languages.md", "Python", "python").text;
    expect(program).toContain('slug="us-east-atl"');
    fs.writeFileSync(
      path.join(dir, "__main__.py"),
      program.replace('slug="us-east-atl"', 'name="US East Atlanta"'),
    );
    expect(await project.fails(["preview"], env)).toMatch(
      /No datacenter with name "US East Atlanta" in game [0-9a-f-]+ \(available: "EU Central \(Frankfurt\)", "US East \(Atlanta\)"\)/,
    );
  });

  it("https:// in the base URL of an emulator (which has no TLS): the preview says so and to use http://", {
    timeout: 600_000,
  }, async () => {
    fs.writeFileSync(path.join(dir, "__main__.py"), docBlock("docs/languages.md", "Python", "python").text);
    const https = setup.emulator.url.replace(/^http:/, "https:");
    await project.setConfig({ "gamehost:baseUrl": { value: https } });
    try {
      const out = await project.fails(["preview"], env);
      expect(out).toContain(
        `${https} answers without TLS: check gamehost:baseUrl (\`pulumi config set gamehost:baseUrl <url>\`); a server without TLS, as the emulator, takes http://.`,
      );
      expect(out).not.toContain("retry");
    } finally {
      await project.setConfig({ "gamehost:baseUrl": { value: setup.emulator.url } });
    }
  });

  it("a number setting with a unit (`gamehost:requestTimeoutMs 30s`): the preview says what it takes", {
    timeout: 600_000,
  }, async () => {
    fs.writeFileSync(path.join(dir, "__main__.py"), docBlock("docs/languages.md", "Python", "python").text);
    await project.setConfig({ "gamehost:requestTimeoutMs": { value: "30s" } });
    try {
      expect(await project.fails(["preview"], env)).toContain(
        "property requestTimeoutMs value {30s} has a problem: must be a non-negative integer",
      );
    } finally {
      await project.ok(["config", "rm", "gamehost:requestTimeoutMs"]);
    }
  });

  it(`${PAGE}, ${SECTION}: the plain lookup prints a traceback; the page's RunError prints the message alone`, {
    timeout: 600_000,
  }, async () => {
    await project.setConfig({ "gamehost:token": { value: WRONG_TOKEN, secret: true } });
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
