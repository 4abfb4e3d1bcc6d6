/**
 * The engine side of a program run: `pulumirpc.ResourceMonitor` and `pulumirpc.Engine` served over gRPC on
 * 127.0.0.1, backed by an {@link Engine}. Mirrors `pkg/resource/deploy/source_eval.go` (resmon) and
 * `sdk/go/common/resource/plugin/host_server.go` (hostServer: Log, Get/SetRootResource).
 */
import type { Goal } from "./engine";
import { type Engine, parseDuration, StepError } from "./engine";
import { marshalProperties } from "./properties";
import {
  emptyproto,
  engproto,
  engrpc,
  fromStruct,
  grpc,
  type PropertyMap,
  provproto,
  resproto,
  resrpc,
  toStruct,
} from "./proto";
import type { Diagnostic } from "./types";

type Server = InstanceType<typeof grpc.Server>;
type ServiceError = Partial<import("@grpc/grpc-js").StatusObject>;
type IResourceMonitorServer = import("@pulumi/pulumi/proto/resource_grpc_pb").IResourceMonitorServer;
type IEngineServer = import("@pulumi/pulumi/proto/engine_grpc_pb").IEngineServer;
/** The ResourceMonitor methods the harness serves; grpc-js answers UNIMPLEMENTED for the rest. */
type MonitorHandlers = Pick<
  IResourceMonitorServer,
  | "supportsFeature"
  | "registerResource"
  | "registerResourceOutputs"
  | "readResource"
  | "invoke"
  | "signalAndWaitForShutdown"
>;
/** The Engine methods the harness serves. */
type EngineHandlers = Pick<
  IEngineServer,
  "log" | "getRootResource" | "setRootResource" | "requirePulumiVersion"
>;

/**
 * `source_eval.go: resmon.SupportsFeature`. The harness answers true only for what it implements: secrets.
 * Resource references and output values are answered false as an engine run with
 * `DisableResourceReferences` / `DisableOutputValues` would; the rest (transforms, hooks, parameterization,
 * deletedWith, aliasSpecs) are not implemented, so the SDK either falls back or reports them unsupported.
 */
const FEATURES: Record<string, boolean> = { secrets: true };

const SEVERITIES: Record<number, Diagnostic["severity"]> = {
  [engproto.LogSeverity.DEBUG]: "debug",
  [engproto.LogSeverity.INFO]: "info",
  [engproto.LogSeverity.WARNING]: "warning",
  [engproto.LogSeverity.ERROR]: "error",
};

function toServiceError(err: unknown): ServiceError {
  const message = err instanceof Error ? err.message : String(err);
  return { code: grpc.status.UNKNOWN, details: message };
}

/** `customTimeouts` of a registration (Go duration strings), in seconds. */
function customTimeoutsOf(
  timeouts: { getCreate(): string; getUpdate(): string; getDelete(): string } | undefined,
): { create?: number; update?: number; delete?: number } {
  if (!timeouts) return {};
  return {
    create: parseDuration(timeouts.getCreate()),
    update: parseDuration(timeouts.getUpdate()),
    delete: parseDuration(timeouts.getDelete()),
  };
}

function decodePropertyDependencies(
  map: import("google-protobuf").Map<string, { getUrnsList(): string[] }>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  map.forEach((deps, key) => {
    out[key] = deps.getUrnsList();
  });
  return out;
}

/** Options for {@link MonitorServer.start}. */
export interface MonitorOptions {
  engine: Engine;
  preview: boolean;
  diagnostics: Diagnostic[];
  /** Keep `debug` log messages from the program (the SDK sends many). */
  keepDebug?: boolean;
}

/** The running monitor/engine gRPC server. */
export class MonitorServer {
  private rootUrn = "";

  private constructor(
    private readonly server: Server,
    /** `127.0.0.1:<port>` — passed as both `--monitor` and `--engine`. */
    readonly address: string,
  ) {}

  /** Binds a new server on 127.0.0.1 with both services. */
  static async start(opts: MonitorOptions): Promise<MonitorServer> {
    const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    const monitor = new MonitorServer(server, `127.0.0.1:${port}`);
    server.addService(resrpc.ResourceMonitorService, monitor.monitorService(opts));
    server.addService(engrpc.EngineService, monitor.engineService(opts));
    return monitor;
  }

  private monitorService(opts: MonitorOptions): MonitorHandlers {
    const { engine, preview } = opts;
    return {
      supportsFeature: (call, callback) => {
        const res = new resproto.SupportsFeatureResponse();
        res.setHassupport(FEATURES[call.request.getId()] ?? false);
        callback(null, res);
      },

      // source_eval.go: resmon.RegisterResource — turn the request into a goal, wait for its steps, and answer
      // with the new state's outputs (secrets kept as the SDK accepts them; unknowns only in previews).
      registerResource: (call, callback) => {
        const req = call.request;
        const goal: Goal = {
          type: req.getType(),
          name: req.getName(),
          parent: req.getParent() || undefined,
          custom: req.getCustom(),
          properties: fromStruct(req.getObject()),
          dependencies: req.getDependenciesList(),
          propertyDependencies: decodePropertyDependencies(req.getPropertydependenciesMap()),
          deleteBeforeReplace: req.getDeletebeforereplacedefined() ? req.getDeletebeforereplace() : undefined,
          ignoreChanges: req.getIgnorechangesList(),
          replaceOnChanges: req.getReplaceonchangesList(),
          additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
          protect: req.hasProtect() ? req.getProtect() : undefined,
          retainOnDelete: req.hasRetainondelete() ? req.getRetainondelete() : undefined,
          provider: req.getProvider(),
          ...(req.getVersion() ? { version: req.getVersion() } : {}),
          ...(req.getImportid() ? { importId: req.getImportid() } : {}),
          ...(req.hasCustomtimeouts() ? { customTimeouts: customTimeoutsOf(req.getCustomtimeouts()) } : {}),
        };
        engine.registerResource(goal).then(
          (state) => {
            const res = new resproto.RegisterResourceResponse();
            res.setUrn(state.urn);
            res.setId(state.id);
            res.setObject(
              toStruct(
                marshalProperties(state.outputs, {
                  keepSecrets: req.getAcceptsecrets(),
                  keepUnknowns: preview && req.getSupportspartialvalues(),
                }),
              ),
            );
            for (const [key, urns] of Object.entries(state.propertyDependencies)) {
              const deps = new resproto.RegisterResourceResponse.PropertyDependencies();
              deps.setUrnsList(urns);
              res.getPropertydependenciesMap().set(key, deps);
            }
            res.setResult(resproto.Result.SUCCESS);
            callback(null, res);
          },
          (err: unknown) => {
            // source_eval.go: RegisterResource — a failed step is reported to an SDK that supports result
            // reporting as `Result: FAIL` (its outputs stay unknown and the program goes on); the engine has
            // already shown the step's error, once.
            if (err instanceof StepError && req.getSupportsresultreporting()) {
              const res = new resproto.RegisterResourceResponse();
              res.setUrn(err.urn);
              res.setResult(resproto.Result.FAIL);
              callback(null, res);
              return;
            }
            if (!(err instanceof StepError)) {
              opts.diagnostics.push({
                severity: "error",
                message: `registering ${goal.type} "${goal.name}" failed: ${(err as Error).message}`,
                source: "engine",
              });
              engine.sawError = true;
            }
            callback(toServiceError(err));
          },
        );
      },

      // source_eval.go: resmon.RegisterResourceOutputs.
      registerResourceOutputs: (call, callback) => {
        try {
          engine.registerOutputs(call.request.getUrn(), fromStruct(call.request.getOutputs()));
          callback(null, new emptyproto.Empty());
        } catch (err) {
          callback(toServiceError(err));
        }
      },

      // source_eval.go: resmon.ReadResource.
      readResource: (call, callback) => {
        const req = call.request;
        engine
          .readResource({
            type: req.getType(),
            name: req.getName(),
            parent: req.getParent() || undefined,
            custom: true,
            id: req.getId(),
            properties: fromStruct(req.getProperties()),
            dependencies: req.getDependenciesList(),
            propertyDependencies: {},
            ignoreChanges: [],
            replaceOnChanges: [],
            additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
            provider: req.getProvider(),
            ...(req.getVersion() ? { version: req.getVersion() } : {}),
          })
          .then(
            (state) => {
              const res = new resproto.ReadResourceResponse();
              res.setUrn(state.urn);
              res.setProperties(
                toStruct(
                  marshalProperties(state.outputs, {
                    keepSecrets: req.getAcceptsecrets(),
                    keepUnknowns: false,
                  }),
                ),
              );
              callback(null, res);
            },
            (err: unknown) => callback(toServiceError(err)),
          );
      },

      // source_eval.go: resmon.Invoke — the engine built-in `pulumi:pulumi:getResource`
      // (pkg/resource/deploy/builtins.go: builtinProvider.getResource), else the token's provider.
      invoke: (call, callback) => {
        const req = call.request;
        const tok = req.getTok();
        if (tok !== "pulumi:pulumi:getResource") {
          engine
            .invoke({
              tok,
              args: fromStruct(req.getArgs()),
              provider: req.getProvider(),
              ...(req.getVersion() ? { version: req.getVersion() } : {}),
            })
            .then(
              ({ result, failures }) => {
                const res = new provproto.InvokeResponse();
                res.setReturn(toStruct(marshalProperties(result, { keepSecrets: true, keepUnknowns: true })));
                res.setFailuresList(
                  failures.map((f) => {
                    const failure = new provproto.CheckFailure();
                    failure.setProperty(f.property);
                    failure.setReason(f.reason);
                    return failure;
                  }),
                );
                callback(null, res);
              },
              // source_eval.go: "invocation of %v returned an error: %w" (the text the SDK's error gets).
              (err: unknown) =>
                callback({
                  ...toServiceError(err),
                  details: `invocation of ${tok} returned an error: ${toServiceError(err).details}`,
                }),
            );
          return;
        }
        const urn = String(fromStruct(req.getArgs()).urn ?? "");
        const state = engine.lookup(urn);
        if (!state) {
          callback({ code: grpc.status.NOT_FOUND, details: `unknown resource ${urn}` });
          return;
        }
        const res = new provproto.InvokeResponse();
        res.setReturn(toStruct({ urn: state.urn, id: state.id, state: state.outputs } as PropertyMap));
        callback(null, res);
      },

      // source_eval.go: resmon.SignalAndWaitForShutdown — answer once every started step has finished.
      signalAndWaitForShutdown: (_call, callback) => {
        engine.settle().then(() => callback(null, new emptyproto.Empty()));
      },
    };
  }

  private engineService(opts: MonitorOptions): EngineHandlers {
    return {
      log: (call, callback) => {
        const req = call.request;
        const severity = SEVERITIES[req.getSeverity()] ?? "info";
        if (severity !== "debug" || opts.keepDebug) {
          opts.diagnostics.push({
            severity,
            message: req.getMessage(),
            ...(req.getUrn() ? { urn: req.getUrn() } : {}),
            source: "program",
          });
        }
        callback(null, new emptyproto.Empty());
      },
      getRootResource: (_call, callback) => {
        const res = new engproto.GetRootResourceResponse();
        res.setUrn(this.rootUrn);
        callback(null, res);
      },
      setRootResource: (call, callback) => {
        this.rootUrn = call.request.getUrn();
        callback(null, new engproto.SetRootResourceResponse());
      },
      requirePulumiVersion: (_call, callback) => {
        callback(null, new engproto.RequirePulumiVersionResponse());
      },
    };
  }

  /** Stops accepting calls and closes the server. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 2_000);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
