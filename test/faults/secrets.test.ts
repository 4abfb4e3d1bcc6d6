/**
 * Secret sweep: the token, the payment portal session URL and the lobby-history export URL appear
 * nowhere in plain text — not in the raw checkpoint, not in any diagnostic (program and provider-host
 * output included), not in any error, not in the serialized provider — across up, refresh and destroy
 * of a program that uses all three, and across failing runs with a rejected token, under both faces
 * (with the plugin, the token is also an input of the provider resource in the state). Where Pulumi
 * keeps them (the export's `url` output, the stack outputs, the provider's token) they must be encrypted
 * secrets.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSecret, type RunResult, reveal, Stack } from "../../harness/src";
import type { RunningEmulator } from "../../src/emulator";
import { dist } from "../support/dist";
import { serverTarget, startTestEmulator } from "../support/emulator";

const PROGRAM = path.join(__dirname, "programs", "secrets");
const PROJECT = "gamehost-faults-secrets";
const FACES = ["dynamic", "plugin"] as const;
type Face = (typeof FACES)[number];
const EXPORT_TYPE: Record<Face, string> = {
  dynamic: "pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport",
  plugin: "gamehost:index:LobbyHistoryExport",
};

// Random, so a hit can only be a leak and never a coincidence.
const TOKEN = `emu-sweep-user-${randomBytes(12).toString("hex")}`;
const BAD_TOKEN = `emu-sweep-bad-${randomBytes(12).toString("hex")}`;

let emulator: RunningEmulator;
let stateDir: string;

/** Every text a user or a log collector could see, with where it came from. */
type Seen = { where: string; text: string }[];

function collectInto(seen: Seen, stack: Stack, label: string, result: RunResult): void {
  for (const d of result.diagnostics)
    seen.push({ where: `${label} diagnostic (${d.source})`, text: d.message });
  if (result.error !== undefined) seen.push({ where: `${label} error`, text: result.error });
  for (const step of result.steps) {
    if (step.error !== undefined) seen.push({ where: `${label} step error ${step.urn}`, text: step.error });
    for (const reason of step.initErrors ?? [])
      seen.push({ where: `${label} init error ${step.urn}`, text: reason });
  }
  if (fs.existsSync(stack.checkpointFile)) {
    seen.push({ where: `${label} raw checkpoint`, text: fs.readFileSync(stack.checkpointFile, "utf8") });
  }
  for (const r of stack.resources()) {
    for (const props of [r.inputs, r.outputs]) {
      const text = props.__provider;
      if (typeof text === "string") seen.push({ where: `${label} __provider of ${r.urn}`, text });
    }
  }
}

function useToken(stack: Stack, token: string): void {
  stack.setConfig("gamehost:token", { value: token, secret: true });
}

/** The secrets program with one face, its own checkpoint. */
function secretsStack(face: Face): Stack {
  const target = serverTarget(emulator);
  return new Stack({
    programDir: PROGRAM,
    checkpointFile: path.join(stateDir, `secrets-${face}.json`),
    config: {
      "gamehost:baseUrl": emulator.url,
      [`${PROJECT}:face`]: face,
      [`${PROJECT}:gameId`]: target.gameId,
      [`${PROJECT}:environmentId`]: target.environmentId,
      [`${PROJECT}:datacenterId`]: target.datacenter,
      [`${PROJECT}:buildId`]: target.build,
      [`${PROJECT}:groupId`]: emulator.fixture.games[0]!.developerGroupId,
    },
  });
}

beforeAll(async () => {
  const fixture = dist.emulator().loadFixture();
  emulator = await startTestEmulator({
    fixture: {
      ...fixture,
      tokens: fixture.tokens.map((t) => (t.role === "user" ? { ...t, token: TOKEN } : t)),
    },
  });
  expect(emulator.tokens.user).toBe(TOKEN);
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "gamehost-secrets-"));
});

afterAll(async () => {
  await emulator?.stop();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

describe.each(FACES)("secret sweep (%s face)", (face) => {
  it("keeps the token and both URLs out of logs, errors, the provider text and the checkpoint", async () => {
    const stack = secretsStack(face);
    const seen: Seen = [];
    const collect = (label: string, result: RunResult) => collectInto(seen, stack, label, result);

    // A rejected token before anything exists: creates and the data source fail.
    useToken(stack, BAD_TOKEN);
    const badUp = await stack.up();
    collect("bad-token up", badUp);
    expect(badUp.error).toBeDefined();
    // The failure says what to fix without repeating the value.
    expect(badUp.error).toMatch(/TOKEN_INVALID/);
    expect(badUp.error).toMatch(/gamehost:token/);

    useToken(stack, TOKEN);
    const up = await stack.up();
    collect("up", up);
    expect(up.error).toBeUndefined();
    const historyUrl = up.outputs.historyUrl;
    const portalUrl = up.outputs.portalUrl;
    expect(historyUrl?.secret).toBe(true);
    expect(portalUrl?.secret).toBe(true);
    expect(up.outputs.historyRows).toEqual({ value: expect.any(Number), secret: false });

    // Where Pulumi keeps the export URL, it is a secret (encrypted at rest, wrapped once decrypted).
    const exported = stack.resources().find((r) => r.type === EXPORT_TYPE[face]);
    expect(isSecret(exported?.outputs.url)).toBe(true);
    expect(reveal(exported?.outputs.url ?? null)).toBe(historyUrl?.value);
    expect(stack.outputs().portalUrl).toEqual({ value: portalUrl?.value, secret: true });
    expect(fs.readFileSync(stack.checkpointFile, "utf8")).toContain('"ciphertext"');
    // Control: decrypted, the state holds the URL exactly as the sweep spells it, so a plain copy would be found.
    const decrypted = JSON.stringify(stack.resources());
    expect(decrypted).toContain(String(historyUrl?.value));
    expect(decrypted).toContain(String(portalUrl?.value));

    const refresh = await stack.refresh();
    collect("refresh", refresh);
    expect(refresh.error).toBeUndefined();

    // A rejected token against existing resources. The dynamic host reads the stack config, so a refresh
    // meets it; the plugin's refresh uses the provider configuration in the state, which an up records
    // (as a secret), and that up's data source meets it.
    useToken(stack, BAD_TOKEN);
    if (face === "plugin") {
      const badUp = await stack.up();
      collect("bad-token up over existing resources", badUp);
      expect(badUp.error).toMatch(/TOKEN_INVALID/);
      const provider = stack.resources().find((r) => r.type === "pulumi:providers:gamehost");
      expect(isSecret(provider?.inputs.token)).toBe(true);
    }
    const badRefresh = await stack.refresh();
    collect("bad-token refresh", badRefresh);
    expect(badRefresh.error).toMatch(/TOKEN_INVALID/);
    if (face === "plugin") {
      useToken(stack, TOKEN);
      collect("good-token up", await stack.up());
    }

    useToken(stack, TOKEN);
    const destroy = await stack.destroy();
    collect("destroy", destroy);
    expect(destroy.error).toBeUndefined();

    // What to look for: the values, and the distinctive parts of each URL (ids, signature, session).
    const history = new URL(String(historyUrl?.value));
    const portal = new URL(String(portalUrl?.value));
    const uploadId = history.pathname.split("/").at(-2) ?? "";
    const signature = history.searchParams.get("signature") ?? "";
    const sessionId = portal.pathname.split("/").at(-1) ?? "";
    const secrets: Record<string, string> = {
      token: TOKEN,
      "rejected token": BAD_TOKEN,
      "export URL": history.href,
      "export upload id": uploadId,
      "export signature": signature,
      "portal URL": portal.href,
      "portal session id": sessionId,
    };
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, `${name} is a real value`).toBeGreaterThanOrEqual(16);
    }

    // The sweep covered every kind of place, so an empty result means something.
    const kinds = ["raw checkpoint", "diagnostic", "error", ...(face === "dynamic" ? ["__provider"] : [])];
    for (const kind of kinds) {
      expect(
        seen.some((s) => s.where.includes(kind)),
        `sweep saw at least one ${kind}`,
      ).toBe(true);
    }
    expect(seen.filter((s) => s.where.includes("__provider")).every((s) => s.text.includes("require("))).toBe(
      true,
    );

    const leaks = seen.flatMap(({ where, text }) =>
      Object.entries(secrets)
        .filter(([, value]) => text.includes(value))
        .map(([name]) => `${name} in ${where}`),
    );
    expect(leaks).toEqual([]);
  });
});
