/**
 * The `pulumi-resource-gamehost` process: serves the provider on a free loopback port and prints the
 * port as its first line of stdout, which is how the engine (or a language host's RunPlugin) finds it.
 * The engine address it is given as its argument receives the provider's warnings (engineLog.ts).
 */
import type { EventEmitter } from "node:events";
import * as path from "node:path";
import type { UntypedServiceImplementation } from "@grpc/grpc-js";
import { PACKAGE_NAME, PACKAGE_VERSION, REPOSITORY_URL } from "../version";
import { whenParentEnds } from "../whenParentEnds";
import { connectEngine, engineAddressOf } from "./engineLog";
import { grpc, provrpc } from "./proto";

const PROGRAM = "pulumi-resource-gamehost";

/** What `--help` prints: what the program is, how Pulumi starts it, where the docs are. */
export function usage(): string {
  const docs = path.join(__dirname, "..", "..", "docs", "languages.md");
  return [
    `Usage: ${PROGRAM} [--help | --version]`,
    "",
    `The Pulumi resource provider plugin of ${PACKAGE_NAME} ${PACKAGE_VERSION} (gamehost:index:Server,`,
    "gamehost:index:LobbyHistoryExport and the gamehost data sources, for every Pulumi language).",
    "",
    "Pulumi starts it, not you: the engine runs it with its own address as argument and reads the port",
    "it serves on from its first line of stdout. Point a project at the folder that holds it (Pulumi.yaml",
    "`plugins.providers` with `path:`, or `pulumi package add <folder>`), or put it on PATH.",
    "",
    `Docs: ${docs}`,
    `      ${REPOSITORY_URL}/blob/main/docs/languages.md`,
  ].join("\n");
}

/**
 * What the command line asks for. The engine passes its address and its own flags (`--logtostderr`,
 * `-v=N`, `--tracing URL`, `--logflow`), never `--help` or `--version`, so those two are the only words
 * read here and every other argument means "serve", as it always has.
 */
export function commandOf(argv: readonly string[]): "help" | "version" | "serve" {
  if (argv.includes("--help") || argv.includes("-h")) return "help";
  if (argv.includes("--version")) return "version";
  return "serve";
}

/**
 * The provider's handlers, loaded on the first call: the engine waits for the port line, and the
 * implementations (zod schemas, the HTTP client) would double the time to print it. They are loaded
 * right after the port is printed, while the engine connects.
 */
function lazyService(): {
  service: UntypedServiceImplementation;
  load(): UntypedServiceImplementation;
  whenIdle(then: () => void): void;
} {
  let loaded: UntypedServiceImplementation | undefined;
  const load = () => {
    loaded ??= new (require("./provider") as typeof import("./provider")).GamehostProvider().service();
    return loaded;
  };
  // Calls still running, so that a stop can let them answer and then end at once.
  let running = 0;
  const idle: (() => void)[] = [];
  const done = () => {
    running--;
    if (running === 0) for (const then of idle.splice(0)) then();
  };
  const service: UntypedServiceImplementation = {};
  for (const method of Object.keys(provrpc.ResourceProviderService)) {
    service[method] = (call: unknown, callback: unknown) => {
      const handler = load()[method] as (call: unknown, callback: unknown) => void;
      running++;
      if (typeof callback !== "function") {
        // A streaming call (List) runs until its stream ends, however it ends.
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          done();
        };
        for (const event of ["finish", "close", "error", "cancelled"])
          (call as EventEmitter).once(event, end);
        return handler(call, callback);
      }
      handler(call, (...answer: unknown[]) => {
        // The answer first: a stop waiting for this call closes the connections once it counts as done, and a
        // create's answer is the only record of the server it made.
        (callback as (...answer: unknown[]) => void)(...answer);
        setImmediate(done);
      });
    };
  }
  const whenIdle = (then: () => void) => {
    if (running === 0) then();
    else idle.push(then);
  };
  return { service, load, whenIdle };
}

/** How long a stop lets the last answers flush once no call is running. */
const ANSWER_FLUSH_MS = 50;

/** A running provider server. */
export interface RunningProvider {
  port: number;
  stop(): Promise<void>;
}

/** Starts the provider on 127.0.0.1 (port 0: a free one). */
export async function serveProvider(port = 0): Promise<RunningProvider> {
  const server = new grpc.Server({
    // Large states and schemas: the engine's own limit.
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  const handlers = lazyService();
  server.addService(provrpc.ResourceProviderService, handlers.service);
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  setImmediate(handlers.load);
  return {
    port: bound,
    stop: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 2_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
        // The engine interrupts a plugin it is done with before it closes its connection, so a graceful
        // shutdown would wait the whole 2 s on every run: once no call is running, nothing is left to
        // finish (and tryShutdown's callback may never come after a forced one).
        handlers.whenIdle(() => {
          clearTimeout(force);
          // A moment for the last answers' bytes to leave on loopback before the connections are cut.
          setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, ANSWER_FLUSH_MS);
        });
      }),
  };
}

/** Process entry: `--help` and `--version` answer and return; otherwise serve, print the port, stop on SIGINT/SIGTERM. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const command = commandOf(argv);
  if (command !== "serve") {
    process.stdout.write(`${command === "help" ? usage() : `${PROGRAM} ${PACKAGE_VERSION}`}\n`);
    return;
  }
  connectEngine(engineAddressOf(argv));
  const running = await serveProvider();
  process.stdout.write(`${running.port}\n`);
  const stop = () => void running.stop().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // A `pulumi up` killed outright (SIGKILL, a CI job's timeout) never stops its plugins: one left running went
  // on with its operations (a create's readiness wait, a 429's retry, a fleet's rollout) beside the next `up`.
  whenParentEnds(stop);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `pulumi-resource-gamehost: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
