import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_CODES } from "../api/errors";

/** A JSON answer a handler produced; the dispatcher adds the ray id and writes it. */
export interface JsonReply {
  kind: "json";
  status: number;
  body: unknown;
  headers?: Record<string, string>;
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

/** 500 `ERROR`, with the service's fixed message. */
export const internalError = (): ServiceError =>
  new ServiceError(500, ERROR_CODES.internal, INTERNAL_MESSAGE);

/** Writes a JSON body with the ray id header, unless the response has already started. */
export function writeJson(
  res: ServerResponse,
  rayId: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "rvt-ray-id": rayId,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** Writes a service error as the service's error body. */
export function writeError(res: ServerResponse, rayId: string, error: ServiceError): void {
  const body: Record<string, unknown> = { code: error.code, message: error.message, ray_id: rayId };
  if (error.metadata !== undefined) body.metadata = error.metadata;
  writeJson(res, rayId, error.status, body, error.headers);
}

/**
 * Reads the request body up to `limit` bytes. Past the limit it stops buffering but keeps
 * draining, so the client can finish sending and read the 413 instead of a broken pipe. Reading is
 * evented, so a client trickling its body never blocks anyone else.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
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
      } else {
        resolve(Buffer.concat(chunks));
      }
    });
    req.on("error", reject);
  });
}
