/**
 * A token set in plain text (`pulumi config set --plaintext gamehost:token …`, a hand-edited
 * Pulumi.<stack>.yaml, or the Automation API's `setConfig` without `secret: true`), through the real CLI.
 * The dynamic face's provider (`pulumi:providers:pulumi-nodejs`) keeps the whole stack config as its inputs,
 * so the state held the token unencrypted, and nothing said so: a dynamic resource warns, once, naming the
 * fix. The plugin's schema declares the token secret, so its provider's state is encrypted either way; but
 * the engine printed a refused setting's value (`property token value {Bearer …} has a problem`) when the
 * plugin named the property: the token set in plain text, a base URL's password or query.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { serverArgs } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { realCli, realCliTitle, walk } from "../support/realPulumi";
import { liveIds, SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

const FIX = "pulumi config set --secret gamehost:token";

describe.skipIf(!realCli)(realCliTitle("a token set in plain text"), () => {
  const cli = useCliEnvironment("plain-token");

  it("the dynamic face warns once that the state would hold it unencrypted; as a secret, no warning", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const token = emulator.tokens.user;
    const servers = {
      a: serverArgs(emulator, { tags: { role: "plain-a" } }),
      b: serverArgs(emulator, { tags: { role: "plain-b" } }),
    };
    const project = await serversProject(cli.root, "plain-token", emulator, servers);
    await project.setConfig({ "gamehost:token": { value: token } });

    const plain = await project.ok(["up", "--yes", "--skip-preview"]);
    // Once for the program, not once per resource (the CLI prints it as it comes and again in its summary of
    // diagnostics); the message never holds the token.
    expect(plain.split(FIX), plain).toHaveLength(3);
    // As docs/installation-configuration.md quotes it.
    const page = fs.readFileSync(path.join(REPO_ROOT, "docs", "installation-configuration.md"), "utf8");
    const quoted = /the program warns `([^`]+)`/.exec(page.replace(/\s+/g, " "))?.[1];
    expect(quoted).toBeDefined();
    expect(plain).toContain(quoted);
    expect(plain).not.toContain(token);
    // What it warns of: the dynamic provider's inputs in the state hold the token as it is.
    expect(await project.ok(["stack", "export"])).toContain(`"gamehost:token": "${token}"`);

    await project.setConfig({ "gamehost:token": { value: token, secret: true } });
    const secret = await project.ok(["up", "--yes", "--skip-preview"]);
    expect(secret).not.toContain(FIX);
    expect(await project.ok(["stack", "export"])).not.toContain(token);

    await project.ok(["destroy", "--yes", "--skip-preview"]);
  });

  it("set in Pulumi.yaml's config, shared by every stack: the warning says to remove it there too", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const servers = { a: serverArgs(emulator, { tags: { role: "plain-project" } }) };
    const project = await serversProject(cli.root, "plain-token-project", emulator, servers);
    await project.ok(["config", "rm", "gamehost:token"]);
    const file = path.join(project.dir, "Pulumi.yaml");
    fs.appendFileSync(file, `config:\n  gamehost:token: ${emulator.tokens.user}\n`);
    const warned = await project.ok(["preview"]);
    expect(warned).toContain(
      "gamehost:token is set in plain text: Pulumi.dev.yaml (or Pulumi.yaml's config, which every stack of the project shares) holds it unencrypted",
    );
    expect(warned).toContain(`\`${FIX} <token>\`, and remove it from Pulumi.yaml if it is there`);
    expect(warned).not.toContain(emulator.tokens.user);
  });

  it("the dynamic face refuses a base URL with a password before anything is recorded", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const servers = { a: serverArgs(emulator, { tags: { role: "plain-url" } }) };
    const project = await serversProject(cli.root, "plain-url", emulator, servers);
    const password = "pw-in-url-3b8e";
    await project.setConfig({
      "gamehost:baseUrl": { value: `http://admin:${password}@${new URL(emulator.url).host}` },
    });
    const refused = await project.fails(["up", "--yes", "--skip-preview"]);
    expect(refused).toContain("Configuration gamehost:baseUrl must not contain a user name or password");
    expect(refused).not.toContain(password);
    // The dynamic resources' provider keeps the stack config as its inputs: had it been registered, the state
    // (and its backups and checkpoints) would hold the URL with its password. An update's history records the
    // stack's config as Pulumi.<stack>.yaml holds it, whatever the program does.
    const files = walk(project.backend).filter((file) => !file.endsWith(".history.json"));
    expect(files.some((file) => file.includes("backups"))).toBe(true);
    for (const file of files) expect(fs.readFileSync(file, "utf8"), file).not.toContain(password);
    expect(await project.ok(["stack", "export"])).not.toContain(password);
    expect(liveIds(emulator, "plain-url")).toEqual([]);
  });

  it("the plugin face's refusal of a setting never prints its value: a token, a base URL with a credential", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const servers = { a: serverArgs(emulator, { tags: { role: "plain-plugin" } }) };
    const project = await serversProject(cli.root, "plain-token-plugin", emulator, servers, {
      face: "plugin",
    });
    // The engine prints a check failure of a named property as `property token value {…} has a problem`,
    // the value in clear unless the input is a secret: here none is.
    const pasted = "pasted-token-0f3a9c";
    await project.setConfig({ "gamehost:token": { value: `Bearer ${pasted}` } });
    const bearer = await project.fails(["preview"]);
    expect(bearer).toContain("gamehost:token starts with `Bearer `");
    expect(bearer).not.toContain(pasted);

    await project.setConfig({ "gamehost:token": { value: emulator.tokens.user, secret: true } });
    const url = new URL(emulator.url);
    for (const baseUrl of [
      `http://admin:pw-in-url-7c1d@${url.host}`,
      `${emulator.url}/?token=token-in-query-5e2b`,
    ]) {
      await project.setConfig({ "gamehost:baseUrl": { value: baseUrl } });
      const refused = await project.fails(["preview"]);
      expect(refused).toContain("Configuration gamehost:baseUrl must");
      expect(refused).not.toMatch(/pw-in-url|token-in-query/);
    }
  });
});
