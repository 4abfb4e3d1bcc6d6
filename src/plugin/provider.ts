/**
 * `pulumirpc.ResourceProvider` for package `gamehost`, served with the SDK's generated stubs. Each
 * handler decodes the request (wire.ts), runs the kind or data source from the registry, and encodes
 * the answer; no resource rule lives here.
 */
import type {
  ServerUnaryCall,
  ServerWritableStream,
  sendUnaryData,
  UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type * as provider_pb from "@pulumi/pulumi/proto/provider_pb";
import { CONFIG_KEYS, type ConfigLookup, DEFAULT_CALL_TIMEOUT_MS, readSettings } from "../api/config";
import { unreadKeysWarning } from "../api/configHint";
import { withoutSecrets } from "../api/redact";
import { boundField, boundText, formatCount } from "../api/textBounds";
import { parseWith } from "../api/validate";
import { MAX_TIMER_MS } from "../api/wait";
import { type CheckFailure, containsUnknown } from "../kinds/checks";
import { dataSourceClientOptions, dataSourceFailure, warnOnce } from "../kinds/dataSourceCalls";
import type { AnyResourceKind, DiffResult, OperationContext, PropertyChange } from "../kinds/kind";
import {
  askAboutReplacement,
  createAfterDelete,
  deleteBeforeReplacement,
  isReplacementCheck,
  noteChecked,
  noteCreating,
} from "../kinds/replacementCheck";
import { PACKAGE_VERSION } from "../version";
import { checkConfig, clientOf, explicitProviderName, isPulumiDo, lookupOf, SECRET_CONFIG } from "./config";
import { warnUser } from "./engineLog";
import { grpcError, OperationAborted } from "./errors";
import { holdsPath, keepSecrecy, markSecret, markSecretAt, type PropertyMap, reveal } from "./propertyValues";
import { emptyproto, grpc, pluginproto, provproto } from "./proto";
import { FUNCTION_ENTRIES, functionOf, RESOURCES, type ResourceEntry, resourceOf } from "./registry";
import { packageSchemaText } from "./schema";
import { secretTexts, withoutSecretGivens } from "./secretGivens";
import { fromStruct, toStruct } from "./structs";

/** Inputs the engine gives a provider besides the stack's config: never a key the user set. */
const ENGINE_INPUTS: ReadonlySet<string> = new Set(["version", "pluginDownloadURL"]);

type Empty = InstanceType<typeof emptyproto.Empty>;

/**
 * Deadline of an RPC the engine gives no timeout (Invoke, Read): 5 minutes, or twice
 * `gamehost:callTimeoutMs` if that is longer, so a data source of two calls always fits.
 */
export const DEFAULT_RPC_TIMEOUT_MS = 300_000;

/** Options of a {@link GamehostProvider}. */
export interface ProviderOptions {
  /** Deadline of Invoke and Read, in ms (default: see {@link DEFAULT_RPC_TIMEOUT_MS}). */
  rpcTimeoutMs?: number;
}

/** What an operation's context needs of its gRPC call: its cancellation and its own deadline. */
type CallLike = Pick<ServerUnaryCall<unknown, unknown>, "cancelled" | "getDeadline" | "once" | "off">;
type Handler<Req, Res> = (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

const PROPERTY_CHANGES: Record<PropertyChange, provider_pb.PropertyDiff.Kind> = {
  add: provproto.PropertyDiff.Kind.ADD,
  "add-replace": provproto.PropertyDiff.Kind.ADD_REPLACE,
  delete: provproto.PropertyDiff.Kind.DELETE,
  "delete-replace": provproto.PropertyDiff.Kind.DELETE_REPLACE,
  update: provproto.PropertyDiff.Kind.UPDATE,
  "update-replace": provproto.PropertyDiff.Kind.UPDATE_REPLACE,
};

/** Check failures the engine gets by name; the rest are counted in one more (as `textBounds.ts` bounds text). */
const MAX_SENT_FAILURES = 20;

/** Check failures as the wire carries them: a bounded number, each bounded. */
function failuresOf(failures: readonly CheckFailure[]): provider_pb.CheckFailure[] {
  const sent = failures.slice(0, MAX_SENT_FAILURES).map((f) => {
    const failure = new provproto.CheckFailure();
    failure.setProperty(boundField(f.property));
    failure.setReason(boundText(f.reason));
    return failure;
  });
  if (failures.length > sent.length) {
    const more = new provproto.CheckFailure();
    more.setReason(`…and ${formatCount(failures.length - sent.length)} more problems like these`);
    sent.push(more);
  }
  return sent;
}

/** The state of one plugin process: its configuration and the operations in flight. */
export class GamehostProvider {
  private lookup: ConfigLookup = () => undefined;
  /** Names this provider instance among all stacks: the provider resource's id and URN. */
  private readonly inFlight = new Set<AbortController>();
  /** The data sources' warnings: one wait many invokes meet (one rate-limit window) is told once. */
  private dataSourceWarn = warnOnce(warnUser);
  /** Whether the default provider's `gamehost:` keys were checked for ones the package does not read. */
  private unreadChecked = false;
  private readonly rpcTimeoutMs: number | undefined;

  constructor(options: ProviderOptions = {}) {
    this.rpcTimeoutMs = options.rpcTimeoutMs;
  }

  /** The handlers, bound, for `grpc.Server.addService`. */
  service(): UntypedServiceImplementation {
    const unimplemented =
      (what: string): Handler<unknown, unknown> =>
      (_call, callback) =>
        callback({
          code: grpc.status.UNIMPLEMENTED,
          details: `${what} is not implemented by the gamehost provider`,
        });
    return {
      handshake: this.handshake,
      parameterize: unimplemented("Parameterize"),
      getSchema: this.getSchema,
      checkConfig: this.checkConfig,
      diffConfig: this.diffConfig,
      configure: this.configure,
      invoke: this.invoke,
      call: unimplemented("Call"),
      check: this.check,
      diff: this.diff,
      create: this.create,
      read: this.read,
      update: this.update,
      delete: this.delete,
      construct: unimplemented("Construct"),
      cancel: this.cancel,
      getPluginInfo: this.getPluginInfo,
      attach: unimplemented("Attach"),
      getMapping: this.getMapping,
      getMappings: this.getMappings,
      list: this.list,
    } as unknown as UntypedServiceImplementation;
  }

  /** Runs an answer-producing step and sends its result or its error (never throws). */
  private async answer<Res>(
    callback: sendUnaryData<Res>,
    work: () => Res | Promise<Res>,
    finish?: (properties: PropertyMap) => PropertyMap,
  ): Promise<void> {
    try {
      callback(null, await work());
    } catch (error) {
      const failure = grpcError(error, finish);
      callback(failure, null, failure.metadata);
    }
  }

  private entryOf(type: string): ResourceEntry {
    const entry = resourceOf(type);
    if (!entry) {
      // A dynamic resource reaches this provider only when a provider was set on it after its constructor
      // checked its options (a transform that sets one): say what to do instead.
      const dynamic = /^pulumi-nodejs:dynamic\/gamehost:(\w+)$/.exec(type)?.[1];
      const hint = dynamic
        ? `: a dynamic resource of pulumi-gamehost was given this provider (by its \`provider\` option or a transform); dynamic resources take none, so declare it with gamehost.native.${dynamic} (type gamehost:index:${dynamic}) to use the provider`
        : "";
      throw new Error(
        `the gamehost provider has no resource type ${JSON.stringify(type)} (its types: ${RESOURCES.map((r) => r.token).join(", ")})${hint}`,
      );
    }
    return entry;
  }

  /**
   * The context of one operation: a client from the configuration, a deadline, and an abort signal
   * for Cancel, for the gRPC call's own cancellation or deadline, and for a stuck call past the
   * deadline. `bound` is the engine's `timeout` (Create, Update, Delete: waits end there on their
   * own with a message saying so, the abort a little later is a backstop), or for an RPC without
   * one (Invoke, Read) the provider's own deadline, enforced by the abort itself.
   */
  private context(
    call: CallLike | undefined,
    bound: { engineTimeoutSeconds: number } | { rpc: string },
    tokenRequired = true,
  ): { ctx: OperationContext; done(): void } {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const lookup = this.lookup;
    let timeoutMs: number;
    let backstopMs: number;
    let reason: string;
    if ("rpc" in bound) {
      const callTimeoutMs = readSettings(lookup).callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
      timeoutMs = this.rpcTimeoutMs ?? Math.max(DEFAULT_RPC_TIMEOUT_MS, 2 * callTimeoutMs);
      backstopMs = timeoutMs;
      reason = `${bound.rpc} did not finish within ${timeoutMs / 1000}s: retry it; if the service is this slow, raise gamehost:callTimeoutMs (GAMEHOST_CALL_TIMEOUT_MS).`;
    } else {
      timeoutMs = bound.engineTimeoutSeconds * 1000;
      backstopMs = timeoutMs + 2_000;
      reason = `The operation did not finish within its timeout of ${bound.engineTimeoutSeconds}s (customTimeouts).`;
    }
    // A deadline the engine's gRPC client set on the call (none today) is honoured as well.
    const grpcDeadline = Number(call?.getDeadline?.() ?? Number.POSITIVE_INFINITY);
    const toGrpcDeadline = Number.isFinite(grpcDeadline) ? Math.max(0, grpcDeadline - Date.now()) : undefined;
    if (toGrpcDeadline !== undefined && (timeoutMs <= 0 || toGrpcDeadline < timeoutMs)) {
      timeoutMs = toGrpcDeadline;
      backstopMs = toGrpcDeadline;
      reason = `The operation did not finish within the deadline of its gRPC call (${Math.round(toGrpcDeadline / 1000)}s).`;
    }
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : undefined;
    const timer =
      deadline !== undefined
        ? setTimeout(
            () => controller.abort(new OperationAborted(reason, "deadline")),
            Math.min(backstopMs, MAX_TIMER_MS),
          )
        : undefined;
    // The engine may also give up on the call itself (its context cancelled): stop the work too.
    const onCancelled = () =>
      controller.abort(new OperationAborted("The operation was cancelled by the engine.", "cancelled"));
    if (call?.cancelled) onCancelled();
    else call?.once?.("cancelled", onCancelled);
    let client: ReturnType<typeof clientOf> | undefined;
    return {
      ctx: {
        client: () => {
          client ??= clientOf(lookup, { tokenRequired });
          return client;
        },
        signal: controller.signal,
        ...(deadline !== undefined ? { deadline } : {}),
      },
      done: () => {
        clearTimeout(timer);
        call?.off?.("cancelled", onCancelled);
        this.inFlight.delete(controller);
      },
    };
  }

  /**
   * Runs `work` in an operation's context. The work ends soon after the context's signal fires
   * (Cancel, deadline): every client call and wait heeds it. It is not raced, so a create that is
   * cancelled still reports the server it made (a partial create).
   */
  private async withContext<T>(
    call: CallLike | undefined,
    bound: { engineTimeoutSeconds: number } | { rpc: string },
    work: (ctx: OperationContext) => Promise<T>,
    tokenRequired = true,
  ): Promise<T> {
    const { ctx, done } = this.context(call, bound, tokenRequired);
    try {
      return await work(ctx);
    } finally {
      done();
    }
  }

  /**
   * How a create or update of `type` answers its outputs, whole or partial (the work failed after the service
   * kept something): {@link outputsOf} against the request's inputs. A type of no kind answers what it has.
   */
  private storedOutputs(type: string, wireInputs: PropertyMap): (outputs: unknown) => PropertyMap {
    const entry = resourceOf(type);
    return (outputs) => (entry ? this.outputsOf(entry.kind, outputs, wireInputs) : (outputs as PropertyMap));
  }

  /** Outputs as the engine stores them: echoed secret inputs stay secret, secret outputs are marked. */
  private outputsOf(kind: AnyResourceKind, outputs: unknown, wireInputs: PropertyMap): PropertyMap {
    const plain = JSON.parse(JSON.stringify(outputs ?? {})) as PropertyMap;
    return markSecret(keepSecrecy(plain, wireInputs), kind.secretOutputs);
  }

  handshake: Handler<provider_pb.ProviderHandshakeRequest, provider_pb.ProviderHandshakeResponse> = (
    _call,
    callback,
  ) => {
    const res = new provproto.ProviderHandshakeResponse();
    res.setAcceptSecrets(true);
    res.setAcceptResources(false);
    res.setAcceptOutputs(false);
    callback(null, res);
  };

  getPluginInfo: Handler<Empty, InstanceType<typeof pluginproto.PluginInfo>> = (_call, callback) => {
    const info = new pluginproto.PluginInfo();
    info.setVersion(PACKAGE_VERSION);
    callback(null, info);
  };

  getSchema: Handler<provider_pb.GetSchemaRequest, provider_pb.GetSchemaResponse> = (_call, callback) => {
    void this.answer(callback, () => {
      const res = new provproto.GetSchemaResponse();
      res.setSchema(packageSchemaText());
      return res;
    });
  };

  checkConfig: Handler<provider_pb.CheckRequest, provider_pb.CheckResponse> = (call, callback) => {
    void this.answer(callback, () => {
      const news = fromStruct(call.request.getNews());
      const res = new provproto.CheckResponse();
      res.setInputs(toStruct(markSecret(news, SECRET_CONFIG)));
      const provider = explicitProviderName(call.request.getUrn());
      // The default provider's inputs are the stack's `gamehost:` keys, and the engine's own (`version`…).
      if (provider === undefined && !isPulumiDo(call.request.getUrn()) && !this.unreadChecked) {
        this.unreadChecked = true;
        const present = Object.keys(news).filter((k) => !ENGINE_INPUTS.has(k) && !k.startsWith("__"));
        const unread = unreadKeysWarning(
          Object.values(CONFIG_KEYS).map((c) => c.key),
          present.map((k) => `gamehost:${k}`),
        );
        if (unread !== undefined) warnUser(unread);
      }
      res.setFailuresList(
        failuresOf(checkConfig(reveal(news) as Record<string, unknown>, process.env, provider)),
      );
      return res;
    });
  };

  diffConfig: Handler<provider_pb.DiffRequest, provider_pb.DiffResponse> = (call, callback) => {
    void this.answer(callback, () => {
      const olds = reveal(fromStruct(call.request.getOldInputs())) as Record<string, unknown>;
      const news = reveal(fromStruct(call.request.getNews())) as Record<string, unknown>;
      // A new token or base URL changes how the provider talks to the service, not the servers it
      // manages: nothing is replaced.
      const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => k !== "version");
      const diffs = keys.filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
      const res = new provproto.DiffResponse();
      res.setChanges(
        diffs.length > 0
          ? provproto.DiffResponse.DiffChanges.DIFF_SOME
          : provproto.DiffResponse.DiffChanges.DIFF_NONE,
      );
      res.setDiffsList(diffs);
      return res;
    });
  };

  configure: Handler<provider_pb.ConfigureRequest, provider_pb.ConfigureResponse> = (call, callback) => {
    void this.answer(callback, () => {
      const req = call.request;
      const inputs = reveal(fromStruct(req.getArgs())) as Record<string, unknown>;
      const variables = new Map(req.getVariablesMap().toArray());
      this.lookup = lookupOf(inputs, variables, explicitProviderName(req.getUrn()), isPulumiDo(req.getUrn()));
      // Another connection, another service's windows: its waits are told anew.
      this.dataSourceWarn = warnOnce(warnUser);
      const res = new provproto.ConfigureResponse();
      res.setAcceptsecrets(true);
      res.setSupportspreview(true);
      res.setAcceptresources(false);
      res.setAcceptoutputs(false);
      return res;
    });
  };

  check: Handler<provider_pb.CheckRequest, provider_pb.CheckResponse> = (call, callback) => {
    void this.answer(callback, async () => {
      const req = call.request;
      const { kind } = this.entryOf(req.getType());
      const news = fromStruct(req.getNews());
      const olds = reveal(fromStruct(req.getOlds())) as Record<string, unknown>;
      const given = reveal(news) as Record<string, unknown>;
      const { inputs, failures } = kind.check(olds, given, {
        randomSeed: req.getRandomseed_asU8(),
        urn: req.getUrn(),
      });
      // A replacement no diff asked about (`--replace`, replaceOnChanges, replacementTrigger): its create is
      // asked about here, before a deleteBeforeReplace delete.
      const { checkReplacement } = kind;
      if (failures.length === 0) noteChecked(req.getUrn(), olds, inputs as Record<string, unknown>);
      if (isReplacementCheck(olds, given, req.getUrn()) && failures.length === 0 && checkReplacement) {
        await this.withContext(call, { rpc: `Check of ${req.getType()} ${req.getUrn()}` }, (ctx) =>
          checkReplacement.call(kind, ctx, inputs),
        );
      }
      const res = new provproto.CheckResponse();
      res.setInputs(toStruct(keepSecrecy(JSON.parse(JSON.stringify(inputs)) as PropertyMap, news)));
      res.setFailuresList(failuresOf(withoutSecretGivens(failures, news)));
      return res;
    });
  };

  diff: Handler<provider_pb.DiffRequest, provider_pb.DiffResponse> = (call, callback) => {
    void this.answer(callback, async () => {
      const req = call.request;
      const { kind } = this.entryOf(req.getType());
      const olds = reveal(fromStruct(req.getOlds()));
      const news = reveal(fromStruct(req.getNews()));
      const diff = kind.diff(req.getId(), olds, news);
      if (diff.replaces.length > 0) {
        await this.withContext(call, { rpc: `Diff of ${req.getType()} ${req.getId()}` }, (ctx) =>
          askAboutReplacement(kind, ctx, news, req.getUrn()),
        );
      }
      return diffResponse(diff);
    });
  };

  create: Handler<provider_pb.CreateRequest, provider_pb.CreateResponse> = (call, callback) => {
    const req = call.request;
    const wire = fromStruct(req.getProperties());
    const stored = this.storedOutputs(req.getType(), wire);
    void this.answer(
      callback,
      async () => {
        const { kind } = this.entryOf(req.getType());
        const inputs = reveal(wire);
        const res = new provproto.CreateResponse();
        if (req.getPreview()) {
          // A preview: what is known before anything is created, without a request to the service.
          res.setProperties(toStruct(stored(kind.preview(inputs))));
          return res;
        }
        noteCreating(req.getUrn());
        const { id, outputs } = await this.withContext(
          call,
          { engineTimeoutSeconds: req.getTimeout() },
          (ctx) => kind.create(ctx, inputs),
        );
        res.setId(id);
        res.setProperties(toStruct(stored(outputs)));
        return res;
      },
      stored,
    );
  };

  read: Handler<provider_pb.ReadRequest, provider_pb.ReadResponse> = (call, callback) => {
    void this.answer(callback, async () => {
      const req = call.request;
      const { kind } = this.entryOf(req.getType());
      const wireOutputs = fromStruct(req.getProperties());
      const wireInputs = fromStruct(req.getInputs());
      // No recorded state: an import (or `get` by id alone), whose id carries what the lookup needs.
      const recorded =
        Object.keys(wireOutputs).length > 0
          ? {
              outputs: reveal(wireOutputs),
              inputs: reveal(Object.keys(wireInputs).length > 0 ? wireInputs : wireOutputs),
            }
          : undefined;
      const found = await this.withContext(call, { rpc: `Read of ${req.getType()} ${req.getId()}` }, (ctx) =>
        kind.read(ctx, req.getId(), recorded),
      );
      const res = new provproto.ReadResponse();
      if (!found) return res; // An empty id: the resource is gone.
      const secrecy = { ...wireOutputs, ...wireInputs };
      // What another stack's program made secret is read here in clear: with no recorded value to say
      // otherwise, a value that may be a secret stays one.
      const unrecorded = kind.secretWhenUnrecorded.filter((at) => !holdsPath(secrecy, at));
      const outputs = unrecorded.reduce(markSecretAt, this.outputsOf(kind, found.outputs, secrecy));
      // The inputs too: `pulumi import` records them in the state, where a plain copy would undo the
      // outputs' secrecy.
      const inputs = unrecorded.reduce(
        markSecretAt,
        keepSecrecy(JSON.parse(JSON.stringify(found.inputs)) as PropertyMap, secrecy),
      );
      res.setId(found.id);
      res.setProperties(toStruct(outputs));
      res.setInputs(toStruct(inputs));
      return res;
    });
  };

  update: Handler<provider_pb.UpdateRequest, provider_pb.UpdateResponse> = (call, callback) => {
    const req = call.request;
    const wireNews = fromStruct(req.getNews());
    const stored = this.storedOutputs(req.getType(), wireNews);
    void this.answer(
      callback,
      async () => {
        const { kind } = this.entryOf(req.getType());
        const olds = reveal(fromStruct(req.getOlds())) as Record<string, unknown>;
        const news = reveal(wireNews);
        const res = new provproto.UpdateResponse();
        if (req.getPreview()) {
          // What the update will keep (the old computed outputs) and what the new inputs say.
          res.setProperties(toStruct(stored({ ...olds, ...kind.preview(news) })));
          return res;
        }
        const outputs = await this.withContext(call, { engineTimeoutSeconds: req.getTimeout() }, (ctx) =>
          kind.update(ctx, req.getId(), olds, news),
        );
        res.setProperties(toStruct(stored(outputs)));
        return res;
      },
      stored,
    );
  };

  delete: Handler<provider_pb.DeleteRequest, Empty> = (call, callback) => {
    void this.answer(callback, async () => {
      const req = call.request;
      const { kind } = this.entryOf(req.getType());
      const outputs = reveal(fromStruct(req.getProperties()));
      // The create this delete may come before (`pulumi up --replace` with deleteBeforeReplace).
      const replacement = createAfterDelete(req.getUrn());
      await this.withContext(call, { engineTimeoutSeconds: req.getTimeout() }, (ctx) =>
        deleteBeforeReplacement(kind, ctx, req.getId(), outputs, replacement),
      );
      return new emptyproto.Empty();
    });
  };

  invoke: Handler<provider_pb.InvokeRequest, provider_pb.InvokeResponse> = (call, callback) => {
    void this.answer(callback, async () => {
      const req = call.request;
      const entry = functionOf(req.getTok());
      if (!entry)
        throw new Error(
          `the gamehost provider has no function ${JSON.stringify(req.getTok())} (its functions: ${FUNCTION_ENTRIES.map((f) => f.token).join(", ")})`,
        );
      const { definition } = entry;
      const res = new provproto.InvokeResponse();
      const wireArgs = fromStruct(req.getArgs());
      const secrets = secretTexts(wireArgs);
      // Bad arguments fail the invoke as one error naming each (INVALID_ARGUMENT), as the dynamic face
      // does: returned as failures, the Go SDK (YAML, Go) prints them as a multi-line `1 error occurred: *`.
      let args: unknown;
      try {
        args = parseWith(definition.args, reveal(wireArgs), `arguments of ${definition.name}`);
      } catch (error) {
        throw withoutSecrets(error, secrets);
      }
      const result = await this.withContext(
        call,
        { rpc: `Invoke of ${req.getTok()}` },
        (ctx) =>
          definition
            .run(
              clientOf(
                this.lookup,
                { tokenRequired: definition.needsToken },
                dataSourceClientOptions(this.dataSourceWarn),
              ),
              args,
              ctx.signal ? { signal: ctx.signal } : {},
            )
            .catch((error: unknown) => Promise.reject(withoutSecrets(dataSourceFailure(error), secrets))),
        definition.needsToken,
      );
      const plain = JSON.parse(JSON.stringify(result ?? {})) as PropertyMap;
      res.setReturn(toStruct(definition.secret ? markSecret(plain, Object.keys(plain)) : plain));
      return res;
    });
  };

  /**
   * `List` (what `pulumi do <token> list` calls): the kind's listing, streamed as import ids, then a
   * continuation when a `limit` cut the page short. A query with unknowns answers "computed".
   */
  list = (call: ServerWritableStream<provider_pb.ListRequest, provider_pb.ListResponse>): void => {
    const req = call.request;
    const send = (fill: (res: provider_pb.ListResponse) => void) => {
      const res = new provproto.ListResponse();
      fill(res);
      call.write(res);
    };
    void (async () => {
      try {
        const { kind } = this.entryOf(req.getToken());
        if (!kind.listing) throw new Error(`the gamehost provider cannot list ${req.getToken()} resources`);
        const { listing } = kind;
        const query = reveal(fromStruct(req.getQuery())) as Record<string, unknown>;
        if (containsUnknown(query)) {
          send((res) => res.setComputed(new provproto.ListResponse.Computed()));
        } else {
          const continuation = req.getContinuationToken();
          const page = await this.withContext(call, { rpc: `List of ${req.getToken()}` }, (ctx) =>
            listing.list(ctx, query, {
              limit: Math.max(0, Number(req.getLimit())),
              ...(continuation ? { after: continuation } : {}),
            }),
          );
          for (const item of page.items) {
            const result = new provproto.ListResponse.Result();
            result.setId(item.id);
            if (item.name !== undefined) result.setName(item.name);
            send((res) => res.setResult(result));
          }
          if (page.next !== undefined) {
            const next = new provproto.ListResponse.Continuation();
            next.setContinuationToken(page.next);
            send((res) => res.setContinuation(next));
          }
        }
        call.end();
      } catch (error) {
        call.emit("error", grpcError(error));
      }
    })();
  };

  cancel: Handler<Empty, Empty> = (_call, callback) => {
    for (const controller of this.inFlight) {
      controller.abort(new OperationAborted("The operation was cancelled by the engine.", "cancelled"));
    }
    callback(null, new emptyproto.Empty());
  };

  getMapping: Handler<provider_pb.GetMappingRequest, provider_pb.GetMappingResponse> = (_call, callback) => {
    // No mappings: nothing converts into gamehost resources from another tool.
    callback(null, new provproto.GetMappingResponse());
  };

  getMappings: Handler<provider_pb.GetMappingsRequest, provider_pb.GetMappingsResponse> = (
    _call,
    callback,
  ) => {
    callback(null, new provproto.GetMappingsResponse());
  };
}

/** A kind's diff as the wire carries it. */
function diffResponse(diff: DiffResult): provider_pb.DiffResponse {
  const res = new provproto.DiffResponse();
  res.setChanges(
    diff.changes
      ? provproto.DiffResponse.DiffChanges.DIFF_SOME
      : provproto.DiffResponse.DiffChanges.DIFF_NONE,
  );
  res.setReplacesList(diff.replaces);
  res.setDiffsList(diff.diffs);
  res.setDeletebeforereplace(diff.deleteBeforeReplace);
  res.setHasdetaileddiff(true);
  const detailed = res.getDetaileddiffMap();
  for (const [path, change] of Object.entries(diff.detailedDiff)) {
    const property = new provproto.PropertyDiff();
    property.setKind(PROPERTY_CHANGES[change]);
    property.setInputdiff(true);
    detailed.set(path, property);
  }
  return res;
}
