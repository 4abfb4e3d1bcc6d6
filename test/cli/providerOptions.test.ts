/**
 * Resource options that name a provider or a timeout, given to the dynamic face as a Pulumi user gives them
 * to any package, through the real CLI (test/cli/programs/provider-options): an explicit gamehost provider as
 * `provider`, inherited from a component's `providers`, or passed to a program-side data source, fails
 * where it is written, saying the dynamic face takes none and naming `gamehost.native`; before, the first
 * failed with the plugin's "no resource type pulumi-nodejs:dynamic/…" and the other two were ignored (the
 * server went to the stack's service, not the provider's). `customTimeouts` on a dynamic resource warn
 * that the dynamic provider host ignores them. On the native face, an explicit provider left without a token or a
 * base URL says so of that provider: it read "Configuration gamehost:token is not set: run `pulumi config set …`",
 * which the stack already had and an explicit provider does not read. Transforms that change inputs (a tag by a
 * component's `transforms`, the size by a stack transformation) reach both faces' servers (docs/_index.md).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type CliProject, programProject, realCli, realCliTitle } from "../support/realPulumi";
import { connection, liveIds, SCENARIO_TIMEOUT_MS, useCliEnvironment } from "./helpers";

const PROGRAM = path.join(__dirname, "programs", "provider-options");
const PROJECT = "gamehost-cli-provider-options";

describe.skipIf(!realCli)(realCliTitle("provider and timeout options on the dynamic face"), () => {
  const cli = useCliEnvironment("provider-options");

  /** `pulumi preview` of the program with config `case` (and `env`); its whole output. */
  async function preview(
    project: CliProject,
    which: string,
    expectFailure: boolean,
    env: NodeJS.ProcessEnv = {},
  ): Promise<string> {
    await project.setConfig({ [`${PROJECT}:case`]: { value: which } });
    if (expectFailure) return project.fails(["preview"], env);
    return project.ok(["preview"], env);
  }

  it("a provider given to a dynamic resource or data source fails naming the native face; customTimeouts warn; an explicit provider's missing settings", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const { emulator } = cli;
    const project = programProject(cli.root, "provider-options", PROGRAM, { name: PROJECT, plugin: true });
    await project.configure({
      ...connection(emulator),
      [`${PROJECT}:euUrl`]: { value: emulator.url },
      [`${PROJECT}:case`]: { value: "explicit" },
    });

    const explicit = await preview(project, "explicit", true);
    expect(explicit).toContain(
      'Server "match" is a dynamic resource (pulumi-nodejs:dynamic/gamehost:Server), which takes no provider',
    );
    expect(explicit).toContain("its `provider` option would not be used");
    expect(explicit).toContain("declare it with gamehost.native.Server");
    expect(explicit).not.toContain("has no resource type");

    const inherited = await preview(project, "inherited", true);
    expect(inherited).toContain('Server "eu-match" is a dynamic resource');
    expect(inherited).toContain("the gamehost provider its parent passes down (`providers` of a parent)");

    const transformed = await preview(project, "transform", true);
    expect(transformed).toContain(
      "a dynamic resource of pulumi-gamehost was given this provider (by its `provider` option or a transform); dynamic resources take none, so declare it with gamehost.native.Server",
    );

    const invoke = await preview(project, "invoke", true);
    expect(invoke).toContain(
      "getEnvironmentOutput (pulumi-gamehost) runs in the program and takes no provider",
    );
    expect(invoke).toContain("use gamehost.native.getEnvironmentOutput");
    // Printed as the package's message alone, without a stack trace.
    expect(invoke).not.toMatch(/\n\s+at .*providerOptions/);

    // The stack's config wins over the variables (docs/installation-configuration.md): its data sources answer.
    const timeouts = await preview(project, "timeouts", false, {
      GAMEHOST_BASE_URL: "http://127.0.0.1:9",
      GAMEHOST_TOKEN: "emu_not_a_token",
    });
    expect(timeouts).toContain(
      'Server "match": customTimeouts have no effect on a dynamic resource (Pulumi\'s dynamic provider host ignores them). Bound the wait with readyTimeoutSeconds, or declare it with gamehost.native.Server',
    );

    // The stack's config has both settings; the explicit provider "eu" has a base URL and no token.
    const noToken = await preview(project, "nativeToken", true);
    expect(noToken).toContain(
      'The token of provider "eu" is not set: give the provider a token (an explicit provider does not read the stack\'s gamehost:token) or set the GAMEHOST_TOKEN environment variable.',
    );
    expect(noToken).not.toContain("pulumi config set");
    const noUrl = await preview(project, "nativeUrl", true);
    expect(noUrl).toContain('The baseUrl of provider "bare" is not set: give the provider a baseUrl');
    expect(noUrl).not.toContain("pulumi config set");

    // Transforms that change inputs reach both faces' servers, which are made as transformed and stay so.
    await project.setConfig({ [`${PROJECT}:case`]: { value: "inputs" } });
    await project.ok(["up", "--yes", "--skip-preview"]);
    const made = emulator.servers().filter((s) => s.destroyed_at === undefined);
    expect(made.map((s) => [s.tags.role, s.tags.team, s.resources.cpu])).toEqual([
      ["inputs", "blue", 500],
      ["inputs", "blue", 500],
    ]);
    await project.ok(["preview", "--expect-no-changes"]);
    await project.ok(["destroy", "--yes", "--skip-preview"]);

    expect(liveIds(emulator)).toEqual([]);
    project.expectNoLeak(emulator.tokens.user);
  });
});
