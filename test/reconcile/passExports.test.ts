/**
 * A pass of `gamehost reconcile` reads the stack's state once when repair changes nothing: drift takes the
 * deployment repair exported instead of running `pulumi stack export` again (each run of the CLI is a
 * process of its own, a few tenths of a CPU-second, every pass of a loop). When repair wrote the state,
 * drift reads it anew. The exports leave the secrets encrypted (no `--show-secrets`): neither command reads
 * a secret, `stack import` takes them back encrypted, and decrypting them (a passphrase's key derivation)
 * was most of an export's CPU.
 *
 * The stack is a stand-in: the Automation API's calls are counted, and the CLI drift runs itself is a
 * script that logs its arguments and prints the deployment.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, describe, expect, it } from "vitest";
import type { GamehostClient } from "../../src/api/client";
import { drift } from "../../src/reconcile/drift";
import { reconcilePass } from "../../src/reconcile/reconcile";
import { repair } from "../../src/reconcile/repair";

const GAME = "9a000000-0000-4000-8000-000000000001";
const ENV = "9a000000-0000-4000-8000-000000000002";

/** The export drift and repair run: no `--show-secrets`. */
const EXPORT = "stack export --stack dev --non-interactive";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-pass-exports-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A `pulumi` that logs its arguments (one run a line) to $RUNS and prints $STATE. */
const FAKE_CLI = path.join(root, "pulumi");
fs.writeFileSync(FAKE_CLI, '#!/bin/sh\necho "$*" >> "$RUNS"\ncat "$STATE"\n', { mode: 0o755 });

/** The part of a Stack a pass uses; `calls` counts its Automation API calls, `runs()` the CLI runs of drift. */
function fakeStack(deployment: object) {
  const dir = fs.mkdtempSync(path.join(root, "stack-"));
  const runsFile = path.join(dir, "runs");
  fs.writeFileSync(path.join(dir, "state.json"), JSON.stringify({ version: 3, deployment }));
  const calls = { exportStack: 0, importStack: 0, previewRefresh: 0, refresh: 0 };
  const stack = {
    name: "dev",
    workspace: {
      workDir: dir,
      envVars: { RUNS: runsFile, STATE: path.join(dir, "state.json") },
      pulumiCommand: { command: FAKE_CLI },
    },
    exportStack: async () => {
      calls.exportStack++;
      return { version: 3, deployment };
    },
    importStack: async () => {
      calls.importStack++;
    },
    previewRefresh: async () => {
      calls.previewRefresh++;
      return {};
    },
    refresh: async () => {
      calls.refresh++;
      return {};
    },
  } as unknown as Stack;
  const runs = () =>
    fs.existsSync(runsFile) ? fs.readFileSync(runsFile, "utf8").trim().split("\n").filter(Boolean) : [];
  return { stack, calls, runs };
}

/** A client whose service has no live server. */
/** A create the state kept pending (a hard interruption), of a dynamic Server with key `k1`. */
const pendingCreate = (urn: string) => ({
  type: "creating",
  resource: {
    urn,
    type: "pulumi-nodejs:dynamic/gamehost:Server",
    custom: true,
    inputs: { gameId: GAME, environmentId: ENV, idempotencyKey: "k1" },
  },
});

const emptyService = { listServers: async () => [] } as unknown as GamehostClient;

const pass = (stack: Stack) =>
  reconcilePass(stack, emptyService, { remediate: false, pass: 1, trigger: "start" });

describe("a reconcile pass's state exports", () => {
  it("one export when repair has nothing to do", async () => {
    const { stack, calls, runs } = fakeStack({ resources: [] });
    const result = await pass(stack);
    expect(result.error).toBeUndefined();
    expect(result.drift).toMatchObject({ drifted: [], strays: [], pendingCreates: [] });
    expect(calls).toEqual({ exportStack: 0, importStack: 0, previewRefresh: 1, refresh: 0 });
    expect(runs()).toEqual([EXPORT]);
  });

  it("a second export after repair wrote the state (a pending create whose server is gone, cleared)", async () => {
    const urn = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/gamehost:Server::a";
    const { stack, calls, runs } = fakeStack({
      resources: [],
      pending_operations: [pendingCreate(urn)],
    });
    const result = await pass(stack);
    expect(result.error).toBeUndefined();
    expect(result.repaired).toBe(1);
    expect(calls).toEqual({ exportStack: 0, importStack: 1, previewRefresh: 1, refresh: 0 });
    expect(runs()).toEqual([EXPORT, EXPORT]);
  });
});

describe("a remediating pass's up", () => {
  it("asks for its summary without --show-secrets (the Automation API's `stack history` after the up)", async () => {
    const urn = "urn:pulumi:dev::p::gamehost:index:Server::a";
    const { stack } = fakeStack({ resources: [] });
    const ups: unknown[] = [];
    Object.assign(stack, {
      previewRefresh: async (opts: { onEvent: (e: unknown) => void }) => {
        opts.onEvent({
          resOutputsEvent: { metadata: { op: "refresh", urn, type: "gamehost:index:Server", old: {} } },
        });
        return {};
      },
      up: async (opts: unknown) => {
        ups.push(opts);
        return { summary: { resourceChanges: { create: 1 } } };
      },
    });
    const result = await reconcilePass(stack, emptyService, { remediate: true, pass: 1, trigger: "start" });
    expect(result.error).toBeUndefined();
    expect(result.remediated).toEqual({ create: 1 });
    expect(ups).toEqual([{ refresh: true, showSecrets: false }]);
  });
});

describe("drift's and repair's state export", () => {
  it("runs `pulumi stack export` without --show-secrets", async () => {
    const { stack, calls, runs } = fakeStack({ resources: [] });
    const report = await drift(stack, emptyService);
    expect(report).toMatchObject({ drifted: [], strays: [], pendingCreates: [] });
    expect(calls.exportStack).toBe(0);
    expect(runs()).toEqual([EXPORT]);
  });

  it("repair imports the encrypted export, edited", async () => {
    const secret = {
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: "v1:abc",
    };
    const urn = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/gamehost:Server::a";
    const { stack, runs } = fakeStack({
      secrets_providers: { type: "passphrase", state: { salt: "v1:salt" } },
      resources: [
        {
          urn: "urn:pulumi:dev::p::pulumi:providers:gamehost::default",
          type: "pulumi:providers:gamehost",
          custom: true,
          inputs: { token: secret },
        },
      ],
      pending_operations: [pendingCreate(urn)],
    });
    const imported: unknown[] = [];
    (stack as unknown as { importStack: (s: unknown) => Promise<void> }).importStack = async (s) => {
      imported.push(s);
    };
    const report = await repair(stack, emptyService);
    expect(report).toMatchObject({ pending: 1, outcomes: [{ action: "cleared" }] });
    expect(runs()).toEqual([EXPORT]);
    expect(imported).toEqual([
      {
        version: 3,
        deployment: expect.objectContaining({
          secrets_providers: { type: "passphrase", state: { salt: "v1:salt" } },
          resources: [expect.objectContaining({ inputs: { token: secret } })],
          pending_operations: [],
        }),
      },
    ]);
  });

  it("a failed export is one line naming the stack and the CLI's error", async () => {
    const { stack } = fakeStack({ resources: [] });
    (stack.workspace as { envVars: Record<string, string> }).envVars.STATE = path.join(root, "missing");
    await expect(drift(stack, emptyService)).rejects.toThrow(/^cannot export stack dev: .*missing/);
  });
});
