// Child processes the benches talk to over IPC: the emulator (emulator-child.mjs) and the bare HTTP
// server baseline (bare-child.mjs). Each answers `{id, op, args}` requests.
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Forks `script` (in bench/lib) with IPC; `call(op, args)` resolves with the child's answer. */
export function forkChild(script, { execArgv = [] } = {}) {
  const child = fork(path.join(here, script), [], {
    execArgv: ["--expose-gc", ...execArgv],
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let next = 0;
  const pending = new Map();
  child.on("message", ({ id, result, error }) => {
    const waiter = pending.get(id);
    if (!waiter) return;
    pending.delete(id);
    if (error !== undefined) waiter.reject(new Error(`${script}: ${error}`));
    else waiter.resolve(result);
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  exited.then((code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${script} exited (code ${code})`));
    pending.clear();
  });
  const call = (op, args) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      child.send({ id, op, args });
    });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await call("stop").catch(() => undefined);
    await exited;
    clearTimeout(timer);
  };
  return { child, pid: child.pid, call, stop };
}

/**
 * Starts the emulator in its own process. `options` are `startEmulator` options; `extra.lobbyGenerators` are
 * added to the default fixture (for the main game); `extra.latencyMs` adds a latency proxy (`slowUrl`).
 * Resolves `{url, slowUrl?, tokens, fixture, call, stop, pid}`.
 */
export async function startEmulatorProcess(options = {}, extra = {}) {
  const proc = forkChild("emulator-child.mjs", {
    execArgv: process.env.BENCH_EMULATOR_NODE_ARGS?.split(" ") ?? [],
  });
  const started = await proc.call("start", { options, ...extra });
  return { ...proc, ...started };
}

/** Starts the bare `node:http` baseline server (bare-child.mjs) with `config`; resolves `{url, call, stop}`. */
export async function startBareProcess(config) {
  const proc = forkChild("bare-child.mjs");
  const started = await proc.call("start", config);
  return { ...proc, ...started };
}
