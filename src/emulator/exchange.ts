import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_CODES } from "../api/errors";
import type { EmulatorCore, Handler, RequestContext } from "./core";
import type { PendingFault } from "./faultTypes";
import { internalError, type Reply, readBody, ServiceError, writeError, writeReply } from "./http";
import type { RequestLogEntry } from "./requestLog";
import type { Capped, TimeCap } from "./timeCap";
import { badBody } from "./validation";

export type { RequestLogEntry } from "./requestLog";

/** The path and query of a request target. */
export interface Target {
  pathname: string;
  /** The query with its `?` (which `URLSearchParams` strips, once), or empty. */
  search: string;
  /** Already parsed (targets that went through `URL`). */
  query?: URLSearchParams;
}

// Targets made of these characters parse to themselves: no dot segments or percent-escapes for
// `URL` to normalize, no `//` or `\` authority, no fragment. Only they skip the `URL` parser. The query
// is printable ASCII only: `URL` percent-encodes other characters before decoding the query as UTF-8,
// so next to a broken escape (`%aa` then `é`) they decode differently from the raw text.
const PLAIN_TARGET = /^\/(?![/\\])[\w\-~/]*(?:\?[!"$-~]*)?$/;

/**
 * Splits a request target into path and query exactly as `new URL(target, base)` would, without the
 * cost of a `URL` for plain targets; `undefined` when it is not a valid URL at all.
 */
export function parseTarget(raw: string): Target | undefined {
  if (PLAIN_TARGET.test(raw)) {
    const q = raw.indexOf("?");
    return q < 0 ? { pathname: raw, search: "" } : { pathname: raw.slice(0, q), search: raw.slice(q) };
  }
  let url: URL;
  try {
    url = new URL(raw, "http://127.0.0.1");
  } catch {
    return undefined;
  }
  return { pathname: url.pathname, search: url.search, query: url.searchParams };
}

/** What an exchange needs from the server it runs in. */
export interface ExchangeHost {
  readonly core: EmulatorCore;
  readonly caps: TimeCap;
  /** `exchange` tells when the request arrived and who sent it (the dashboard's requests monitor). */
  log(entry: RequestLogEntry, exchange?: Exchange): void;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * One request and its answer: the {@link RequestContext} handlers see, plus the bookkeeping of the
 * dispatcher (time cap, client leaving, request log). The abort signal and the parsed query are
 * made only when a handler asks for them: most requests never need either.
 */
export class Exchange implements RequestContext, Capped {
  readonly method: string;
  readonly pathname: string;
  readonly params: Readonly<Record<string, string>>;
  readonly authorization: string | undefined;
  readonly deadline: number;
  /** When the request arrived (`performance.now()`). */
  readonly startedAt = performance.now();
  private readonly search: string;
  private parsedQuery: URLSearchParams | undefined;
  private controller: AbortController | undefined;
  private aborted = false;
  private done = false;
  private body: Promise<unknown> | undefined;

  /**
   * `route` names the route in the log. An untracked exchange (admin routes) has no time cap,
   * does not notice the client leaving, and is not logged.
   */
  constructor(
    private readonly host: ExchangeHost,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    target: Target,
    params: Readonly<Record<string, string>> | undefined,
    readonly rayId: string,
    private readonly route: string,
    private readonly tracked: boolean,
  ) {
    this.method = req.method ?? "GET";
    this.pathname = target.pathname;
    this.search = target.search;
    this.parsedQuery = target.query;
    this.params = params ?? NO_PARAMS;
    this.authorization = req.headers.authorization;
    this.deadline = tracked ? host.caps.deadlineFromNow() : Number.POSITIVE_INFINITY;
    if (tracked) {
      host.caps.start(this);
      res.on("close", () => {
        if (this.done) return;
        this.abort();
        this.finish(0);
      });
    }
  }

  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.search);
    return this.parsedQuery;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  /**
   * The body as the service reads it (docs/service-contract.md §1): whatever the `Content-Type`, an empty body
   * as `{}`, anything else as JSON or 400 `API_BAD_BODY`.
   */
  json(): Promise<unknown> {
    this.body ??= readBody(this.req, this.host.core.options.bodyLimitBytes, (buf) => {
      if (buf.length === 0) return {};
      try {
        return JSON.parse(buf.toString("utf8")) as unknown;
      } catch (err) {
        throw badBody(`Request body is not valid JSON: ${(err as Error).message}`);
      }
    });
    return this.body;
  }

  /** Whether the exchange has been answered, dropped or timed out. */
  get finished(): boolean {
    return this.done;
  }

  /** The time cap passed: whatever the handler is waiting for is abandoned, and the client gets a 500. */
  expire(): void {
    if (this.done) return;
    this.abort();
    this.answerError(
      new ServiceError(
        500,
        ERROR_CODES.requestTimeout,
        `The request ran past the ${this.host.caps.capMs} ms time cap.`,
      ),
    );
  }

  /** Answers with a service error and ends the exchange. */
  answerError(error: ServiceError): void {
    writeError(this.res, this.rayId, error);
    this.finish(error.status);
  }

  /** Drops the connection without an answer (injected resets). */
  reset(): void {
    this.req.socket.destroy();
    this.finish(0);
  }

  /** Ends the exchange: off the time cap, into the log. */
  finish(status: number): void {
    if (this.done) return;
    this.done = true;
    if (!this.tracked) return;
    this.host.caps.end(this);
    this.host.log({ method: this.method, route: this.route, path: this.pathname, status }, this);
  }

  /**
   * Runs the handler and answers with what it returns. A handler that answers synchronously is
   * answered in the same tick, with no promise in between. `fault` is a `commit_then_*` fault to
   * apply once the handler has done its work.
   */
  run(handler: Handler, fault?: PendingFault): void {
    let result: ReturnType<Handler>;
    try {
      result = handler(this.host.core, this);
    } catch (err) {
      this.settle(undefined, err, true, fault);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (reply: Reply | undefined) => this.settle(reply, undefined, false, fault),
        (err: unknown) => this.settle(undefined, err, true, fault),
      );
    } else {
      this.settle(result, undefined, false, fault);
    }
  }

  private abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.controller?.abort();
  }

  /** Never throws: it runs from promise callbacks, where a throw would be an unhandled rejection. */
  private settle(reply: Reply | undefined, err: unknown, failed: boolean, fault?: PendingFault): void {
    try {
      this.answer(reply, err, failed, fault);
    } catch (writeErr) {
      this.internalFailure(writeErr);
    }
  }

  private answer(reply: Reply | undefined, err: unknown, failed: boolean, fault?: PendingFault): void {
    let error: ServiceError | undefined;
    if (failed) {
      if (err instanceof ServiceError) error = err;
      // The client left mid-request (e.g. while sending its body): nobody to answer, nothing wrong.
      else if (this.aborted) reply = undefined;
      else {
        this.host.core.options.warn(`internal error in ${this.method} ${this.pathname}: ${String(err)}`);
        error = internalError();
      }
    }
    if (this.done) return;
    if (fault?.kind === "commit_then_reset") this.reset();
    else if (fault?.kind === "commit_then_500") this.answerError(internalError());
    else if (error) this.answerError(error);
    else if (!reply) this.finish(0);
    else if (reply.kind === "json") {
      writeReply(this.res, this.rayId, reply);
      this.finish(reply.status);
    } else {
      this.finish(200);
      reply.write(this.res);
    }
  }

  /** Last line of defence: never a crash, never a stack trace to the client. */
  private internalFailure(err: unknown): void {
    this.host.core.options.warn(`failed to answer ${this.method} ${this.pathname}: ${String(err)}`);
    try {
      writeError(this.res, this.rayId, internalError());
    } catch {
      this.res.destroy();
    }
    this.finish(500);
  }
}
