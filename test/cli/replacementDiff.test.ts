/**
 * What `pulumi preview --diff` shows for a tag change (a replacement) on each face, against what
 * docs/_index.md says of the idempotency key: the plugin's detailed diff names the changed spec fields
 * only; the dynamic provider host gives the engine no detailed diff, so the engine compares every input
 * and the replacement's new key shows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { FACES, SERVERS_KEY, SERVERS_PROGRAM, SERVERS_PROJECT, serverArgs } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { programProject, realCli, realCliTitle } from "../support/realPulumi";
import { configure, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const INDEX = fs.readFileSync(path.join(REPO_ROOT, "docs", "_index.md"), "utf8");

describe.skipIf(!realCli)(realCliTitle("a tag change's diff and the idempotency key"), () => {
  const setup = useCliEnvironment("replacement-diff");

  it("docs/_index.md says where the key shows", () => {
    expect(INDEX).toContain("With the plugin (`pulumi-gamehost/native`) the key never\n  shows as a diff");
    expect(INDEX).toContain("on the dynamic face a replacement's preview lists `idempotencyKey`");
  });

  it.each(FACES)("the %s face", { timeout: SCENARIO_TIMEOUT_MS }, async (face) => {
    const cli = programProject(setup.root, `diff-${face}`, SERVERS_PROGRAM, {
      name: SERVERS_PROJECT,
      plugin: true,
    });
    const web = (role: string) => ({ web: serverArgs(setup.emulator, { tags: { role, face } }) });
    await configure(cli, {
      "gamehost:baseUrl": { value: setup.emulator.url },
      "gamehost:token": { value: setup.emulator.tokens.user, secret: true },
      [`${SERVERS_PROJECT}:face`]: { value: face },
      [SERVERS_KEY]: { value: web("web") },
    });
    await cli.ok(["up", "--yes", "--skip-preview"]);
    await cli.ok(["config", "set", "--", SERVERS_KEY, JSON.stringify(web("web-2"))]);

    const preview = await cli.ok(["preview", "--diff"]);

    expect(preview).toMatch(/\+-(pulumi-nodejs:dynamic\/gamehost|gamehost:index):Server: \(replace\)/);
    expect(preview).toContain('~ role: "web" => "web-2"');
    // The property's own line (the program's `idempotencyKeys` stack output is another matter).
    const keyLine = /~ idempotencyKey\s*: "[0-9a-f-]{36}" => "[0-9a-f-]{36}"/;
    if (face === "plugin") expect(preview).not.toMatch(keyLine);
    else expect(preview).toMatch(keyLine);
    expect(preview).not.toContain("pulumi-gamehost/idempotency-key");

    await cli.ok(["destroy", "--yes", "--skip-preview"]);
    cli.expectNoLeak(setup.emulator.tokens.user);
  });
});
