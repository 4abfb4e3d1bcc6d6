/**
 * The one line `gamehost` shows for a failed CLI run (cliMessage), on the CLI's own output as the
 * Automation API hands it over (`code: …\n stdout: …\n stderr: …`). The engine's "Detected that <plugin>
 * exited prematurely" report is never the whole story: the CLI makes it both when a plugin crashed and
 * when a plugin was slow to answer the Cancel the CLI sends as it closes it (seen with a plugin whose
 * Cancel blocked for 7 s: `pulumi refresh --preview-only` and `up` still succeed). The outputs below are
 * the CLI's (v3.274.1), from a plugin whose dist/ was missing and from that slow plugin.
 */
import { describe, expect, it } from "vitest";
import { cliMessage } from "../../src/reconcile/workspace";

const BIN = "/work/wt/x/plugin/pulumi-resource-gamehost";
const automationError = (stdout: string, stderr = "") =>
  new Error(`code: 255\n stdout: ${stdout}\n stderr: ${stderr}\n err?: Error: exit status 255\n`);

const CRASHED = `Updating (dev):
 +  pulumi:pulumi:Stack app-dev creating (2s) error: Detected that ${BIN} exited prematurely.
 +  pulumi:pulumi:Stack app-dev **creating failed** 2 errors
Diagnostics:
  pulumi:pulumi:Stack (app-dev):
    error: update failed: failed to validate provider config: could not read plugin [${BIN}]: exit status 1
    error: Detected that ${BIN} exited prematurely.
           This is *always* a bug in the provider. Please report the issue to the provider author as appropriate.
           To assist with debugging we have dumped the STDOUT and STDERR streams of the plugin:node:internal/modules/cjs/loader:1210
      throw err;
      ^
    
    Error: Cannot find module '../dist/plugin/main.js'
    Require stack:
    - ${BIN}
        at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    
    Node.js v20.20.2

Resources:
    + 1 created
    1 errored
`;

const SLOW_CANCEL = `Previewing refresh (bench):
    pulumi:pulumi:Stack app-bench running error: Detected that ${BIN} exited prematurely. 
    pulumi:pulumi:Stack app-bench  1 error
Diagnostics:
  pulumi:pulumi:Stack (app-bench):
    error: Detected that ${BIN} exited prematurely.
           This is *always* a bug in the provider. Please report the issue to the provider author as appropriate.
           To assist with debugging we have dumped the STDOUT and STDERR streams of the plugin:

Resources:
    3 unchanged
    1 errored
`;

describe("cliMessage", () => {
  it("shows the deployment's own error, and what a crashed plugin printed", () => {
    expect(cliMessage(automationError(CRASHED))).toBe(
      `update failed: failed to validate provider config: could not read plugin [${BIN}]: exit status 1 ` +
        "(the Pulumi CLI reports that the provider plugin pulumi-resource-gamehost exited prematurely; " +
        "it printed: Error: Cannot find module '../dist/plugin/main.js')",
    );
  });

  it("with no other error and an empty dump, says what the CLI's report can mean", () => {
    const line = cliMessage(automationError(SLOW_CANCEL));
    expect(line).toBe(
      'the Pulumi CLI reports that the provider plugin pulumi-resource-gamehost "exited prematurely", and it ' +
        "printed nothing (the CLI says so too of a plugin that did not answer its Cancel within 5 s as the CLI closed it)",
    );
    expect(line).not.toContain("always* a bug");
  });

  it("the report after the deployment's error never hides it, whatever the order", () => {
    const reordered = CRASHED.replace(/( {4}error: update failed[^\n]*\n)([\s\S]*?)(\nResources:)/, "$2$1$3");
    expect(reordered.indexOf("update failed")).toBeGreaterThan(reordered.indexOf("we have dumped"));
    expect(cliMessage(automationError(reordered))).toMatch(
      /^update failed: failed to validate provider config: .*\(the Pulumi CLI reports that the provider plugin pulumi-resource-gamehost exited prematurely; it printed: Error: Cannot find module/,
    );
  });

  it("other failures keep their last error line", () => {
    const locked = automationError(
      "Updating (dev):\n",
      "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n",
    );
    expect(cliMessage(locked)).toBe(
      "the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.",
    );
    expect(cliMessage(new Error("spawn pulumi ENOENT"))).toBe("spawn pulumi ENOENT");
  });
});
