/**
 * A resource provider in a child process, started the way the engine starts it, with typed async gRPC calls:
 * the SDK's dynamic provider host (`@pulumi/pulumi/cmd/dynamic-provider`, what the CLI starts as
 * `pulumi-resource-pulumi-nodejs`), a plugin executable (`pulumi-resource-<name>`), or a plugin folder whose
 * `PulumiPlugin.yaml` says `runtime: nodejs` (run as pulumi-language-nodejs `RunPlugin` does, through the SDK's
 * `cmd/run-plugin`). Values cross the boundary in wire form (see `properties.ts`); callers decide what to marshal,
 * as the engine does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";
import { track } from "./children";
import {
  type anyproto,
  DYNAMIC_PROVIDER_ENTRY,
  emptyproto,
  fromStruct,
  grpc,
  type PropertyMap,
  provproto,
  provrpc,
  sdkEntries,
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

/** What `Check` and `CheckConfig` take: the resource and its old and new inputs. */
export interface CheckArgs {
  urn: string;
  olds: PropertyMap;
  news: PropertyMap;
  /** `randomSeed`: the engine draws 32 random bytes for each resource it checks. */
  randomSeed?: Uint8Array;
}

/** What `Check` and `CheckConfig` answer: the checked inputs, or why they fail. */
export interface CheckResult {
  inputs: PropertyMap;
  failures: CheckFailure[];
}

/** `pulumirpc.PropertyDiff.Kind`, by name. */
export type PropertyDiffKind =
  | "add"
  | "add-replace"
  | "delete"
  | "delete-replace"
  | "update"
  | "update-replace";

/** `pulumirpc.DiffResponse`, decoded. */
export interface DiffResult {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  stables: string[];
  diffs: string[];
  deleteBeforeReplace: boolean;
  /** Per property path, how it changes (only when the provider answered a detailed diff). */
  detailedDiff?: Record<string, PropertyDiffKind>;
}

/** `pulumirpc.ProviderHandshakeResponse`, decoded. */
export interface HandshakeResult {
  acceptSecrets: boolean;
  acceptResources: boolean;
  acceptOutputs: boolean;
}

/** Which provider process to start, and how (see the file comment). */
export type LaunchSpec =
  | { kind: "dynamic"; sdkDir?: string }
  | { kind: "executable"; path: string }
  | { kind: "nodejs-plugin"; dir: string; sdkDir?: string };

/** Where a provider's resources and invokes stand after Configure. */
export interface ConfigureTarget {
  urn?: string;
  id?: string;
  name?: string;
  type?: string;
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
  /** What to start (default: the dynamic provider host of the repo's SDK). */
  launch?: LaunchSpec;
  /** The `node` binary for Node.js providers (default: this process's). */
  nodePath?: string;
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

const PROPERTY_DIFF_KINDS: Record<number, PropertyDiffKind> = {
  [provproto.PropertyDiff.Kind.ADD]: "add",
  [provproto.PropertyDiff.Kind.ADD_REPLACE]: "add-replace",
  [provproto.PropertyDiff.Kind.DELETE]: "delete",
  [provproto.PropertyDiff.Kind.DELETE_REPLACE]: "delete-replace",
  [provproto.PropertyDiff.Kind.UPDATE]: "update",
  [provproto.PropertyDiff.Kind.UPDATE_REPLACE]: "update-replace",
};

/**
 * The command line of a provider process, as the engine builds it (`plugin.go: ExecPlugin`, with the engine
 * address as the only argument) or, for a nodejs plugin folder, as pulumi-language-nodejs `RunPlugin` does
 * (`node <sdk>/cmd/run-plugin <plugin dir> <args…>`).
 */
function commandOf(launch: LaunchSpec, engineAddress: string, nodePath: string): [string, string[]] {
  switch (launch.kind) {
    case "dynamic": {
      const entry = launch.sdkDir ? sdkEntries(launch.sdkDir).dynamicProvider : DYNAMIC_PROVIDER_ENTRY;
      return [nodePath, [entry, engineAddress]];
    }
    case "executable":
      return [launch.path, [engineAddress]];
    case "nodejs-plugin": {
      const entry = sdkEntries(launch.sdkDir ?? path.dirname(path.dirname(DYNAMIC_PROVIDER_ENTRY))).runPlugin;
      return [nodePath, [entry, launch.dir, engineAddress]];
    }
  }
}

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

/** A running provider process with a connected client. */
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
    const [command, args] = commandOf(
      opts.launch ?? { kind: "dynamic" },
      opts.engineAddress ?? "127.0.0.1:0",
      opts.nodePath ?? process.execPath,
    );
    const child = track(
      spawn(command, args, {
        cwd: opts.cwd,
        env: { ...process.env, NODE_OPTIONS: undefined, ...opts.env },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    const what =
      opts.launch?.kind === "dynamic" || !opts.launch ? "dynamic provider host" : `provider ${command}`;
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
          () => reject(new Error(`${what} printed no port within ${timeoutMs} ms`)),
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
          else reject(new Error(`${what} printed ${JSON.stringify(text)} instead of a port`));
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(
              `${what} exited (code ${code}) before printing its port:\n${output.map((l) => l.text).join("\n")}`,
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

  /** `Check` and `CheckConfig` share their request and answer (`pulumirpc.CheckRequest`/`CheckResponse`). */
  private async checkWith(
    method: Client["check"] | Client["checkConfig"],
    args: CheckArgs,
  ): Promise<CheckResult> {
    const req = new provproto.CheckRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setOlds(toStruct(args.olds));
    req.setNews(toStruct(args.news));
    if (args.randomSeed) req.setRandomseed(args.randomSeed);
    const res = await this.call(method, req);
    return {
      inputs: fromStruct(res.getInputs()),
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** The provider's process id (tests kill it to see what a crash does). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends a signal to the provider process. */
  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /**
   * `ResourceProvider.Handshake`, as `provider_plugin.go: NewProvider` sends it; `undefined` when the provider
   * does not implement it (the engine then falls back to what Configure says).
   */
  async handshake(args: { engineAddress: string; directory: string }): Promise<HandshakeResult | undefined> {
    const req = new provproto.ProviderHandshakeRequest();
    req.setEngineAddress(args.engineAddress);
    req.setRootDirectory(args.directory);
    req.setProgramDirectory(args.directory);
    req.setConfigureWithUrn(true);
    req.setSupportsViews(true);
    req.setSupportsRefreshBeforeUpdate(true);
    req.setInvokeWithPreview(true);
    try {
      const res = await this.call(this.client.handshake, req);
      return {
        acceptSecrets: res.getAcceptSecrets(),
        acceptResources: res.getAcceptResources(),
        acceptOutputs: res.getAcceptOutputs(),
      };
    } catch (err) {
      if (err instanceof ProviderError && err.code === grpc.status.UNIMPLEMENTED) return undefined;
      throw err;
    }
  }

  /** `ResourceProvider.CheckConfig`: the provider resource's inputs, checked. */
  checkConfig(args: CheckArgs): Promise<CheckResult> {
    return this.checkWith(this.client.checkConfig, args);
  }

  /** `ResourceProvider.DiffConfig`. */
  async diffConfig(args: { urn: string; olds: PropertyMap; news: PropertyMap }): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setOlds(toStruct(args.olds));
    req.setOldInputs(toStruct(args.olds));
    req.setNews(toStruct(args.news));
    return decodeDiff(await this.call(this.client.diffConfig, req));
  }

  /** `ResourceProvider.Invoke`. */
  async invoke(args: {
    tok: string;
    args: PropertyMap;
    preview: boolean;
  }): Promise<{ result: PropertyMap; failures: CheckFailure[] }> {
    const req = new provproto.InvokeRequest();
    req.setTok(args.tok);
    req.setArgs(toStruct(args.args));
    req.setPreview(args.preview);
    const res = await this.call(this.client.invoke, req);
    return {
      result: fromStruct(res.getReturn()),
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** `ResourceProvider.Cancel`. */
  async cancel(): Promise<void> {
    await this.call(this.client.cancel, new emptyproto.Empty());
  }

  /**
   * `ResourceProvider.Configure`: `args` are wire-form config values (keyed `namespace:key` for the dynamic
   * host, by name for a plugin's provider resource); `target` names the provider resource, as the engine
   * sends it to a provider that asked for it (`configureWithUrn`).
   */
  async configure(
    args: PropertyMap,
    variables: Record<string, string> = {},
    target: ConfigureTarget = {},
  ): Promise<ConfigureResult> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(toStruct(args));
    for (const [k, v] of Object.entries(variables)) req.getVariablesMap().set(k, v);
    if (target.urn !== undefined) req.setUrn(target.urn);
    if (target.id !== undefined) req.setId(target.id);
    if (target.name !== undefined) req.setName(target.name);
    if (target.type !== undefined) req.setType(target.type);
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
  check(args: CheckArgs): Promise<CheckResult> {
    return this.checkWith(this.client.check, args);
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
    return decodeDiff(await this.call(this.client.diff, req));
  }

  /** `ResourceProvider.Create`; throws {@link ProviderError} (with `partial` for init failures). */
  async create(args: {
    urn: string;
    properties: PropertyMap;
    preview?: boolean;
    /** `customTimeouts.create`, in seconds (0: none). */
    timeout?: number;
  }): Promise<{ id: string; properties: PropertyMap }> {
    const req = new provproto.CreateRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setProperties(toStruct(args.properties));
    req.setPreview(args.preview ?? false);
    req.setTimeout(args.timeout ?? 0);
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
    /** `customTimeouts.update`, in seconds (0: none). */
    timeout?: number;
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
    req.setTimeout(args.timeout ?? 0);
    const res = await this.call(this.client.update, req);
    return { properties: fromStruct(res.getProperties()) };
  }

  /** `ResourceProvider.Delete` (`properties` are the outputs, as on the wire). */
  async delete(args: {
    urn: string;
    id: string;
    properties: PropertyMap;
    oldInputs: PropertyMap;
    /** `customTimeouts.delete`, in seconds (0: none). */
    timeout?: number;
  }): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(args.urn);
    req.setName(nameOf(args.urn));
    req.setType(typeOf(args.urn));
    req.setId(args.id);
    req.setProperties(toStruct(args.properties));
    req.setOldInputs(toStruct(args.oldInputs));
    req.setTimeout(args.timeout ?? 0);
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

/** A DiffResponse (of Diff or DiffConfig), decoded. */
function decodeDiff(res: InstanceType<typeof provproto.DiffResponse>): DiffResult {
  const detailed: Record<string, PropertyDiffKind> = {};
  for (const [key, value] of res.getDetaileddiffMap().entries()) {
    detailed[key] = PROPERTY_DIFF_KINDS[value.getKind()] ?? "update";
  }
  return {
    changes: DIFF_CHANGES[res.getChanges()] ?? "unknown",
    replaces: res.getReplacesList(),
    stables: res.getStablesList(),
    diffs: res.getDiffsList(),
    deleteBeforeReplace: res.getDeletebeforereplace(),
    ...(res.getHasdetaileddiff() ? { detailedDiff: detailed } : {}),
  };
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
