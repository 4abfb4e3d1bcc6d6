import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator";
import { dist, REPO_ROOT, requireFromRepo } from "../support/dist";
import { liveServers, serverArgs, serverTarget, startTestEmulator } from "../support/emulator";
import { resolvedValue } from "../support/outputs";

const pulumi = dist.pulumi();
const gamehost = dist.pkg();
// The provider host loads provider text with this very module.
const requireFromString = createRequire(requireFromRepo.resolve("@pulumi/pulumi"))("require-from-string") as (
  code: string,
  filename?: string,
) => { handler(): Record<string, (...args: unknown[]) => Promise<Record<string, unknown>>> };

const providerText = new Map<string, string>();
let emulator: RunningEmulator;
let programDir: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        providerText.set(args.type, args.inputs.__provider as string);
        return { id: "id", state: args.inputs };
      },
      call: () => ({}),
    },
    "proj",
    "dev",
  );
  pulumi.runtime.setAllConfig({ "gamehost:token": emulator.tokens.user }, ["gamehost:token"]);
  const t = serverTarget(emulator);
  const server = new gamehost.Server("s", serverArgs(emulator));
  const exp = new gamehost.LobbyHistoryExport("e", { gameId: t.gameId, queryStart: 0, queryEnd: Date.now() });
  await Promise.all([resolvedValue(server.id), resolvedValue(exp.id)]);
  // A program directory where the package is installed from npm (node_modules/pulumi-gamehost).
  programDir = mkdtempSync(path.join(tmpdir(), "gamehost-program-"));
  mkdirSync(path.join(programDir, "node_modules"));
  symlinkSync(REPO_ROOT, path.join(programDir, "node_modules", "pulumi-gamehost"));
});
afterAll(async () => {
  await emulator.stop();
  rmSync(programDir, { recursive: true, force: true });
});

/** Loads provider text as the dynamic-provider host does, resolving modules from `dir`. */
function load(type: string, dir: string) {
  const text = providerText.get(type)!;
  return requireFromString(text, path.join(dir, "__provider.js")).handler();
}

const SERVER = "pulumi-nodejs:dynamic/gamehost:Server";
const EXPORT = "pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport";

describe("serialized providers", () => {
  it.each([SERVER, EXPORT])("%s is under 2 KB and holds no credentials", (type) => {
    const text = providerText.get(type)!;
    expect(text.length).toBeLessThan(2048);
    expect(text).not.toContain(emulator.tokens.user);
    expect(text).not.toContain(emulator.url);
    // Nothing of our own code is copied by value: only the package subpath is named.
    expect(text).not.toMatch(/zod|undici|GamehostClient/);
  });

  it("runs a Server's whole lifecycle from a program directory where the package is installed", async () => {
    const provider = load(SERVER, programDir);
    await provider.configure!({
      config: {
        get: (k: string) => ({ "gamehost:baseUrl": emulator.url, "gamehost:token": emulator.tokens.user })[k],
      },
    });
    const t = serverTarget(emulator);
    const news = {
      gameId: t.gameId,
      environmentId: t.environmentId,
      datacenter: t.datacenter,
      tags: { via: "serialized" },
      runtime: { build: t.build },
      // A game-guard port needs an internal port to start (docs/service-contract.md §4).
      network: { ports: { web: { protocol: "https", internalPort: 8443 } } },
      resources: { cpu: 100, memory: 64 },
    };
    const checked = await provider.check!({}, news);
    expect(checked.failures).toEqual([]);
    const created = await provider.create!(checked.inputs);
    const id = created.id as string;
    expect(liveServers(emulator).map((s) => s.id)).toContain(id);
    const outs = created.outs as Record<string, unknown>;
    expect(JSON.stringify(outs)).not.toContain(emulator.tokens.user);
    expect((await provider.diff!(id, outs, checked.inputs)).changes).toBe(false);
    const read = await provider.read!(id, outs);
    expect(read.id).toBe(id);
    const inputs = checked.inputs as Record<string, unknown>;
    const updated = await provider.update!(id, outs, { ...inputs, readyTimeoutSeconds: 9 });
    expect((updated.outs as Record<string, unknown>).readyTimeoutSeconds).toBe(9);
    await provider.delete!(id, outs);
    expect(liveServers(emulator).map((s) => s.id)).not.toContain(id);
  });

  it("runs a LobbyHistoryExport create from the serialized text, with the URL in outputs only", async () => {
    const provider = load(EXPORT, REPO_ROOT);
    await provider.configure!({
      config: {
        get: (k: string) => ({ "gamehost:baseUrl": emulator.url, "gamehost:token": emulator.tokens.user })[k],
      },
    });
    const checked = await provider.check!(
      {},
      { gameId: serverTarget(emulator).gameId, queryStart: 0, queryEnd: Date.now(), summarize: true },
    );
    expect(checked.failures).toEqual([]);
    const { outs } = await provider.create!(checked.inputs);
    const o = outs as Record<string, unknown>;
    expect(o.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__exports\//);
    expect(o.rowCount).toBeGreaterThan(0);
    expect(o.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(o.expiresAt as string) - Date.parse(o.exportedAt as string)).toBe(3_600_000);
    expect(JSON.stringify(o)).not.toContain(emulator.tokens.user);
  });
});
