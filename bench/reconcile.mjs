#!/usr/bin/env node
// 12. Reconcile through the real Pulumi CLI (the `gamehost` command, issue #23), plugin face, emulator with
// its usual 1 s placement delay:
// (a) a server of a 10-server stack dies on the emulator (its admin API's kill, a crash) at a random moment
//     of `gamehost reconcile --remediate --interval 5s`; time from the death to a ready replacement,
//     against the time of one `pulumi up --refresh` that replaces a server killed the same way, same run;
// (b) a no-drift `gamehost drift` pass on a 100-server stack against a plain
//     `pulumi refresh --preview-only` of the same stack, same run (goal ≤ 1.2×).
// Uses the `pulumi` on PATH, else the pinned build (`npm run pulumi:build`); `gamehost` is dist's bin.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cliCommand, cliProject, cliVersion, initStack } from "./lib/cli.mjs";
import { machine, REPO, require, serverTarget } from "./lib/env.mjs";
import { startEmulatorProcess } from "./lib/proc.mjs";
import { figure, interleaved, line, quantile, spread } from "./lib/stats.mjs";

const LOOP_SERVERS = Number(process.env.BENCH_RECONCILE_SERVERS ?? 10);
const DRIFT_SERVERS = Number(process.env.BENCH_DRIFT_SERVERS ?? 100);
const ROUNDS = Number(process.env.BENCH_RECONCILE_ROUNDS ?? 3);
// BENCH_RECONCILE_PARTS=b runs part (b) alone (default: both).
const PARTS = process.env.BENCH_RECONCILE_PARTS ?? "ab";
const INTERVAL_S = 5;
const GAMEHOST = path.join(REPO, "dist", "reconcile", "cli.js");
// BENCH_GAMEHOST_OTHER=<cli.js of another build> adds its `gamehost drift` to each round of part (b).
const OTHER = process.env.BENCH_GAMEHOST_OTHER;

const cli = cliCommand();
line(
  `# 12. reconcile, real CLI ${cliVersion(cli)} — ${LOOP_SERVERS} and ${DRIFT_SERVERS} servers — ${JSON.stringify(machine())}`,
);
const emulator = await startEmulatorProcess({ admin: true });
const target = serverTarget(emulator.fixture);
const { GamehostClient } = require("pulumi-gamehost/api");
const client = new GamehostClient({ baseUrl: emulator.url, token: emulator.tokens.user });
const tmp = mkdtempSync(path.join(os.tmpdir(), "gamehost-bench-reconcile-"));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms) => ms.map((t) => t / 1000);

/** A project of `bench/programs/servers` with `count` ready servers (plugin face), up. */
async function stackOf(name, count) {
  const p = cliProject(cli, path.join(tmp, name), "servers");
  const config = {
    "gamehost:baseUrl": emulator.url,
    "bench:count": String(count),
    "bench:target": JSON.stringify(target),
    "bench:face": "plugin",
    "bench:waitForReady": "true",
  };
  await initStack(p, config, emulator.tokens.user);
  await p.run(["up", "--yes", "--skip-preview"]);
  return p;
}

/** The stack's live servers on the service (every server of the emulator is one stack's at a time). */
const liveServers = async () =>
  (await client.listServers(target.gameId, target.environmentId, { tags: { bench: "many" } })).filter(
    (s) => s.destroyed_at === undefined,
  );

/** Kills one live server through the emulator's admin API (a crash); resolves its id and the instant. */
async function killOne() {
  const live = await liveServers();
  const victim = live[Math.floor(Math.random() * live.length)];
  const at = performance.now();
  const res = await fetch(`${emulator.url}/__admin/servers/${victim.id}/kill`, {
    method: "POST",
    headers: { authorization: `Bearer ${emulator.adminToken}`, "content-type": "application/json" },
    body: "{}",
  });
  if (!res.ok) throw new Error(`admin kill → ${res.status}: ${await res.text()}`);
  return { id: victim.id, at };
}

/** Resolves the instant `count` live servers are ready again, none of them `dead`. */
async function readyAgain(count, dead) {
  const end = performance.now() + 300_000;
  while (performance.now() < end) {
    const live = await liveServers();
    if (live.length === count && live.every((s) => s.id !== dead && s.started_at !== undefined))
      return performance.now();
    await sleep(100);
  }
  throw new Error(`no ${count} ready servers 300 s after server ${dead} died`);
}

/** `gamehost <args>` on project `p`: `{code, stdout, stderr, ms}`; `onLine` sees each stdout line. */
function gamehost(p, args, onLine) {
  const started = performance.now();
  const child = spawn(process.execPath, [GAMEHOST, ...args], {
    cwd: p.dir,
    env: p.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let pending = "";
  child.stdout.on("data", (c) => {
    stdout += c;
    pending += c;
    const lines = pending.split("\n");
    pending = lines.pop();
    for (const l of lines) onLine?.(l);
  });
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  const done = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
  return { child, done };
}

// (a) Death to ready replacement under the loop, against one `pulumi up --refresh`.
async function underLoop(p) {
  const passes = [];
  let wake;
  const loop = gamehost(p, ["reconcile", "--remediate", "--interval", `${INTERVAL_S}s`, "--json"], (l) => {
    const event = JSON.parse(l);
    if (event.pass !== undefined) {
      passes.push({ ...event, endedAt: performance.now() });
      wake?.();
    }
  });
  const nextPass = () => new Promise((r) => (wake = r));
  let result;
  let ended;
  try {
    await nextPass();
    if (passes[0].error !== undefined) throw new Error(`reconcile pass 1: ${passes[0].error}`);
    // A death at a random moment of the loop's cycle, as a crash comes.
    const delay = Math.random() * INTERVAL_S * 1000;
    await sleep(delay);
    const seen = passes.length;
    const killed = await killOne();
    const ready = await readyAgain(LOOP_SERVERS, killed.id);
    const settled = (x) => x.remediated !== undefined || x.error !== undefined;
    while (!passes.slice(seen).some(settled)) await nextPass();
    const fixing = passes.slice(seen).find(settled);
    if (fixing.error !== undefined) throw new Error(`reconcile pass ${fixing.pass}: ${fixing.error}`);
    result = { ms: ready - killed.at, delay, passMs: fixing.durationMs, trigger: fixing.trigger };
  } finally {
    loop.child.kill("SIGTERM");
    ended = await loop.done;
  }
  if (ended.code !== 0) throw new Error(`reconcile exited ${ended.code}: ${ended.stderr}`);
  return result;
}

async function oneUp(p) {
  const killed = await killOne();
  // The death is noticed at once: only the `up` is timed.
  await sleep(200);
  const started = performance.now();
  await p.run(["up", "--refresh", "--yes", "--skip-preview"]);
  const ms = performance.now() - started;
  await readyAgain(LOOP_SERVERS, killed.id);
  return ms;
}

// (b) A no-drift drift pass against a plain refresh preview. Each run's wall time, and with GNU time its
// CPU time (user + system, with every process it waited for: the CLI, the provider plugin), which a
// loaded machine moves less than the wall time.
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** `command args` in project `p`: `{ms, cpuMs (undefined without GNU time), code, output}`. */
function measured(p, command, args) {
  const argv = TIME ? [TIME, "-f", "BENCH_CPU %U %S", command, ...args] : [command, ...args];
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), { cwd: p.dir, env: p.env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (c) => {
    output += c;
  });
  child.stderr.on("data", (c) => {
    output += c;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      const cpu = /BENCH_CPU ([\d.]+) ([\d.]+)\s*$/.exec(output);
      const cpuMs = cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined;
      resolve({ ms, cpuMs, code, output });
    });
  });
}

async function driftPass(p, bin = GAMEHOST, args = []) {
  const r = await measured(p, process.execPath, [bin, "drift", ...args]);
  if (r.code !== 0) throw new Error(`gamehost drift exited ${r.code} on a stack without drift:\n${r.output}`);
  return r;
}

async function refreshPreview(p) {
  const r = await measured(p, cli.command, ["--non-interactive", "refresh", "--preview-only"]);
  if (r.code !== 0) throw new Error(`pulumi refresh --preview-only exited ${r.code}:\n${r.output}`);
  return r;
}

try {
  if (PARTS.includes("a")) await partA();
  if (PARTS.includes("b")) await partB();
} finally {
  await emulator.stop();
  rmSync(tmp, { recursive: true, force: true });
}

async function partA() {
  const loopStack = await stackOf("loop", LOOP_SERVERS);
  const loopRuns = [];
  const a = await interleaved(ROUNDS, {
    loop: async () => {
      const run = await underLoop(loopStack);
      loopRuns.push(run);
      return run.ms;
    },
    up: () => oneUp(loopStack),
  });
  line(`(a) ${LOOP_SERVERS}-server stack, a server killed through the admin API:`);
  line(
    `  death → ready replacement under reconcile --remediate --interval ${INTERVAL_S}s   ${spread(seconds(a.loop), 2, " s")}`,
  );
  line(
    `    (death ${spread(seconds(loopRuns.map((r) => r.delay)), 1, " s")} after a pass ended; remediating pass ${spread(seconds(loopRuns.map((r) => r.passMs)), 1, " s")}, triggers ${loopRuns.map((r) => r.trigger).join(", ")})`,
  );
  line(
    `  one pulumi up --refresh that replaces it                          ${spread(seconds(a.up), 2, " s")}`,
  );
  figure({
    name: `death → ready replacement under reconcile --remediate --interval ${INTERVAL_S}s / one \`pulumi up --refresh\` (${LOOP_SERVERS} servers)`,
    values: a.loop.map((t, i) => t / a.up[i]),
  });
  figure({
    name: `death → ready under the loop, less one \`up --refresh\`: the wait for the next pass and its repair and drift (goal: within the ${INTERVAL_S}s interval)`,
    values: seconds(a.loop.map((t, i) => t - a.up[i])),
    unit: " s",
    target: `≤ ${INTERVAL_S} s`,
    met:
      quantile(
        a.loop.map((t, i) => t - a.up[i]),
        0.5,
      ) <=
      INTERVAL_S * 1000,
  });
  await loopStack.run(["destroy", "--yes", "--skip-preview"]);
}

async function partB() {
  const driftStack = await stackOf("drift", DRIFT_SERVERS);
  // Placement after each create changed what the service shows: the state takes it in once.
  await driftStack.run(["refresh", "--yes", "--skip-preview"]);
  const runs = await interleaved(ROUNDS, {
    drift: () => driftPass(driftStack),
    refresh: () => refreshPreview(driftStack),
    // The stack named, as in CI (`gamehost drift --stack prod`): no `pulumi stack ls` to find it.
    named: () => driftPass(driftStack, GAMEHOST, ["--stack", "bench"]),
    ...(OTHER ? { other: () => driftPass(driftStack, OTHER) } : {}),
  });
  const wall = (name) => runs[name]?.map((r) => r.ms);
  const cpu = (name) => runs[name]?.map((r) => r.cpuMs);
  const b = { drift: wall("drift"), refresh: wall("refresh"), named: wall("named"), other: wall("other") };
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(", ");
  const per = (xs, ys) => xs.map((t, i) => (t / ys[i]).toFixed(2)).join(", ");
  line(`(b) ${DRIFT_SERVERS}-server stack, no drift (load average at the end ${load}):`);
  line(`  gamehost drift                 ${spread(seconds(b.drift), 2, " s")}`);
  line(`  pulumi refresh --preview-only  ${spread(seconds(b.refresh), 2, " s")}`);
  const ratios = b.drift.map((t, i) => t / b.refresh[i]);
  line(`  drift / refresh, per round     ${per(b.drift, b.refresh)}`);
  figure({
    name: `no-drift \`gamehost drift\` / \`pulumi refresh --preview-only\`, ${DRIFT_SERVERS}-server stack`,
    values: ratios,
    target: "≤ 1.2",
    met: quantile(ratios, 0.5) <= 1.2,
  });
  line(`  gamehost drift --stack bench   ${spread(seconds(b.named), 2, " s")}`);
  line(`    its drift / refresh, per round ${per(b.named, b.refresh)}`);
  figure({
    name: `the same, \`gamehost drift --stack bench\` (the stack named: not listed first)`,
    values: b.named.map((t, i) => t / b.refresh[i]),
  });
  if (TIME) {
    const [cd, cr] = [cpu("drift"), cpu("refresh")];
    line(
      `  CPU time (user + system, with the CLI and the plugin): drift ${spread(seconds(cd), 2, " s")}, refresh ${spread(seconds(cr), 2, " s")}`,
    );
    line(`  CPU drift / refresh, per round ${per(cd, cr)}`);
    figure({
      name: `the same, CPU time (user + system of each run with its CLI and plugin processes)`,
      values: cd.map((t, i) => t / cr[i]),
    });
  }
  if (b.other) {
    line(`  gamehost drift of ${OTHER}  ${spread(seconds(b.other), 2, " s")}`);
    line(`    its drift / refresh, per round ${per(b.other, b.refresh)}`);
    figure({
      name: `the same, the \`gamehost\` of ${OTHER} (another build, for a before/after in one run)`,
      values: b.other.map((t, i) => t / b.refresh[i]),
    });
    if (TIME) {
      const co = cpu("other");
      line(
        `    its CPU time ${spread(seconds(co), 2, " s")}; CPU drift / refresh, per round ${per(co, cpu("refresh"))}`,
      );
      figure({
        name: `the same, CPU time, the \`gamehost\` of ${OTHER}`,
        values: co.map((t, i) => t / cpu("refresh")[i]),
      });
    }
  }
  await driftStack.run(["destroy", "--yes", "--skip-preview"]);
}
