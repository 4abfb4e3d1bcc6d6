/**
 * A port for a command whose text must name one (the docs' `npx gamehost-emulator --port 8787`, moved to a free
 * port by test/cli/docCommands.ts). The OS's own choice (`listen(0)`) is no good for that: it comes from the
 * ephemeral range, which every outgoing connection of the suite and every emulator started on port 0 draws from,
 * so between closing the probe and the command's `listen` another test can take it (CI saw EADDRINUSE). A port
 * below that range is handed out by nobody but a test that names it.
 */
import { randomInt } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";

/** Linux's defaults, where /proc does not say. */
const EPHEMERAL_DEFAULT: readonly [number, number] = [32768, 60999];
/** Below this are ports users' own services tend to take (8080, 8787, …). */
const LOWEST = 20000;

/** The range the OS hands ports out of for `listen(0)` and outgoing connections. */
export function ephemeralRange(): readonly [number, number] {
  try {
    const [low, high] = fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    if (low && high) return [Number(low), Number(high)];
  } catch {
    // not Linux
  }
  return EPHEMERAL_DEFAULT;
}

function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port below the ephemeral range that nothing listens on now, as text. */
export async function freePort(): Promise<string> {
  const [ephemeralLow] = ephemeralRange();
  const low = ephemeralLow > LOWEST + 1000 ? LOWEST : 1024;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(low, ephemeralLow);
    if (await listensOn(port)) return String(port);
  }
  throw new Error(`no free port in ${low}–${ephemeralLow - 1} after 100 tries`);
}
