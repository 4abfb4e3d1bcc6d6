/**
 * Plain JavaScript programs on the packed package, as docs/installation-configuration.md#javascript says
 * they work: Pulumi's `javascript` template (`index.js`, `require("pulumi-gamehost")`) and the same program
 * as an ES module (`"type": "module"`, `import`), and as TypeScript in an ES module (`index.ts`), which Node
 * 22 runs and Node 20 refuses with the error the docs quote; that one, with user code on `/native`, `/api` and
 * `/emulator`, type-checks as ES modules under the current template's tsconfig. Both faces (dynamic resources, whose providers Pulumi
 * serializes into the state, and `gamehost.native` through the plugin folder in `Pulumi.yaml`), and the data
 * sources read in the program. One tarball, one install (the lowest `@pulumi/pulumi`), the
 * programs in subfolders of it; each program meets a misspelt game first (a clear error naming it, no stack
 * trace, no token), then goes up and down through the real `pulumi`: every server created once, none left.
 */

import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connection, expectTokenNowhere, summaryOf } from "../cli/helpers";
import { TYPES } from "../engine/helpers";
import type { EmulatorModule } from "../support/dist";
import { liveServers } from "../support/emulator";
import { CliProject, cliPath, realCli, realCliTitle } from "../support/realPulumi";
import {
  describeFailure,
  npmInstall,
  removeTempDirs,
  runCommand,
  sharedNode,
  sharedPackBuilt,
  TEMPLATE_PACKAGE_JSON,
  TEMPLATE_TSCONFIG,
  tempDir,
  writeJson,
} from "./support";

/** The lowest `@pulumi/pulumi` we claim, the one that runs on Node 20 (as packaging.test.ts). */
const LOWEST_SDK = "3.248.0";

/** Pulumi's `javascript` template: its package.json (pulumi/templates `javascript/package.json`). */
const JAVASCRIPT_TEMPLATE = { main: "index.js", dependencies: { "@pulumi/pulumi": "^3.0.0-alpha.0" } };

/**
 * The program's body, the same in both module systems: a dynamic and a native server, a lobby-history
 * export, and the data sources (bootstrap, games, billing) on both faces.
 */
/** Written inline in each resource's arguments, where TypeScript types its literals (`"udp"`) by the argument. */
const NETWORK =
  'network: { ports: { game: { protocol: "udp", internalPort: 7777, routing: { host: {} } } } }';

const BODY = `
const config = new pulumi.Config();
const env = gamehost.getEnvironmentOutput({ game: config.require("game"), environment: "prod" });
const scope = { gameId: env.gameId, environmentId: env.environmentId };
const datacenter = gamehost.getDatacentersOutput(scope).apply((d) => d.datacenters[0].id);
const build = gamehost.getBuildsOutput({ ...scope, tags: { channel: "stable" } }).apply((b) => b.builds[0].id);
const server = {
  ...scope,
  datacenter,
  runtime: { build },
  resources: { cpu: 1000, memory: 1024 },
};
const match = new gamehost.Server("match", { ...server, tags: { role: "match" }, ${NETWORK} });
const nativeMatch = new gamehost.native.Server("native-match", { ...server, tags: { role: "native" }, ${NETWORK} });
const today = new Date();
today.setUTCHours(0, 0, 0, 0);
const history = new gamehost.LobbyHistoryExport("yesterday", {
  gameId: env.gameId,
  queryStart: new Date(today.getTime() - 24 * 3600 * 1000),
  queryEnd: today,
  summarize: true,
});
const games = gamehost.getGamesOutput();
`;

const EXPORTS = {
  matchServerId: "match.serverId",
  nativeServerId: "nativeMatch.serverId",
  historyRows: "history.rowCount",
  bootstrapKeys: "gamehost.getBootstrapOutput().apply((b) => Object.keys(b).sort())",
  billingKeys:
    "games.apply((g) => gamehost.getGroupBilling({ groupId: g.groups[0].groupId })).apply((b) => Object.keys(b).sort())",
  nativeGameNames: "gamehost.native.getGamesOutput().apply((g) => g.games.map((x) => x.displayName).sort())",
};

const ES_MODULE = [
  `import * as pulumi from "@pulumi/pulumi";`,
  `import * as gamehost from "pulumi-gamehost";`,
  BODY,
  ...Object.entries(EXPORTS).map(([name, value]) => `export const ${name} = ${value};`),
].join("\n");

/** How each program is written, and the Node.js major that runs it. */
interface Style {
  folder: string;
  packageJson: Record<string, unknown>;
  file: string;
  program: string;
  node: number;
  /** What Node.js 20 answers instead, where the docs say this way needs a newer Node.js. */
  onNode20?: string;
  /** By resource name, the program with a misspelt argument on that (dynamic or native) server. */
  misspelt?: Record<string, string>;
}

const COMMONJS_PROGRAM = [
  `"use strict";`,
  `const pulumi = require("@pulumi/pulumi");`,
  `const gamehost = require("pulumi-gamehost");`,
  BODY,
  ...Object.entries(EXPORTS).map(([name, value]) => `exports.${name} = ${value};`),
].join("\n");

const STYLES: Record<string, Style> = {
  "Pulumi's javascript template (CommonJS, require)": {
    folder: "commonjs",
    packageJson: JAVASCRIPT_TEMPLATE,
    file: "index.js",
    node: 20,
    program: COMMONJS_PROGRAM,
    misspelt: Object.fromEntries(
      ["match", "native"].map((role) => [
        role === "match" ? "match" : "native-match",
        COMMONJS_PROGRAM.replace(
          `tags: { role: "${role}" }`,
          `readyTimeoutSecond: 600, tags: { role: "${role}" }`,
        ),
      ]),
    ),
  },
  'an ES module ("type": "module", import)': {
    folder: "esm",
    packageJson: { ...JAVASCRIPT_TEMPLATE, type: "module", main: "index.mjs" },
    file: "index.mjs",
    program: ES_MODULE,
    node: 20,
  },
  // Pulumi's ts-node loads CommonJS only; Node.js 22.18+ strips the types of a `.ts` ES module itself.
  'TypeScript as an ES module ("type": "module", index.ts) on Node 22': {
    folder: "ts-esm",
    packageJson: { ...JAVASCRIPT_TEMPLATE, type: "module", main: "index.ts" },
    file: "index.ts",
    program: ES_MODULE,
    node: 22,
    onNode20: 'Unknown file extension ".ts"',
  },
};

/**
 * `tsc --noEmit` with the current template's tsconfig (nodenext, no skipLibCheck) in the `"type": "module"`
 * project: the program, and user code on `/native`, `/api` and `/emulator` (test/packaging/consumer), all
 * compiled as ES modules importing the CommonJS package.
 */
async function typeCheckAsEsModule(dir: string, program: string): Promise<void> {
  const consumer = ["native.ts", "api.ts", "emulator.ts"];
  for (const f of consumer) fs.copyFileSync(path.join(__dirname, "consumer", f), path.join(dir, f));
  writeJson(path.join(dir, "tsconfig.json"), { ...TEMPLATE_TSCONFIG.current, files: [program, ...consumer] });
  const tsc = path.join(projectDir, "node_modules", "typescript", "bin", "tsc");
  const result = await runCommand(process.execPath, [tsc, "--noEmit", "--pretty", "false", "-p", "."], {
    cwd: dir,
    timeoutMs: 300_000,
  });
  expect(result.code, describeFailure(result)).toBe(0);
}

/** A hang guard of one program's runs (a failing up, up, outputs, destroy, export) on two busy cores. */
const DEPLOY_TIMEOUT_MS = 600_000;

let projectDir: string;

beforeAll(async () => {
  const work = tempDir("javascript");
  const tarball = await sharedPackBuilt();
  projectDir = path.join(work, "project");
  fs.mkdirSync(projectDir);
  writeJson(path.join(projectDir, "package.json"), { name: "gamehost-javascript", ...JAVASCRIPT_TEMPLATE });
  // The TypeScript template's compiler and Node types, for the ES-module type check.
  const { typescript, "@types/node": nodeTypes } = TEMPLATE_PACKAGE_JSON.devDependencies;
  await npmInstall(projectDir, [
    tarball,
    `@pulumi/pulumi@${LOWEST_SDK}`,
    `typescript@${typescript}`,
    `@types/node@${nodeTypes}`,
  ]);
}, 600_000);

afterAll(removeTempDirs, 120_000);

describe.skipIf(!realCli).concurrent(realCliTitle("a JavaScript program on the packed package"), () => {
  for (const [style, { folder, packageJson, file, program, node, onNode20, misspelt }] of Object.entries(
    STYLES,
  )) {
    it(`${style}: a misspelt game is named, then up and down with both faces and the data sources`, {
      timeout: DEPLOY_TIMEOUT_MS,
    }, async () => {
      const dir = path.join(projectDir, folder);
      fs.mkdirSync(dir);
      fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        `name: gamehost-${folder}\nruntime: nodejs\nplugins:\n  providers:\n    - name: gamehost\n      path: ../node_modules/pulumi-gamehost/plugin\n`,
      );
      writeJson(path.join(dir, "package.json"), { name: `gamehost-${folder}`, ...packageJson });
      fs.writeFileSync(path.join(dir, file), program);

      const installed = createRequire(path.join(projectDir, "package.json"));
      const { startEmulator } = installed("pulumi-gamehost/emulator") as EmulatorModule;
      const emulator = await startEmulator({ placementDelayMs: 20, watchHoldMs: 500 });
      try {
        if (file.endsWith(".ts")) await typeCheckAsEsModule(dir, file);
        if (onNode20) {
          const on20 = new CliProject(dir, tempDir(`cli-${folder}-node20`), {
            PATH: cliPath(path.dirname(process.execPath)),
          });
          await on20.configure(connection(emulator));
          expect(await on20.fails(["up", "--yes", "--skip-preview"])).toContain(onNode20);
        }
        const nodePath = node === 20 ? process.execPath : await sharedNode(node);
        const project = new CliProject(dir, tempDir(`cli-${folder}`), {
          PATH: cliPath(path.dirname(nodePath)),
        });
        const game = emulator.fixture.games[0]?.nameId ?? "";
        await project.configure({
          ...connection(emulator),
          [`gamehost-${folder}:game`]: { value: `${game}x` },
        });

        // The user's first mistake: the error names the game and the ones there are, with none of our frames.
        const failed = await project.fails(["up", "--yes", "--skip-preview"]);
        expect(failed).toContain(`No game "${game}x"`);
        expect(failed).toContain(game);
        expect(failed).not.toMatch(/^\s+at .*(pulumi-gamehost|node_modules)/m);
        expect(liveServers(emulator)).toEqual([]);

        await project.setConfig({ [`gamehost-${folder}:game`]: { value: game } });
        // The next, where no compiler looks: a misspelt argument fails the preview naming it and the inputs
        // there are, on each face (the SDKs' classes dropped it, and the setting silently did not apply).
        for (const [resource, text] of Object.entries(misspelt ?? {})) {
          fs.writeFileSync(path.join(dir, file), text);
          expect(await project.fails(["preview"])).toMatch(
            new RegExp(
              `resource '${resource}': property readyTimeoutSecond value \\{600\\} has a problem: is not a known field \\(known: [^)]*\\breadyTimeoutSeconds\\b`,
            ),
          );
          expect(liveServers(emulator)).toEqual([]);
        }
        fs.writeFileSync(path.join(dir, file), program);
        const up = await project.ok(["up", "--yes", "--skip-preview"]);
        // Two servers and the export (the failed run made the stack; the native default provider is not counted).
        expect(summaryOf(up)).toEqual({ created: 3, unchanged: 1 });
        const types = [TYPES.dynamic.server, TYPES.dynamic.export, TYPES.plugin.server];
        expect(Object.keys(await project.stateIds(types)).sort()).toEqual([
          "match",
          "native-match",
          "yesterday",
        ]);
        const outputs = await project.outputsJson();
        expect(
          liveServers(emulator)
            .map((s) => s.id)
            .sort(),
        ).toEqual([outputs.matchServerId, outputs.nativeServerId].sort());
        expect(outputs.historyRows).toBeGreaterThan(0);
        expect(outputs.bootstrapKeys).toContain("cluster");
        expect(outputs.billingKeys).toEqual(["group", "watch"]);
        expect(outputs.nativeGameNames).toContain(emulator.fixture.games[0]?.displayName);

        const destroy = await project.ok(["destroy", "--yes", "--skip-preview"]);
        expect(summaryOf(destroy)).toEqual({ deleted: 4 });
        expect(liveServers(emulator)).toEqual([]);
        expect(emulator.servers()).toHaveLength(2);
        await expectTokenNowhere(project, emulator.tokens.user);
      } finally {
        await emulator.stop();
      }
    });
  }
});
