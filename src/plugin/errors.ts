/**
 * Errors as gRPC answers. A partially created resource travels as `ErrorResourceInitFailed` in the
 * `grpc-status-details-bin` trailer (`provider_plugin.go: parseError` reads it), so the engine records it
 * instead of losing it. Every message and reason is bounded (`textBounds.ts`): gRPC loses a status whose
 * trailers pass its header-list limit, and the engine then shows nothing of the cause.
 */
import type { ServerErrorResponse } from "@grpc/grpc-js";
import { GamehostConfigError, GamehostValidationError } from "../api/errors";
import { boundText } from "../api/textBounds";
import { PartialCreateError } from "../kinds/kind";
import type { PropertyMap } from "./propertyValues";
import { anyproto, grpc, provproto, statusproto } from "./proto";
import { toStruct } from "./structs";

/** The engine's cancellation or a timeout ended the operation. */
export class OperationAborted extends Error {
  override name = "OperationAborted";
  constructor(
    message: string,
    readonly code: "cancelled" | "deadline",
  ) {
    super(message);
  }
}

/**
 * The gRPC error of a failed operation. `finish` turns the properties of a partial create into what
 * the engine stores (secrets marked).
 */
export function grpcError(
  error: unknown,
  finish: (properties: PropertyMap) => PropertyMap = (p) => p,
): ServerErrorResponse {
  // Any error, ours or not, within the bound: a status past about 70 KiB never reaches the engine.
  const message = boundText(error instanceof Error ? error.message : String(error));
  if (error instanceof PartialCreateError) {
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId(error.id);
    detail.setProperties(toStruct(finish(JSON.parse(JSON.stringify(error.properties)) as PropertyMap)));
    // The engine shows only the reasons (`provider_plugin.go: parseError` drops the status message).
    detail.setReasonsList(error.reasons.slice(0, 4).map((reason) => boundText(reason)));
    const any = new anyproto.Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(any);
    const metadata = new grpc.Metadata();
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
    return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata });
  }
  const code =
    error instanceof OperationAborted
      ? error.code === "cancelled"
        ? grpc.status.CANCELLED
        : grpc.status.DEADLINE_EXCEEDED
      : error instanceof GamehostValidationError
        ? grpc.status.INVALID_ARGUMENT
        : error instanceof GamehostConfigError
          ? grpc.status.FAILED_PRECONDITION
          : grpc.status.UNKNOWN;
  return Object.assign(new Error(message), { code, details: message });
}
