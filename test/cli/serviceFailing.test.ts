/**
 * The service failing (500 `ERROR` on every attempt) under docs/real-service.md's check of a base URL, the
 * program extracted from the page, through the real CLI: after the client's retries, the error must say what
 * to do (docs/troubleshooting.md: every error is the cause and the fix), not only the service's "An internal
 * error has occurred."
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeJson } from "../packaging/support";
import { docBlock } from "../support/docBlocks";
import { linkNodeModules } from "../support/examples";
import { CliProject, realCli, realCliTitle } from "../support/realPulumi";
import { connection, useCliEnvironment } from "./helpers";

describe.skipIf(!realCli)(realCliTitle("the service failing under a data source"), () => {
  const setup = useCliEnvironment("service-failing", { admin: true });

  it("docs/real-service.md's getBootstrap check: the service's failure, what to do, the ray id", {
    timeout: 300_000,
  }, async () => {
    const { emulator } = setup;
    const dir = path.join(setup.root, "bootstrap");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "index.ts"),
      docBlock("docs/real-service.md", "Base URL", "typescript").text,
    );
    writeJson(path.join(dir, "package.json"), { name: "service-failing", main: "index.ts" });
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: service-failing\nruntime: nodejs\n");
    linkNodeModules(dir);
    const cli = new CliProject(dir, setup.root);
    await cli.configure({ ...connection(emulator), "gamehost:maxRetries": { value: "1" } });
    emulator.faults.inject({ kind: "error_500", pathGlob: "/cloud/bootstrap", count: 1000 });

    const output = await cli.fails(["up", "--yes", "--skip-preview"]);
    const diagnostics = output.slice(output.indexOf("Diagnostics:"));
    const line = diagnostics.split("\n").find((l) => l.includes("An internal error has occurred.")) ?? "";
    expect(line, diagnostics).toMatch(/\[GET \/cloud\/bootstrap: 500 ERROR, ray id [0-9a-f-]+\]/);
    expect(line).toContain("run it again later");
    expect(line).toContain("quote the ray id to the service's support");
    cli.expectNoLeak(emulator.tokens.user);
  });
});
