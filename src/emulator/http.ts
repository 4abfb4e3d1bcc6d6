import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_CODES } from "../api/errors";

/** A JSON answer a handler produced; the dispatcher adds the ray id and writes it. */
export interface JsonReply {
  kind: "json";
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * `body` already serialized, when the handler has it: a snapshot taken before later changes
   * to live objects, or bytes shared by every answer of the same data.
   */
  text?: string | Buffer;
}

/** An answer the handler writes itself (file downloads). */
export interface StreamReply {
  kind: "stream";
  write(res: ServerResponse): void;
}

/** What a handler answers. */
export type Reply = JsonReply | StreamReply;

/** 200 with a JSON body. */
export function ok(body: unknown): JsonReply {
  return { kind: "json", status: 200, body };
}

/**
 * 200 with a JSON body serialized now: what the client gets is the body as it is at this instant,
 * even if the objects in it change before the answer is written (no deep copy needed).
 */
export function okNow(body: unknown): JsonReply {
  return { kind: "json", status: 200, body, text: JSON.stringify(body) };
}

/**
 * A service error as a value: handlers throw it and the dispatcher turns it into the error body
 * `{code, message, ray_id, documentation?, metadata?}`.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly metadata?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

/** Message of every internal error: the client never sees a stack trace. */
export const INTERNAL_MESSAGE = "An internal error has occurred.";

/** 404 `API_NOT_FOUND`: the route does not exist (also for a non-UUID id segment). */
export const notFoundRoute = (): ServiceError =>
  new ServiceError(404, ERROR_CODES.notFound, "The requested route was not found.");

/** 400 `API_METHOD_NOT_ALLOWED`: the path exists, but not with this method (docs/service-contract.md §1). */
export const methodNotAllowed = (method: string): ServiceError =>
  new ServiceError(400, ERROR_CODES.methodNotAllowed, `Method ${method} is not allowed on this route.`);

/** 500 `ERROR`, with the service's fixed message. */
export const internalError = (): ServiceError =>
  new ServiceError(500, ERROR_CODES.internal, INTERNAL_MESSAGE);

/** Writes a JSON body with the ray id header, unless the response has already started. */
export function writeJson(
  res: ServerResponse,
  rayId: string,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  writeText(res, rayId, status, JSON.stringify(body), headers);
}

/** Writes a handler's JSON answer (its serialized text when it has one). */
export function writeReply(res: ServerResponse, rayId: string, reply: JsonReply): void {
  writeText(res, rayId, reply.status, reply.text ?? JSON.stringify(reply.body), reply.headers);
}

function writeText(
  res: ServerResponse,
  rayId: string,
  status: number,
  text: string | Buffer,
  headers: Record<string, string> | undefined,
): void {
  if (res.headersSent || res.destroyed) return;
  const length = String(typeof text === "string" ? Buffer.byteLength(text) : text.length);
  res.writeHead(
    status,
    headers
      ? {
          ...headers,
          "rvt-ray-id": rayId,
          "content-type": JSON_CONTENT_TYPE,
          "content-length": length,
        }
      : { "rvt-ray-id": rayId, "content-type": JSON_CONTENT_TYPE, "content-length": length },
  );
  res.end(text);
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** Where the page of every error code lives; see {@link documentationOf}. */
export const ERROR_DOCUMENTATION_BASE = "https://docs.gamehost.example/errors/";

/**
 * The `documentation` URL of an error code: its page under {@link ERROR_DOCUMENTATION_BASE}, named by
 * the code itself (e.g. `…/errors/API_NOT_FOUND`). Every coded error carries one; only the internal
 * `ERROR` has none (docs/service-contract.md §2).
 */
export function documentationOf(code: string): string | undefined {
  return code === ERROR_CODES.internal ? undefined : `${ERROR_DOCUMENTATION_BASE}${code}`;
}

/** Writes a service error as the service's error body. */
export function writeError(res: ServerResponse, rayId: string, error: ServiceError): void {
  const body: Record<string, unknown> = { code: error.code, message: error.message, ray_id: rayId };
  const documentation = documentationOf(error.code);
  if (documentation !== undefined) body.documentation = documentation;
  if (error.metadata !== undefined) body.metadata = error.metadata;
  writeJson(res, rayId, error.status, body, error.headers);
}

/**
 * Reads the request body up to `limit` bytes and resolves with `decode(body)` (a throw from
 * `decode` rejects). Past the limit it stops buffering but keeps draining, so the client can finish
 * sending and read the 413 instead of a broken pipe. Reading is evented, so a client trickling its
 * body never blocks anyone else.
 */
export function readBody<T>(req: IncomingMessage, limit: number, decode: (body: Buffer) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? Number.NaN);
    let tooLarge = Number.isFinite(declared) && declared > limit;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (tooLarge) {
        reject(
          new ServiceError(
            413,
            ERROR_CODES.badBody,
            `Request body is larger than the limit of ${limit} bytes.`,
          ),
        );
        return;
      }
      try {
        resolve(decode(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
      } catch (err) {
        reject(err);
      }
    });
    req.on("error", reject);
  });
}
