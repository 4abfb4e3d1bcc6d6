/**
 * Messages from the plugin to the user, through the engine's `Log` service at the address the engine gives
 * the plugin on its command line: the CLI shows them as the stack's warnings while an operation runs.
 */
import type { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { engineproto, enginerpc, grpc } from "./proto";

let engine: EngineClient | undefined;

/**
 * The engine's address among the plugin's arguments, read as the SDK's own providers read it: the first
 * argument that is not one of the engine's flags (`--logtostderr`, `-v=N`, `--tracing URL`, `--logflow`).
 */
export function engineAddressOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--tracing") i += 1;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/** Connects the messages to the engine at `address` (none: they go to stderr, which the engine logs). */
export function connectEngine(address: string | undefined): void {
  engine?.close();
  try {
    engine = address ? new enginerpc.EngineClient(address, grpc.credentials.createInsecure()) : undefined;
  } catch {
    // Messages are a courtesy: a plugin that cannot send them still serves (they go to stderr).
    engine = undefined;
  }
}

/** Shows `message` to the user as a warning. Never throws: a message that cannot be sent is dropped. */
export function warnUser(message: string): void {
  if (!engine) {
    process.stderr.write(`warning: ${message}\n`);
    return;
  }
  const request = new engineproto.LogRequest();
  request.setSeverity(engineproto.LogSeverity.WARNING);
  request.setMessage(message);
  engine.log(request, () => {
    // A message the engine did not take is not worth failing the operation it describes.
  });
}
