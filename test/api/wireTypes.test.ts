// The plain declarations of `pulumi-gamehost/api` (generated into src/api/generated/) are the schemas'
// `z.infer` types exactly. The check is `tsc -p tsconfig.test.json` (part of `npm test`); which types are
// declared is the generator's (every `export type X = z.infer<typeof X>`), kept fresh by `generate --check`.
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { WireTypes } from "../../src/api/generated/byName";
import type * as schemas from "../../src/api/schemas";

type Schemas = typeof schemas;
/** Each declared name's schema's `z.infer`. */
type Inferred = {
  [K in keyof WireTypes]: K extends keyof Schemas
    ? Schemas[K] extends z.ZodType
      ? z.infer<Schemas[K]>
      : never
    : never;
};

describe("wire declarations", () => {
  it("are, type by type, the z.infer of the schema of the same name", () => {
    expectTypeOf<WireTypes>().toEqualTypeOf<Inferred>();
    expectTypeOf<WireTypes["Server"]>().toEqualTypeOf<z.infer<Schemas["Server"]>>();
  });
});
