/**
 * `gamehost:` keys the package does not read, through the real CLI on both faces. One who runs a game in
 * several stacks sets `gamehost:environment` per stack, taking it for a setting of the package (as
 * `aws:region` is of its provider), or mistypes a key on one stack (`gamehost:requestTimeoutMS`): both changed
 * nothing, and nothing said so. Each is now named in one warning, a look-alike with the key to rename it to.
 */
import { describe, expect, it } from "vitest";
import { serverArgs } from "../support/emulator";
import { realCli, realCliTitle } from "../support/realPulumi";
import { SCENARIO_TIMEOUT_MS, serversProject, useCliEnvironment } from "./helpers";

const WARNING =
  "gamehost:environment, gamehost:requestTimeoutMS (rename it to gamehost:requestTimeoutMs: keys are case-sensitive) are set in the stack's config, but pulumi-gamehost reads no such setting";

describe.skipIf(!realCli)(realCliTitle("gamehost: keys the package does not read"), () => {
  const cli = useCliEnvironment("unread-config");

  it.each(["dynamic", "plugin"] as const)(
    "%s face: one warning names each, and the key a look-alike means",
    {
      timeout: SCENARIO_TIMEOUT_MS,
    },
    async (face) => {
      const { emulator } = cli;
      const servers = { a: serverArgs(emulator, { tags: { role: `unread-${face}` } }) };
      const project = await serversProject(cli.root, `unread-${face}`, emulator, servers, { face });
      const quiet = await project.ok(["preview"]);
      expect(quiet).not.toContain("reads no such setting");

      await project.setConfig({
        "gamehost:environment": { value: "prod" },
        "gamehost:requestTimeoutMS": { value: "5000" },
      });
      const warned = await project.ok(["preview"]);
      expect(warned).toContain(WARNING);
      expect(warned).toContain("`pulumi config set environment <value>`");
    },
  );
});
