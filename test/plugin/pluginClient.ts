/**
 * The provider plugin as the engine sees it: the executable `plugin/pulumi-resource-gamehost` spawned with
 * an engine address, its port read from stdout, and calls made with the SDK's own gRPC client stubs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";
import type { ServiceError } from "@grpc/grpc-js";
import type { RunningEmulator } from "../../src/emulator";
import { emptyproto, grpc, provproto, provrpc, statusproto, structproto } from "../../src/plugin/proto";
import { REPO_ROOT } from "../support/dist";
import { type ServerTarget, serverTarget, startTestEmulator } from "../support/emulator";

// The SDK's stubs as the plugin loads them (one grpc-js and google-protobuf, shared with the SDK).
export { grpc };
export const prov = provproto;
const rpc = provrpc;

export const PLUGIN_EXECUTABLE = path.join(REPO_ROOT, "plugin", "pulumi-resource-gamehost");

/** `sdk/nodejs/runtime/rpc.ts` signatures. */
export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export type Props = Record<string, unknown>;
export const secret = (value: unknown) => ({ [SIG]: SECRET, value });
export const isSecret = (value: unknown): value is { value: unknown } =>
  typeof value === "object" && value !== null && (value as Props)[SIG] === SECRET;

export const toStruct = (value: Props) =>
  structproto.Struct.fromJavaScript(JSON.parse(JSON.stringify(value)) as Record<string, never>);
export const fromStruct = (value: { toJavaScript(): unknown } | undefined): Props =>
  (value?.toJavaScript() as Props | undefined) ?? {};

type Client = InstanceType<typeof rpc.ResourceProviderClient>;

/** A partially created resource, read from the error's `grpc-status-details-bin`. */
export interface InitFailure {
  id: string;
  properties: Props;
  reasons: string[];
}

/** A failed call: its gRPC code, message and partial-create details. */
export class PluginCallError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly initFailure?: InitFailure,
  ) {
    super(message);
  }
}

function callError(err: ServiceError): PluginCallError {
  for (const bin of err.metadata?.get("grpc-status-details-bin") ?? []) {
    const status = statusproto.Status.deserializeBinary(new Uint8Array(bin as Buffer));
    for (const detail of status.getDetailsList()) {
      if (detail.getTypeName() !== "pulumirpc.ErrorResourceInitFailed") continue;
      const init = prov.ErrorResourceInitFailed.deserializeBinary(detail.getValue_asU8());
      return new PluginCallError(err.details, err.code, {
        id: init.getId(),
        properties: fromStruct(init.getProperties()),
        reasons: init.getReasonsList(),
      });
    }
  }
  return new PluginCallError(err.details, err.code);
}

/** A running plugin process with a connected client. */
export class PluginProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly client: Client,
    readonly port: number,
    readonly stderr: string[],
  ) {}

  /** Spawns the executable as the engine does (engine address as argument) and connects. */
  static async start(
    env: Record<string, string | undefined> = {},
    engineAddress = "127.0.0.1:1",
  ): Promise<PluginProcess> {
    const child = spawn(PLUGIN_EXECUTABLE, [engineAddress], {
      env: { ...process.env, NODE_OPTIONS: undefined, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stderr: string[] = [];
    readline
      .createInterface({ input: child.stderr as NodeJS.ReadableStream })
      .on("line", (l) => stderr.push(l));
    const port = await new Promise<number>((resolve, reject) => {
      readline
        .createInterface({ input: child.stdout as NodeJS.ReadableStream })
        .once("line", (line) => resolve(Number(line)));
      child.once("exit", (code) => reject(new Error(`plugin exited (${code}): ${stderr.join("\n")}`)));
    });
    const client = new rpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new PluginProcess(child, client, port, stderr);
  }

  /** One unary call; errors carry the partial-create details when there are any. */
  call<Req, Res>(method: string, request: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      const fn = (
        this.client as unknown as Record<
          string,
          (r: Req, cb: (e: ServiceError | null, v: Res) => void) => void
        >
      )[method];
      if (!fn) throw new Error(`no method ${method}`);
      fn.call(this.client, request, (err, value) => (err ? reject(callError(err)) : resolve(value)));
    });
  }

  empty() {
    return new emptyproto.Empty();
  }

  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode === null) {
      this.child.kill("SIGKILL");
      await new Promise((resolve) => this.child.once("exit", resolve));
    }
  }
}

/** The URN of a resource of this test stack. */
export const urnOf = (type: string, name: string) => `urn:pulumi:dev::plugin-test::${type}::${name}`;

/** Engine-shaped calls on a plugin, in plain values (Structs built and read here). */
export class PluginDriver {
  constructor(readonly plugin: PluginProcess) {}

  async configure(args: Props, variables: Record<string, string> = {}, id = "provider-id") {
    const req = new prov.ConfigureRequest();
    req.setArgs(toStruct(args));
    for (const [k, v] of Object.entries(variables)) req.getVariablesMap().set(k, v);
    req.setId(id);
    req.setUrn(urnOf("pulumi:providers:gamehost", "default"));
    req.setAcceptsecrets(true);
    return this.plugin.call<typeof req, InstanceType<typeof prov.ConfigureResponse>>("configure", req);
  }

  async checkConfig(news: Props, olds: Props = {}) {
    const req = new prov.CheckRequest();
    req.setUrn(urnOf("pulumi:providers:gamehost", "default"));
    req.setType("pulumi:providers:gamehost");
    req.setNews(toStruct(news));
    req.setOlds(toStruct(olds));
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.CheckResponse>>(
      "checkConfig",
      req,
    );
    return { inputs: fromStruct(res.getInputs()), failures: res.getFailuresList().map((f) => f.toObject()) };
  }

  async diffConfig(olds: Props, news: Props) {
    const req = new prov.DiffRequest();
    req.setUrn(urnOf("pulumi:providers:gamehost", "default"));
    req.setOldInputs(toStruct(olds));
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.DiffResponse>>("diffConfig", req);
    return { changes: res.getChanges(), replaces: res.getReplacesList(), diffs: res.getDiffsList() };
  }

  async check(type: string, name: string, news: Props, olds: Props = {}) {
    const req = new prov.CheckRequest();
    req.setUrn(urnOf(type, name));
    req.setName(name);
    req.setType(type);
    req.setNews(toStruct(news));
    req.setOlds(toStruct(olds));
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.CheckResponse>>("check", req);
    return { inputs: fromStruct(res.getInputs()), failures: res.getFailuresList().map((f) => f.toObject()) };
  }

  async diff(type: string, name: string, id: string, olds: Props, news: Props) {
    const req = new prov.DiffRequest();
    req.setUrn(urnOf(type, name));
    req.setType(type);
    req.setId(id);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.DiffResponse>>("diff", req);
    const detailed: Record<string, number> = {};
    for (const [k, v] of res.getDetaileddiffMap().entries()) detailed[k] = v.getKind();
    return {
      changes: res.getChanges(),
      replaces: res.getReplacesList(),
      diffs: res.getDiffsList(),
      detailed,
      hasDetailedDiff: res.getHasdetaileddiff(),
    };
  }

  async create(
    type: string,
    name: string,
    properties: Props,
    opts: { preview?: boolean; timeout?: number } = {},
  ) {
    const req = new prov.CreateRequest();
    req.setUrn(urnOf(type, name));
    req.setName(name);
    req.setType(type);
    req.setProperties(toStruct(properties));
    req.setPreview(opts.preview ?? false);
    req.setTimeout(opts.timeout ?? 0);
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.CreateResponse>>("create", req);
    return { id: res.getId(), properties: fromStruct(res.getProperties()) };
  }

  async read(type: string, name: string, id: string, properties: Props = {}, inputs: Props = {}) {
    const req = new prov.ReadRequest();
    req.setUrn(urnOf(type, name));
    req.setName(name);
    req.setType(type);
    req.setId(id);
    req.setProperties(toStruct(properties));
    req.setInputs(toStruct(inputs));
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.ReadResponse>>("read", req);
    return {
      id: res.getId(),
      properties: fromStruct(res.getProperties()),
      inputs: fromStruct(res.getInputs()),
    };
  }

  async update(
    type: string,
    name: string,
    id: string,
    olds: Props,
    news: Props,
    opts: { preview?: boolean; timeout?: number } = {},
  ) {
    const req = new prov.UpdateRequest();
    req.setUrn(urnOf(type, name));
    req.setType(type);
    req.setId(id);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    req.setPreview(opts.preview ?? false);
    req.setTimeout(opts.timeout ?? 0);
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.UpdateResponse>>("update", req);
    return { properties: fromStruct(res.getProperties()) };
  }

  async delete(type: string, name: string, id: string, properties: Props) {
    const req = new prov.DeleteRequest();
    req.setUrn(urnOf(type, name));
    req.setType(type);
    req.setId(id);
    req.setProperties(toStruct(properties));
    await this.plugin.call<typeof req, unknown>("delete", req);
  }

  async invoke(tok: string, args: Props) {
    const req = new prov.InvokeRequest();
    req.setTok(tok);
    req.setArgs(toStruct(args));
    const res = await this.plugin.call<typeof req, InstanceType<typeof prov.InvokeResponse>>("invoke", req);
    return { result: fromStruct(res.getReturn()), failures: res.getFailuresList().map((f) => f.toObject()) };
  }
}

/** An emulator and a plugin configured against it. */
export interface PluginOnEmulator {
  emulator: RunningEmulator;
  target: ServerTarget;
  plugin: PluginProcess;
  driver: PluginDriver;
}

/**
 * Starts an emulator and the plugin, configured against it through Configure alone: the plugin reads no
 * GAMEHOST_* variable of the test runner. The emulator is stopped again if the plugin fails to start.
 */
export async function startPluginOnEmulator(): Promise<PluginOnEmulator> {
  const emulator = await startTestEmulator();
  try {
    const plugin = await PluginProcess.start({ GAMEHOST_BASE_URL: undefined, GAMEHOST_TOKEN: undefined });
    const driver = new PluginDriver(plugin);
    await driver.configure({ baseUrl: emulator.url, token: secret(emulator.tokens.user) });
    return { emulator, target: serverTarget(emulator), plugin, driver };
  } catch (err) {
    await emulator.stop();
    throw err;
  }
}
