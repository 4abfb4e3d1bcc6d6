#!/usr/bin/env node
// 3. State size: the checkpoint bytes each Server adds (exact: the file's size minus its size without that
// resource, as stored — Pulumi's compact JSON), the bytes of each serialized provider (`__provider`), and,
// as the baseline, the bytes of the same server as the service describes it (GET …/servers/{id} answer).
// A 50-server stack of ready servers (waited for placement, so every output is filled) plus one
// LobbyHistoryExport, through the engine harness, once through each face: the dynamic resources (served by
// the SDK's dynamic provider host) and the provider plugin's (`pulumi-gamehost/native`, served by
// `pulumi-resource-gamehost`), same program and arguments (`bench:face`).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { request } from "undici";
import { BENCH_DIR, loadHarness, machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, line, spread } from "./lib/stats.mjs";

const COUNT = 50;
const TARGET_BYTES = 2048;
/** The plugin's Server against the dynamic one, in checkpoint bytes. */
const TARGET_PLUGIN_RATIO = 0.35;
const TYPES = {
  dynamic: {
    server: "pulumi-nodejs:dynamic/gamehost:Server",
    export: "pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport",
    provider: "pulumi:providers:pulumi-nodejs",
  },
  plugin: {
    server: "gamehost:index:Server",
    export: "gamehost:index:LobbyHistoryExport",
    provider: "pulumi:providers:gamehost",
  },
};

line(`# 3. state size — ${COUNT} servers + 1 export, each face — ${JSON.stringify(machine())}`);
const { Stack } = loadHarness();
const emulator = await startEmulatorProcess({ placementDelayMs: 0 });
const target = serverTarget(emulator.fixture);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-state-"));

/** The stack of the servers program through `face`. */
function stackOf(face) {
  return new Stack({
    programDir: path.join(BENCH_DIR, "programs", "servers"),
    stackName: "bench",
    checkpointFile: path.join(tmp, `${face}.json`),
    parallel: 16,
    timeoutMs: 120_000,
    config: {
      "gamehost:baseUrl": { value: emulator.url },
      "gamehost:token": { value: emulator.tokens.user, secret: true },
      "bench:count": { value: COUNT },
      "bench:target": { value: target },
      "bench:waitForReady": { value: true },
      "bench:export": { value: true },
      "bench:face": { value: face },
    },
  });
}

/** The checkpoint text as the harness writes it (the engine's file backend: compact JSON, no newline). */
const serialize = (file) => JSON.stringify(file);
/** The layout CLIs wrote before pulumi/pulumi#22245 (pretty-printed JSON), for comparison. */
const pretty = (file) => `${JSON.stringify(file, null, 2)}\n`;
const bytes = (text) => Buffer.byteLength(text);

/**
 * Brings the stack of `face` up and measures its checkpoint: `{total, resources, perServer, perExport,
 * perProvider, servers, sample}` (the servers' states and bytes in checkpoint order); then destroys it.
 */
async function measure(face) {
  const types = TYPES[face];
  const stack = stackOf(face);
  const up = await stack.up();
  if (up.error) throw new Error(`${face} up failed: ${up.error}`);
  const stored = readFileSync(stack.checkpointFile, "utf8");
  const file = JSON.parse(stored);
  if (serialize(file) !== stored) throw new Error("checkpoint layout differs from the re-serialization");
  const resources = file.checkpoint.latest.resources;
  /** Bytes the file, written by `layout`, loses without resource `i`. */
  const marginal = (i, layout = serialize) => {
    const without = structuredClone(file);
    without.checkpoint.latest.resources.splice(i, 1);
    return bytes(layout(file)) - bytes(layout(without));
  };
  const indexOf = (type) => resources.findIndex((r) => r.type === type);
  const servers = resources.map((r, i) => ({ r, i })).filter(({ r }) => r.type === types.server);
  if (servers.length !== COUNT)
    throw new Error(`${face}: expected ${COUNT} servers in the checkpoint, found ${servers.length}`);
  const result = {
    total: bytes(stored),
    resources: resources.length,
    perServer: servers.map(({ i }) => marginal(i)),
    perServerPretty: servers.map(({ i }) => marginal(i, pretty)),
    perExport: marginal(indexOf(types.export)),
    perProvider: marginal(indexOf(types.provider)),
    servers: servers.map(({ r }) => r),
    exportState: resources[indexOf(types.export)],
  };
  const down = await stack.destroy();
  if (down.error) throw new Error(`${face} destroy failed: ${down.error}`);
  return result;
}

try {
  const faces = { dynamic: await measure("dynamic"), plugin: await measure("plugin") };
  const { dynamic, plugin } = faces;

  // Where a dynamic server's bytes go: its `__provider` text is stored twice (inputs and outputs).
  const sample = dynamic.servers[0];
  const providerText = sample.inputs.__provider;
  const twice = sample.outputs.__provider === providerText;
  const providerBytes = { server: bytes(providerText), export: bytes(dynamic.exportState.inputs.__provider) };

  // Baseline: the service's own description of each server (GET …/servers/{id} body), as it stands after
  // the dynamic stack's up (the plugin's servers are the same spec, placed the same way).
  const wire = [];
  for (const r of dynamic.servers) {
    const url = `${emulator.url}/games/${target.gameId}/environments/${target.environmentId}/servers/${r.id}`;
    const res = await request(url, { headers: { authorization: `Bearer ${emulator.tokens.user}` } });
    wire.push(bytes(await res.body.text()));
  }
  const ratio = dynamic.perServer.map((b, k) => b / wire[k]);
  const pluginRatio = plugin.perServer.map((b, k) => b / dynamic.perServer[k]);
  const pluginRatioPretty = plugin.perServerPretty.map((b, k) => b / dynamic.perServerPretty[k]);

  for (const [face, m] of Object.entries(faces)) {
    line(
      `${face} face: checkpoint ${m.total} bytes for ${m.resources} resources (stack, default provider, ${COUNT} servers, 1 export)`,
    );
    line(`  per Server: ${spread(m.perServer, 0, " B")} (target ≤ ${TARGET_BYTES} B)`);
    line(`  per LobbyHistoryExport: ${m.perExport} B; default provider resource: ${m.perProvider} B`);
  }
  const storedProvider = bytes(JSON.stringify(providerText)) * (twice ? 2 : 1);
  line(
    `dynamic Server: __provider text ${storedProvider} B (${bytes(JSON.stringify(providerText))} B as a JSON string${twice ? ", stored twice: inputs and outputs" : ""}); everything else ${spread(
      dynamic.perServer.map((b) => b - storedProvider),
      0,
      " B",
    )}`,
  );
  line(`plugin Server / dynamic Server: ${spread(pluginRatio, 3)} (target ≤ ${TARGET_PLUGIN_RATIO})`);
  line(
    `  pretty-printed, as before pulumi/pulumi#22245: plugin ${spread(plugin.perServerPretty, 0, " B")}, dynamic ${spread(dynamic.perServerPretty, 0, " B")}, ratio ${spread(pluginRatioPretty, 3)}`,
  );
  line(
    `serialized providers: Server ${providerBytes.server} B, LobbyHistoryExport ${providerBytes.export} B (target ≤ ${TARGET_BYTES} B each)`,
  );
  line(`service's own JSON of a server: ${spread(wire, 0, " B")}; state/service ratio ${spread(ratio)}`);
  for (const face of ["dynamic", "plugin"]) {
    figure({
      name: `checkpoint bytes per Server resource, ${face} face`,
      values: faces[face].perServer,
      unit: " B",
      digits: 0,
      target: `≤ ${TARGET_BYTES} B`,
      met: Math.max(...faces[face].perServer) <= TARGET_BYTES,
    });
  }
  figure({
    name: "checkpoint bytes per Server, plugin face / dynamic face",
    values: pluginRatio,
    digits: 3,
    target: `≤ ${TARGET_PLUGIN_RATIO}`,
    met: Math.max(...pluginRatio) <= TARGET_PLUGIN_RATIO,
  });
  figure({
    name: "same ratio, pretty-printed checkpoint (CLIs before pulumi/pulumi#22245)",
    values: pluginRatioPretty,
    digits: 3,
  });
  figure({
    name: "checkpoint bytes per Server / bytes of the service's JSON of that server, dynamic face",
    values: ratio,
  });
  for (const [name, b] of Object.entries(providerBytes)) {
    figure({
      name: `serialized provider bytes, ${name === "server" ? "Server" : "LobbyHistoryExport"}`,
      values: [b],
      unit: " B",
      digits: 0,
      target: `≤ ${TARGET_BYTES} B`,
      met: b <= TARGET_BYTES,
    });
  }
} finally {
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}
