/**
 * examples/lobby-export as written, through the real `pulumi` CLI against the emulator: a span bound given as
 * epoch milliseconds in stack config (a string) refused with what a bound may be; the export of the fixture's
 * sample span and its summary, which matches the CSV behind the secret URL; a second `up` changes nothing;
 * refresh keeps the export and `up --replace` exports again; a new `generation` (a trigger) exports again;
 * destroy calls no service.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { EXPORT_TYPE, ROUTES, routesCalled } from "../engine/helpers";
import { REPO_ROOT } from "../support/dist";
import { copiedProject, realCli, realCliTitle } from "../support/realPulumi";
import {
  connection,
  expectProgramBounded,
  SCENARIO_TIMEOUT_MS,
  useCliEnvironment,
  watchedRun,
} from "./helpers";

// The default fixture's sample span (see its $comment): lobbies of every inclusion case.
const FROM = "2024-08-16T00:00:00.000Z";
const TO = "2024-08-17T00:00:00.000Z";
const TROUBLESHOOTING = fs.readFileSync(path.join(REPO_ROOT, "docs", "troubleshooting.md"), "utf8");

describe.skipIf(!realCli)(realCliTitle("examples/lobby-export"), () => {
  const setup = useCliEnvironment("lobby-export");

  it("exports the span, summarizes exactly the CSV, keeps the URL secret, and destroys", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const project = copiedProject(
      setup.root,
      "lobby-export",
      path.join(REPO_ROOT, "examples", "lobby-export"),
    );
    const game = setup.emulator.fixture.games[0];
    // A new user's first try: the span in epoch milliseconds, which stack config hands the program as a
    // string. The preview names the field, what a bound may be and how to give a number; nothing is exported.
    await project.configure({
      ...connection(setup.emulator),
      "gamehost-lobby-export:game": { value: game?.nameId ?? "" },
      "gamehost-lobby-export:from": { value: String(Date.parse(FROM)) },
      "gamehost-lobby-export:to": { value: TO },
    });
    setup.emulator.resetRequests();
    const refused = await project.fails(["preview"]);
    expect(refused).toContain(
      `property queryStart value {${Date.parse(FROM)}} has a problem: must be an RFC 3339 timestamp with a time and an offset (e.g. 2024-08-16T00:00:00Z) or integer epoch milliseconds: epoch milliseconds go as a number, not a string`,
    );
    expect(refused).not.toMatch(/^\s+at /m);
    expect(routesCalled(setup.emulator).filter((r) => r === ROUTES.exportHistory)).toEqual([]);
    await project.setConfig({ "gamehost-lobby-export:from": { value: FROM } });

    await project.ok(["up", "--yes", "--skip-preview"]);
    const outputs = await project.outputsJson();
    const csv = Buffer.from(await (await fetch(String(outputs.url))).arrayBuffer());
    const records = parse(csv) as string[][];
    expect(records.length - 1).toBeGreaterThan(0);
    expect(outputs.rows).toBe(records.length - 1);
    expect(outputs.bytes).toBe(csv.length);
    expect(outputs.sha256).toBe(createHash("sha256").update(csv).digest("hex"));
    // Secret in the state: the URL is nowhere in the exported deployment.
    expect(JSON.stringify(await project.exported())).not.toContain(String(outputs.url));

    await project.ok(["up", "--yes", "--expect-no-changes"]);

    // An expired or lost URL (docs/troubleshooting.md, "Lobby-history exports"): refresh keeps the export as
    // recorded, asking the service nothing, and `up --replace <urn>` exports again, to a URL that downloads.
    expect(TROUBLESHOOTING).toContain("Export again: `pulumi up --replace <the export's urn>`");
    setup.emulator.resetRequests();
    await project.ok(["refresh", "--yes", "--skip-preview"]);
    expect(routesCalled(setup.emulator)).toEqual([]);
    expect((await project.outputsJson()).url).toBe(outputs.url);
    const urn = (await project.exported()).find((r) => r.type === EXPORT_TYPE)?.urn ?? "";
    await project.ok(["up", "--yes", "--skip-preview", "--replace", urn]);
    const replaced = await project.outputsJson();
    expect(replaced.url).not.toBe(outputs.url);
    expect((await fetch(String(replaced.url))).status).toBe(200);

    // A trigger changed: a fresh export of the same span (a new URL), made before the old one goes.
    setup.emulator.resetRequests();
    await project.setConfig({ "gamehost-lobby-export:generation": { value: "2" } });
    const steps = await project.stepsOf(["up", "--yes", "--skip-preview"], [EXPORT_TYPE]);
    expect(steps.map(([op]) => op)).toEqual(["create-replacement", "replace", "delete-replaced"]);
    expect(routesCalled(setup.emulator).filter((r) => r === ROUTES.exportHistory)).toHaveLength(1);
    expect((await project.outputsJson()).url).not.toBe(outputs.url);

    // An export has nothing to delete on the service.
    setup.emulator.resetRequests();
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(routesCalled(setup.emulator)).toEqual([]);
    expect(await project.exported()).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });

  it("a misspelt game fails the preview naming the setting and the games, with no stack trace", {
    timeout: SCENARIO_TIMEOUT_MS,
  }, async () => {
    const project = copiedProject(
      setup.root,
      "lobby-export-misspelt",
      path.join(REPO_ROOT, "examples", "lobby-export"),
    );
    await project.configure({
      ...connection(setup.emulator),
      "gamehost-lobby-export:game": { value: "space-rase" },
      "gamehost-lobby-export:from": { value: FROM },
      "gamehost-lobby-export:to": { value: TO },
    });
    setup.emulator.resetRequests();
    // Under the watchdog: thrown as a pulumi.RunError, the example's error grew the program past 1 GB while
    // the SDK formatted it (over 30 s of CPU unwatched) before the message came (docs/known-issues.md).
    const run = await watchedRun(project, ["preview"]);
    expect(run.code, run.output).not.toBe(0);
    expectProgramBounded(run.report);
    const out = run.output;
    expect(out).toContain('error: config game: no game "space-rase" among your games (available: ');
    expect(out).toMatch(/available: [^)]*space-race/);
    expect(out).not.toMatch(/^\s+at \S.*:\d+:\d+\)?$|<ref \*\d>|Promise \{/m);
    expect(routesCalled(setup.emulator).filter((r) => r === ROUTES.exportHistory)).toEqual([]);
    project.expectNoLeak(setup.emulator.tokens.user);
  });
});
