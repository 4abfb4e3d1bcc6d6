import { z } from "zod";

/** Lowercase, hyphenated UUID: the only id format the service accepts in paths and bodies. */
export const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
  error: "must be a lowercase hyphenated UUID",
});

/** RFC 3339 timestamp, as the cloud endpoints send it (e.g. `2024-08-16T05:35:01.123Z`). */
export const Rfc3339 = z.iso.datetime({ offset: true, error: "must be an RFC 3339 timestamp" });

export const UINT32_MAX = 4_294_967_295;

/** Unsigned 32-bit integer. */
export const Uint32 = z
  .number()
  .int({ error: "must be an integer" })
  .min(0, { error: "must be ≥ 0" })
  .max(UINT32_MAX, { error: `must be ≤ ${UINT32_MAX}` });

/**
 * Unsigned 64-bit integer. JSON numbers above 2^53 lose precision in JavaScript, so the safe
 * integer range is the part of uint64 this package can represent exactly.
 */
export const Uint64 = z
  .number()
  .int({ error: "must be an integer" })
  .min(0, { error: "must be ≥ 0" })
  .max(Number.MAX_SAFE_INTEGER, { error: `must be ≤ ${Number.MAX_SAFE_INTEGER}` });

/** Integer milliseconds since the Unix epoch (server timestamps). */
export const EpochMs = Uint64;

/** Short human-readable identifier: no special characters. */
export const NameId = z.string().min(1);

/** A resource's readable display name. */
export const DisplayName = z.string().min(1);

/** Version marker of watchable data: a decimal string (a millisecond timestamp plus one). */
export const Watch = z.object({ index: z.string().regex(/^\d+$/, { error: "must be a decimal string" }) });
export type Watch = z.infer<typeof Watch>;

/**
 * A record whose own `__proto__` key is an error. Zod skips that key (assigning it would replace
 * the result's prototype), so without this a map entry would vanish silently and its value would
 * go unchecked. Only JSON-parsed input can carry such a key.
 */
export function userRecord<K extends z.core.$ZodRecordKey, V extends z.core.SomeType>(
  key: K,
  value: V,
  params?: z.core.$ZodRecordParams,
) {
  return z.preprocess(
    (input, ctx) => {
      if (typeof input === "object" && input !== null && Object.hasOwn(input, "__proto__")) {
        ctx.addIssue({ code: "custom", path: ["__proto__"], message: "cannot be used as a key", input });
      }
      return input;
    },
    z.record(key, value, params),
  );
}

/** String-to-string map (tags, environment variables). */
export const StringMap = userRecord(z.string(), z.string({ error: "must be a string" }));

/** The error body every non-200 response carries. */
export const ErrorBody = z.object({
  code: z.string(),
  message: z.string(),
  ray_id: z.string().optional(),
  documentation: z.string().optional(),
  metadata: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** `{}`: what the service answers when there is nothing to say (e.g. DELETE). */
export const EmptyResponse = z.object({});
