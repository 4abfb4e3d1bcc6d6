/**
 * The real dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`, what the CLI starts as
 * `pulumi-resource-pulumi-nodejs`) in a child process, with typed async gRPC calls. Values cross the
 * boundary in wire form (see `properties.ts`); callers decide what to marshal, as the engine does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as readline from "node:readline";
import { track } from "./children";
import {
  type anyproto,
  DYNAMIC_PROVIDER_ENTRY,
  fromStruct,
  grpc,
  type PropertyMap,
  provproto,
  provrpc,
  statusproto,
  toStruct,
} from "./proto";

/** A line the host printed after its port (provider `console.log`s, stack traces). */
export interface HostOutputLine {
  stream: "stdout" | "stderr";
  text: string;
}

/** `ErrorResourceInitFailed` details: the resource was created but failed to initialise. */
export interface PartialFailure {
  id: string;
  properties: PropertyMap;
  reasons: string[];
}

/** An error returned by a provider RPC. */
export class ProviderError extends Error {
  constructor(
    message: string,
    /** gRPC status code. */
    readonly code: number,
    /** Set when the error carried `ErrorResourceInitFailed` (a partially created resource). */
    readonly partial?: PartialFailure,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/** `pulumirpc.CheckFailure`. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** `pulumirpc.DiffResponse`, decoded. */
export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  stables: string[];
  diffs: string[];
  deleteBeforeReplace: boolean;
}

/** `pulumirpc.ConfigureResponse`, decoded. */
export interface ConfigureResult {
  acceptSecrets: boolean;
  acceptResources: boolean;
  supportsPreview: boolean;
}

/** Options for {@link ProviderHost.start}. */
export interface ProviderHostOptions {
  /** Working directory: the program directory, so `__provider` module paths resolve as under the CLI. */
  cwd: string;
  /** Extra environment (merged over `process.env`). */
  env?: Record<string, string | undefined>;
  /** The engine address passed as the host's only argument (it never dials it). */
  engineAddress?: string;
  /** How long to wait for the port line. */
  startTimeoutMs?: number;
  /** Deadline for each RPC. */
  callTimeoutMs?: number;
}

type Client = InstanceType<typeof provrpc.ResourceProviderClient>;
type Callback<Res> = (err: import("@grpc/grpc-js").ServiceError | null, res: Res) => void;

const DIFF_CHANGES: Record<number, DiffResult["changes"]> = {
  [provproto.DiffResponse.DiffChanges.DIFF_NONE]: "none",
  [provproto.DiffResponse.DiffChanges.DIFF_SOME]: "some",
  [provproto.DiffResponse.DiffChanges.DIFF_UNKNOWN]: "unknown",
};

/**
 * `sdk/go/common/resource/plugin/provider_plugin.go: parseError` — reads `ErrorResourceInitFailed` out of
 * the `grpc-status-details-bin` trailer.
 */
function toProviderError(err: import("@grpc/grpc-js").ServiceError): ProviderError {
  const message = err.details || err.message;
  for (const bin of err.metadata?.get("grpc-status-details-bin") ?? []) {
    const status = statusproto.Status.deserializeBinary(
      typeof bin === "string" ? Buffer.from(bin, "base64") : new Uint8Array(bin),
    );
    for (const detail of status.getDetailsList()) {
      const any = detail as InstanceType<typeof anyproto.Any>;
      if (any.getTypeName() !== "pulumirpc.ErrorResourceInitFailed") continue;
      const init = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      return new ProviderError(message, err.code, {
        id: init.getId(),
        properties: fromStruct(init.getProperties()),
        reasons: init.getReasonsList(),
      });
    }
  }
  return new ProviderError(message, err.code);
}

/** A running dynamic provider host. */
export class ProviderHost {
  /** Lines the host printed after its port line. */
  readonly output: HostOutputLine[] = [];
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly client: Client,
    /** The port the host listens on (127.0.0.1). */
    readonly port: number,
    private readonly callTimeoutMs: number,
    exited: Promise<number | null>,
  ) {
    this.exited = exited;
  }

  /** Spawns the host, reads its port from the first stdout line and connects. */
  static async start(opts: ProviderHostOptions): Promise<ProviderHost> {
    const child = track(
      spawn(process.execPath, [DYNAMIC_PROVIDER_ENTRY, opts.engineAddress ?? "127.0.0.1:0"], {
        cwd: opts.cwd,
        env: { ...process.env, NODE_OPTIONS: undefined, ...opts.env },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    const output: HostOutputLine[] = [];
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const stderr = readline.createInterface({ input: child.stderr as NodeJS.ReadableStream });
    stderr.on("line", (text) => output.push({ stream: "stderr", text }));
    const stdout = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const timeoutMs = opts.startTimeoutMs ?? 15_000;
    let port: number;
    try {
      port = await new Promise<number>((resolve, reject) => {
        let first = true;
        const timer = setTimeout(
          () => reject(new Error(`dynamic provider host printed no port within ${timeoutMs} ms`)),
          timeoutMs,
        );
        stdout.on("line", (text) => {
          if (!first) {
            output.push({ stream: "stdout", text });
            return;
          }
          first = false;
          clearTimeout(timer);
          const parsed = Number.parseInt(text.trim(), 10);
          if (Number.isInteger(parsed) && parsed > 0) resolve(parsed);
          else reject(new Error(`dynamic provider host printed ${JSON.stringify(text)} instead of a port`));
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(
              `dynamic provider host exited (code ${code}) before printing its port:\n${output.map((l) => l.text).join("\n")}`,
            ),
          );
        });
      });
    } catch (err) {
      child.kill("SIGKILL");
      throw err;
    }
    const client = new provrpc.ResourceProviderClient(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure(),
      {
        "grpc.max_receive_message_length": 400 * 1024 * 1024,
      },
    );
    const host = new ProviderHost(child, client, port, opts.callTimeoutMs ?? 60_000, exited);
    host.output.push(...output);
    // Later lines go straight to the host's list (the array captured above only holds start-up lines).
    stdout.removeAllListeners("line");
    stderr.removeAllListeners("line");
    stdout.on("line", (text) => host.output.push({ stream: "stdout", text }));
    stderr.on("line", (text) => host.output.push({ stream: "stderr", text }));
    return host;
  }

  private call<Req, Res>(
    method: (
      req: Req,
      md: import("@grpc/grpc-js").Metadata,
      opts: { deadline: Date },
      cb: Callback<Res>,
    ) => unknown,
    req: Req,
  ): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      method.call(
        this.client,
        req,
        new grpc.Metadata(),
        { deadline: new Date(Date.now() + this.callTimeoutMs) },
        (err: import("@grpc/grpc-js").ServiceError | null, res: Res) => {
          if (err) reject(toProviderError(err));
          else resolve(res);
        },
      );
    });
  }

  /** `ResourceProvider.Configure`: `args` are wire-form config values keyed `namespace:key`. */
  async configure(args: PropertyMap, variables: Record<string, string> = {}): Promise<ConfigureResult> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(toStruct(args));
    for (const [k, v] of Object.entries(variables)) req.getVariablesMap().set(k, v);
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    req.setSendsOldInputs(true);
    req.setSendsOldInputsToDelete(true);
    const res = await this.call(this.client.configure, req);
    return {
      acceptSecrets: res.getAcceptsecrets(),
      acceptResources: res.getAcceptresources(),
      supportsPreview: res.getSupportspreview(),
    };
  }

  /** `ResourceProvider.Check`. */
  async check(args: {
    urn: string;
    olds: PropertyMap;
    news: PropertyMap;
  }): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    const req = new provproto.CheckRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setOlds(toStruct(args.olds));
    req.setNews(toStruct(args.news));
    const res = await this.call(this.client.check, req);
    return {
      inputs: fromStruct(res.getInputs()),
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** `ResourceProvider.Diff` (`olds` are the old outputs, as on the wire). */
  async diff(args: {
    urn: string;
    id: string;
    olds: PropertyMap;
    news: PropertyMap;
    oldInputs: PropertyMap;
    ignoreChanges?: string[];
  }): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setId(args.id);
    req.setOlds(toStruct(args.olds));
    req.setNews(toStruct(args.news));
    req.setOldInputs(toStruct(args.oldInputs));
    req.setIgnorechangesList(args.ignoreChanges ?? []);
    const res = await this.call(this.client.diff, req);
    return {
      changes: DIFF_CHANGES[res.getChanges()] ?? "unknown",
      replaces: res.getReplacesList(),
      stables: res.getStablesList(),
      diffs: res.getDiffsList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
    };
  }

  /** `ResourceProvider.Create`; throws {@link ProviderError} (with `partial` for init failures). */
  async create(args: {
    urn: string;
    properties: PropertyMap;
    preview?: boolean;
  }): Promise<{ id: string; properties: PropertyMap }> {
    const req = new provproto.CreateRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setProperties(toStruct(args.properties));
    req.setPreview(args.preview ?? false);
    const res = await this.call(this.client.create, req);
    return { id: res.getId(), properties: fromStruct(res.getProperties()) };
  }

  /** `ResourceProvider.Read`: an empty `id` in the answer means the resource is gone. */
  async read(args: {
    urn: string;
    id: string;
    properties: PropertyMap;
    inputs: PropertyMap;
  }): Promise<{ id: string; properties: PropertyMap; inputs?: PropertyMap }> {
    const req = new provproto.ReadRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setId(args.id);
    req.setProperties(toStruct(args.properties));
    req.setInputs(toStruct(args.inputs));
    const res = await this.call(this.client.read, req);
    return {
      id: res.getId(),
      properties: fromStruct(res.getProperties()),
      inputs: res.hasInputs() ? fromStruct(res.getInputs()) : undefined,
    };
  }

  /** `ResourceProvider.Update`. */
  async update(args: {
    urn: string;
    id: string;
    olds: PropertyMap;
    news: PropertyMap;
    oldInputs: PropertyMap;
    preview?: boolean;
    ignoreChanges?: string[];
  }): Promise<{ properties: PropertyMap }> {
    const req = new provproto.UpdateRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setId(args.id);
    req.setOlds(toStruct(args.olds));
    req.setNews(toStruct(args.news));
    req.setOldInputs(toStruct(args.oldInputs));
    req.setPreview(args.preview ?? false);
    req.setIgnorechangesList(args.ignoreChanges ?? []);
    const res = await this.call(this.client.update, req);
    return { properties: fromStruct(res.getProperties()) };
  }

  /** `ResourceProvider.Delete` (`properties` are the outputs, as on the wire). */
  async delete(args: {
    urn: string;
    id: string;
    properties: PropertyMap;
    oldInputs: PropertyMap;
  }): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setId(args.id);
    req.setProperties(toStruct(args.properties));
    req.setOldInputs(toStruct(args.oldInputs));
    await this.call(this.client.delete, req);
  }

  /** Closes the connection and ends the host process. */
  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 3_000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

/** `urn:pulumi:<stack>::<project>::<qualified type>::<name>` → name. */
export function nameOf(urn: string): string {
  return urn.split("::").slice(3).join("::");
}

/** `urn:pulumi:<stack>::<project>::<qualified type>::<name>` → the last type of the qualified type. */
export function typeOf(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.split("$").pop() ?? qualified;
}
