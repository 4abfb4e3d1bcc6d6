import { readdirSync } from "node:fs";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/support/longestFirst.mts";

/**
 * Three projects, split by what a test needs (README "Working on the package" gives each one's time):
 * - unit: imports src/ only and starts no process (in-process emulators and fake servers are fine); seconds.
 * - integration: runs the compiled dist/ (provider hosts, the plugin binary, the engine harness) and the
 *   emulator's scale tests. Any test file not listed below lands here.
 * - e2e: the real Pulumi CLI (test/cli), the packed tarball (test/packaging) and checks of the repository's
 *   shipped files and workflows (test/lint).
 * Integration and e2e run behind one guard, test/support/distIsCurrent.ts: dist/ must be newer than src/. Every
 * project first checks node_modules/ against package-lock.json (test/support/nodeModulesCurrent.ts).
 */
/** The test files of `dir` but those named in `except` (by base name). */
const testFilesOf = (dir: string, except: string[] = []) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".test.ts") && !except.includes(f.replace(/\.test\.ts$/, "")))
    .map((f) => `${dir}/${f}`);

const unit = [
  // clientExample and clientDocs run programs that load `pulumi-gamehost/api` from dist/; errorBounds checks
  // a 15 MB answer in a child process under a heap cap.
  ...testFilesOf("test/api", ["clientExample", "clientDocs", "errorBounds"]),
  // Processes (the emulator's CLI, a tmpfs) or long runs: thousands of watches, 200k-lobby exports, rate limits.
  ...testFilesOf("test/emulator", [
    ...["cli", "stateFile", "stateDiskFull", "stateEdges", "stateLock"],
    ...["robustness", "faults", "export", "exportSpan"],
  ]),
  "test/provider/serverSpec.test.ts",
  "test/provider/referenceBounds.test.ts",
  "test/provider/recordedSettings.test.ts",
  "test/provider/fleetPlanner.test.ts",
  "test/provider/fleetReadiness.test.ts",
  "test/provider/lobbyExportRevocation.test.ts",
  "test/provider/lobbyExportSpec.test.ts",
  "test/provider/fleetFailures.test.ts",
  "test/provider/unknownFields.test.ts",
  "test/provider/replaceOnChangesWarning.test.ts",
  "test/provider/reportedOnce.test.ts",
  "test/provider/dataSourceOrder.test.ts",
  "test/provider/dataSourceLookups.test.ts",
  "test/provider/createRateLimited.test.ts",
  "test/provider/createThroughProxy.test.ts",
  "test/provider/serverDeleteCancelled.test.ts",
  "test/provider/replacementTargets.test.ts",
  "test/provider/hostCanLoad.test.ts",
  "test/provider/policyTypes.test.ts",
  "test/plugin/rpcBounds.test.ts",
  "test/plugin/schemaCurrent.test.ts",
  ...testFilesOf("test/support"),
  "test/reconcile/cliMessage.test.ts",
  "test/reconcile/unknownStack.test.ts",
  "test/reconcile/importFile.test.ts",
  "test/reconcile/pendingCreateNotStray.test.ts",
  "test/reconcile/interruptedDelete.test.ts",
  "test/engine/cannotRun.test.ts",
  "test/reconcile/replacementNotCreated.test.ts",
];
const e2e = [
  "test/cli/**/*.test.ts",
  // The gamehost command's scenarios through the real CLI (its usage errors and message text need none).
  ...[
    ...["adopt", "drift", "fleet", "pendingDelete"],
    ...["repair", "repairKilled", "repairReplacement", "stateCommands"],
  ].map((name) => `test/reconcile/${name}.test.ts`),
  "test/packaging/**/*.test.ts",
  "test/lint/**/*.test.ts",
  "test/engine/demo.test.ts",
  // The dashboard in Chromium, with the quickstart deployed by the real CLI.
  "test/dashboard/**/*.test.ts",
];
// Every project first checks that node_modules/ is what package-lock.json locks (test/support/nodeModulesCurrent.ts).
const installed = "test/support/nodeModulesCurrent.ts";
const overDist = { globalSetup: [installed, "test/support/distIsCurrent.ts"] };

export default defineConfig({
  test: {
    setupFiles: ["test/support/quietWarnings.ts", "test/support/timersRestored.ts"],
    // Real-CLI and engine scenarios run several CLI or host processes per test beside each other on 2 cores:
    // a timeout here guards against a hang, it is no speed target (benchmarks are).
    testTimeout: 120_000,
    // expect.poll waits for an event (a page showing what the emulator did): its timeout is a hang guard, not a
    // speed bound (Vitest's default is 1 s).
    expect: { poll: { timeout: 30_000 } },
    hookTimeout: 120_000,
    // Two-core CI machines. Three workers, not two: unit and integration files wait on emulator delays and
    // client timeouts, and two kept the cores 81 % busy (284 s); three keep them 95 % busy (247 s).
    maxWorkers: 3,
    // Longest files first, across projects (test/support/longestFirst.mts): the short ones fill the end.
    sequence: { sequencer: LongestFirstSequencer },
    // unit and integration run first, together; e2e after them, alone (a group of its own, so that it can have
    // its own worker count).
    projects: [
      // Unit files share their workers' modules (no isolation): loading src/ and zod once per worker, not once
      // per file, takes the project's CPU from about 30 s to about 12 s. Each file starts and stops what it uses.
      { extends: true, test: { name: "unit", include: unit, isolate: false, globalSetup: [installed] } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: [...unit, ...e2e],
          ...overDist,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: e2e,
          // Besides the dist/ guard: the run's folder of work several files share (test/support/sharedWork.ts).
          globalSetup: [...overDist.globalSetup, "test/support/sharedWork.ts"],
          sequence: { groupOrder: 1 },
          // A real-CLI scenario keeps about 0.65 of a core busy (test/cli/failures: 52 s of CPU in 81 s, the rest is
          // the emulator's placement and readiness delays and process start-up): three at once fill two cores.
          maxWorkers: 3,
        },
      },
    ],
  },
});
