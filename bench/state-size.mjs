#!/usr/bin/env node
// 3. State size: the checkpoint bytes each Server adds (exact: the file's size minus its size without that
// resource, as stored — Pulumi's indented JSON), the bytes of each serialized provider (`__provider`), and,
// as the baseline, the bytes of the same server as the service describes it (GET …/servers/{id} answer).
// A 50-server stack of ready servers (waited for placement, so every output is filled) plus one
// LobbyHistoryExport, through the engine harness.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { request } from "undici";
import { BENCH_DIR, loadHarness, machine, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, line, spread } from "./lib/stats.mjs";

const COUNT = 50;
const TARGET_BYTES = 2048;
const SERVER_TYPE = "pulumi-nodejs:dynamic/gamehost:Server";
const EXPORT_TYPE = "pulumi-nodejs:dynamic/gamehost:LobbyHistoryExport";

line(`# 3. state size — ${COUNT} servers + 1 export — ${JSON.stringify(machine())}`);
const { Stack } = loadHarness();
const emulator = await startEmulatorProcess({ placementDelayMs: 0 });
const target = serverTarget(emulator.fixture);
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-state-"));
const stack = new Stack({
  programDir: path.join(BENCH_DIR, "programs", "servers"),
  stackName: "bench",
  checkpointFile: path.join(tmp, "bench.json"),
  parallel: 16,
  timeoutMs: 120_000,
  config: {
    "gamehost:baseUrl": { value: emulator.url },
    "gamehost:token": { value: emulator.tokens.user, secret: true },
    "bench:count": { value: COUNT },
    "bench:target": { value: target },
    "bench:waitForReady": { value: true },
    "bench:export": { value: true },
  },
});

/** The checkpoint text as the harness writes it (Pulumi's layout: 2-space indented JSON). */
const serialize = (file) => `${JSON.stringify(file, null, 2)}\n`;
const bytes = (text) => Buffer.byteLength(text);

try {
  const up = await stack.up();
  if (up.error) throw new Error(`up failed: ${up.error}`);
  const stored = readFileSync(stack.checkpointFile, "utf8");
  const file = JSON.parse(stored);
  if (serialize(file) !== stored) throw new Error("checkpoint layout differs from the re-serialization");
  const resources = file.checkpoint.latest.resources;
  const total = bytes(stored);
  /** Bytes the file loses without resource `i`. */
  const marginal = (i) => {
    const without = structuredClone(file);
    without.checkpoint.latest.resources.splice(i, 1);
    return total - bytes(serialize(without));
  };
  const servers = resources.map((r, i) => ({ r, i })).filter(({ r }) => r.type === SERVER_TYPE);
  if (servers.length !== COUNT)
    throw new Error(`expected ${COUNT} servers in the checkpoint, found ${servers.length}`);
  const perServer = servers.map(({ i }) => marginal(i));
  const exportIndex = resources.findIndex((r) => r.type === EXPORT_TYPE);

  // Where a server's bytes go: its `__provider` text is stored twice (inputs and outputs).
  const sample = servers[0].r;
  const providerText = sample.inputs.__provider;
  const twice = sample.outputs.__provider === providerText;
  const providerBytes = {
    server: bytes(providerText),
    export: bytes(resources[exportIndex].inputs.__provider),
  };

  // Baseline: the service's own description of each server (GET …/servers/{id} body).
  const wire = [];
  for (const { r } of servers) {
    const url = `${emulator.url}/games/${target.gameId}/environments/${target.environmentId}/servers/${r.id}`;
    const res = await request(url, { headers: { authorization: `Bearer ${emulator.tokens.user}` } });
    wire.push(bytes(await res.body.text()));
  }
  const ratio = perServer.map((b, k) => b / wire[k]);

  line(
    `checkpoint: ${total} bytes for ${resources.length} resources (stack, default provider, ${COUNT} servers, 1 export)`,
  );
  line(`per Server: ${spread(perServer, 0, " B")} (target ≤ ${TARGET_BYTES} B)`);
  const storedProvider = bytes(JSON.stringify(providerText)) * (twice ? 2 : 1);
  line(
    `  of which __provider text: ${storedProvider} B (${bytes(JSON.stringify(providerText))} B as a JSON string${twice ? ", stored twice: inputs and outputs" : ""})`,
  );
  line(
    `  everything else: ${spread(
      perServer.map((b) => b - storedProvider),
      0,
      " B",
    )}`,
  );
  line(`per LobbyHistoryExport: ${marginal(exportIndex)} B`);
  line(
    `serialized providers: Server ${providerBytes.server} B, LobbyHistoryExport ${providerBytes.export} B (target ≤ ${TARGET_BYTES} B each)`,
  );
  line(`service's own JSON of a server: ${spread(wire, 0, " B")}; state/service ratio ${spread(ratio)}`);
  figure({
    name: "checkpoint bytes per Server resource",
    values: perServer,
    unit: " B",
    digits: 0,
    target: `≤ ${TARGET_BYTES} B`,
    met: Math.max(...perServer) <= TARGET_BYTES,
  });
  figure({ name: "checkpoint bytes per Server / bytes of the service's JSON of that server", values: ratio });
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
  const down = await stack.destroy();
  if (down.error) throw new Error(`destroy failed: ${down.error}`);
} finally {
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}
