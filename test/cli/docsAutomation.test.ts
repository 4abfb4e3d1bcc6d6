/**
 * docs/testing.md, "Many stacks from one script: inline programs": the page's script as written, run by
 * `node` in a fresh folder that has the package in its node_modules and no Pulumi.yaml, against a
 * rate-limited emulator, through the real CLI (on PATH, as the Automation API finds it): three stacks of
 * inline programs with a Fleet each come up at once, every output holding a secret stays secret, and
 * refresh and destroy leave no server behind. Without `workDir` (the page says so) every stack failed with
 * `Cannot find module '@pulumi/pulumi/cmd/dynamic-provider'`.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { docBlock } from "../support/docBlocks";
import { linkNodeModules } from "../support/examples";
import { writeCheckedModule } from "../support/moduleScript";
import { CliProject, captureOutput, cliEnv, realCli, realCliTitle } from "../support/realPulumi";
import { SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const PAGE = "docs/testing.md";
const SECTION = "Many stacks from one script: inline programs";

describe.skipIf(!realCli)(realCliTitle(`${PAGE}: ${SECTION}`), () => {
  const setup = useCliEnvironment("docs-automation", { rateLimit: true });

  it("brings three stacks up at once, secrets secret, and destroys them", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const dir = path.join(setup.root, "modes");
    fs.mkdirSync(dir);
    linkNodeModules(dir);
    const js = writeCheckedModule(dir, "modes", docBlock(PAGE, SECTION, "typescript").text);
    const backend = path.join(setup.root, "backend");
    fs.mkdirSync(backend);
    const home = path.join(setup.root, "home");
    const env = cliEnv(home, {
      PULUMI_BACKEND_URL: `file://${backend}`,
      GAMEHOST_BASE_URL: setup.emulator.url,
      GAMEHOST_TOKEN: setup.emulator.tokens.user,
    });
    const runScript = async (scriptEnv: NodeJS.ProcessEnv) => {
      const child = spawn(process.execPath, [js], {
        cwd: dir,
        env: scriptEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const output = captureOutput(child);
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      return { code, ...output };
    };

    // The script's stacks exist (a run before), and this run lacks the passphrase: each stack fails, and the
    // error the script prints quotes no token (the page's setAllConfig put it on the CLI's command line).
    const before = new CliProject(path.join(setup.root, "modes-before"), setup.root, {
      PULUMI_BACKEND_URL: `file://${backend}`,
    });
    fs.mkdirSync(before.dir);
    fs.writeFileSync(path.join(before.dir, "Pulumi.yaml"), "name: modes\nruntime: nodejs\n");
    for (const mode of ["ranked", "casual", "arcade"])
      await before.ok(["stack", "init", mode], { PULUMI_HOME: home });
    const noPassphrase = await runScript({ ...env, PULUMI_CONFIG_PASSPHRASE: undefined });
    expect(noPassphrase.code).not.toBe(0);
    expect(`${noPassphrase.stdout}${noPassphrase.stderr}`).toContain("passphrase");
    expect(`${noPassphrase.stdout}${noPassphrase.stderr}`).not.toContain(setup.emulator.tokens.user);
    expect(setup.emulator.servers()).toEqual([]);

    const output = await runScript(env);
    expect(output.code, `${output.stdout}\n${output.stderr}`).toBe(0);
    expect(output.stdout.trim().split("\n").sort()).toEqual([
      "arcade: succeeded, 2 ready, template secret: true",
      "casual: succeeded, 2 ready, template secret: true",
      "ranked: succeeded, 2 ready, template secret: true",
    ]);
    const servers = setup.emulator.servers();
    expect(servers).toHaveLength(6);
    expect(servers.filter((s) => s.destroyed_at === undefined)).toEqual([]);
    // The stacks are gone, and no state file holds a secret in plaintext.
    const stateText = fs
      .readdirSync(backend, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "utf8"))
      .join("\n");
    expect(stateText).not.toContain("secret-of-");
    expect(stateText).not.toContain(setup.emulator.tokens.user);
  });
});
