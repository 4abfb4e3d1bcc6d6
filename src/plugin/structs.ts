/**
 * Property maps as they cross the gRPC boundary: `google.protobuf.Struct` in, plain values for the kinds,
 * and back (the values keep their wire form: see ./propertyValues).
 */

import type { PropertyMap } from "./propertyValues";
import { type Struct, structproto } from "./proto";

/** Drops `undefined` members (a Struct cannot hold them), as JSON does. */
function toJson(value: unknown): PropertyMap {
  return JSON.parse(JSON.stringify(value ?? {})) as PropertyMap;
}

/** A Struct (possibly absent) as a property map. */
export function fromStruct(struct: Struct | undefined): PropertyMap {
  return struct ? (struct.toJavaScript() as PropertyMap) : {};
}

/** A property map (or any plain object of the kinds) as a Struct. */
export function toStruct(value: unknown): Struct {
  return structproto.Struct.fromJavaScript(toJson(value));
}
